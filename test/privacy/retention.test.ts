// Retention against the real database with an injected clock: expired memory deleted, old crisis details removed
// (the event still counts), old check-ins, letters, rejected feedback and games deleted, conversation counts
// anonymised; a server Haven left purged only after the grace period, a rejoin cancelling it; a dry run that counts
// exactly what a real run does and changes nothing; `haven purge --dry-run` as a child process; the scheduler
// started on boot and stopped on shutdown.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { Conversation, CrisisEvent, Feedback, GameRound, GameVote, GhostLetter, MoodCheckIn } from '../../src/lib/db/index.ts';
import { updateGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { rememberTurn } from '../../src/lib/companion/memory.ts';
import { purge, startRetentionScheduler, type PurgeReport } from '../../src/lib/privacy/retention.ts';
import { startBotWorld, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const person = (n: number) => snowflakeAt(1_495_000_000_000, n);
const USER = person(1);
const OTHER = person(2);
const CHANNEL = '123456789012345678';

let world: BotWorld;
let stay: string;
let leaving: string;
let back: string;
const T0 = new Date();
const at = (ms: number) => new Date(T0.getTime() + ms);

const em = (): EntityManager => world.haven.db.orm.em.fork() as EntityManager;
const sql = <T = any>(query: string, params: unknown[] = []) => world.haven.db.orm.em.fork().getConnection().execute<T[]>(query, params);

/** Row counts of every table and the counters: what "changes nothing" compares. */
async function snapshot(): Promise<unknown> {
	const tables = await sql<{ table_name: string }>(
		`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
	);
	const counts: Record<string, number> = {};
	for (const { table_name } of tables) counts[table_name] = (await sql<{ n: number }>(`select count(*)::int as n from "${table_name}"`))[0]!.n;
	return {
		counts,
		counters: await sql('select name, value from stat_counters order by name'),
		details: await sql('select count(details)::int as details, count(user_id)::int as users from crisis_events'),
		conversationUsers: await sql('select count(user_id)::int as n from conversations'),
		guildIds: await sql('select count(guild_id)::int as n from mood_check_ins'),
	};
}

/** The database URL for a child process: the URL, or the embedded server's Unix socket. */
function cliDatabaseUrl(): string {
	if (world.env.DATABASE_URL) return world.env.DATABASE_URL;
	const config = world.haven.db.orm.config;
	return `postgresql://${config.get('user')}@${encodeURIComponent(String(config.get('host')))}:${config.get('port')}/${config.get('dbName')}`;
}

async function haven(...args: string[]): Promise<string> {
	const { stdout } = await run(process.execPath, ['src/cli/haven.ts', ...args], {
		env: { ...process.env, ...world.env, DATABASE_URL: cliDatabaseUrl(), TOKEN: '', LOG_LEVEL: 'error' } as NodeJS.ProcessEnv,
		cwd: new URL('../../', import.meta.url),
	});
	return stdout;
}

before(async () => {
	world = await startBotWorld({
		fake: { guilds: [{ name: 'Stay' }, { name: 'Leaving' }, { name: 'Comes back' }] },
		env: { ENCRYPTION_KEY: 'd4'.repeat(32), PURGE_INTERVAL_MS: '0' },
	});
	[stay, leaving, back] = world.fake.guilds.ids as [string, string, string];
});

after(async () => {
	await world?.close();
});

async function seedRows(): Promise<void> {
	const e = em();
	// Crisis events: one past the 30 days, one recent.
	e.create(CrisisEvent, {
		userId: USER,
		guildId: stay,
		level: 'high',
		categories: ['self_harm'],
		trigger: 'mention',
		details: 'old excerpt',
		createdAt: at(-31 * DAY),
	});
	e.create(CrisisEvent, {
		userId: USER,
		guildId: stay,
		level: 'concern',
		categories: [],
		trigger: 'mention',
		details: 'recent excerpt',
		createdAt: at(-1 * DAY),
	});
	e.create(MoodCheckIn, { userId: USER, guildId: stay, mood: 'sad', intensity: 2, note: 'a year ago', createdAt: at(-400 * DAY) });
	e.create(MoodCheckIn, { userId: USER, guildId: stay, mood: 'okay', intensity: 3, note: 'last week', createdAt: at(-7 * DAY) });
	e.create(GhostLetter, { userId: USER, content: 'old letter', createdAt: at(-100 * DAY) });
	e.create(GhostLetter, { userId: USER, content: 'new letter', createdAt: at(-5 * DAY) });
	e.create(Conversation, { userId: USER, guildId: stay, source: 'discord', createdAt: at(-40 * DAY) });
	e.create(Conversation, { userId: USER, guildId: stay, source: 'discord', createdAt: at(-2 * DAY) });
	e.create(Feedback, {
		userId: USER,
		message: 'rejected long ago',
		source: 'api',
		status: 'rejected',
		reviewedAt: at(-100 * DAY),
		createdAt: at(-101 * DAY),
	});
	e.create(Feedback, { userId: OTHER, message: 'rejected lately', source: 'api', status: 'rejected', reviewedAt: at(-3 * DAY) });
	e.create(Feedback, {
		userId: OTHER,
		message: 'approved long ago',
		source: 'api',
		status: 'approved',
		reviewedAt: at(-300 * DAY),
		createdAt: at(-300 * DAY),
	});
	const oldRound = e.create(GameRound, { kind: 'trivia', guildId: stay, startedBy: USER, content: {}, createdAt: at(-40 * DAY) });
	e.create(GameRound, { kind: 'trivia', guildId: stay, startedBy: USER, content: {}, createdAt: at(-1 * DAY) });
	await e.flush();
	e.create(GameVote, { round: oldRound, userId: OTHER, choice: 1 });
	await e.flush();
	// Memory: two turns said now (expire in 24 h), one said in 2 hours (expires in 26 h).
	await rememberTurn(em(), { userId: USER, channelId: CHANNEL, role: 'user', content: 'now 1' }, { now: T0 });
	await rememberTurn(em(), { userId: USER, channelId: CHANNEL, role: 'assistant', content: 'now 2' }, { now: at(1) });
	await rememberTurn(em(), { userId: OTHER, channelId: CHANNEL, role: 'user', content: 'later' }, { now: at(2 * HOUR) });
}

describe('purge with an injected clock', () => {
	let dry: PurgeReport;
	before(seedRows);

	test('a dry run counts what would go and changes nothing', async () => {
		const before = await snapshot();
		dry = await purge(world.haven.db.orm, at(25 * HOUR), { dryRun: true });
		assert.equal(dry.dryRun, true);
		assert.deepEqual(await snapshot(), before);
		assert.equal(dry.counts.memory_turns, 2);
		assert.equal(dry.counts['crisis_events.details'], 1);
		assert.equal(dry.counts.mood_check_ins, 1);
		assert.equal(dry.counts.ghost_letters, 1);
		assert.equal(dry.counts['conversations.user_id'], 1);
		assert.equal(dry.counts['feedback.rejected'], 1);
		assert.equal(dry.counts.game_rounds, 1);
	});

	test('the real run does exactly that: expired memory gone, old details removed (event kept), old rows deleted', async () => {
		const counters = await sql('select name, value from stat_counters order by name');
		const events = (await sql<{ n: number }>('select count(*)::int as n from crisis_events'))[0]!.n;
		const report = await purge(world.haven.db.orm, at(25 * HOUR));
		assert.deepEqual(report.counts, dry.counts, 'the dry run predicted it');
		assert.deepEqual((await sql('select content from memory_turns')).length, 1, 'only the turn that has not expired');
		assert.deepEqual(await sql('select level, user_id, details from crisis_events order by created_at'), [
			{ level: 'high', user_id: null, details: null },
			{ level: 'concern', user_id: USER, details: (await sql('select details from crisis_events where level = ?', ['concern']))[0].details },
		]);
		const recent = await em().find(CrisisEvent, { level: 'concern' });
		assert.equal(recent[0]!.details, 'recent excerpt', 'a recent excerpt stays (and decrypts)');
		assert.equal((await sql<{ n: number }>('select count(*)::int as n from crisis_events'))[0]!.n, events, 'events still count');
		assert.deepEqual(
			(await em().find(MoodCheckIn, { userId: USER })).map((c) => c.note),
			['last week'],
		);
		assert.deepEqual(
			(await em().find(GhostLetter, { userId: USER })).map((l) => l.content),
			['new letter'],
		);
		assert.deepEqual(await sql('select user_id from conversations order by created_at'), [{ user_id: null }, { user_id: USER }]);
		assert.deepEqual(
			(await em().find(Feedback, {}, { orderBy: { id: 'asc' } })).map((f) => f.message),
			['rejected lately', 'approved long ago'],
		);
		assert.equal((await sql('select id from game_rounds')).length, 1);
		assert.deepEqual(await sql('select * from game_votes'), [], "the old round's votes went with it");
		assert.deepEqual(await sql('select name, value from stat_counters order by name'), counters, 'counters never go down');
		// Running again finds nothing more.
		assert.equal((await purge(world.haven.db.orm, at(25 * HOUR))).total, 0);
	});
});

describe('servers Haven has left', () => {
	before(async () => {
		for (const guildId of [stay, leaving, back]) {
			await updateGuildSettings(em(), guildId, { country: 'GB' });
			const e = em();
			e.create(CrisisEvent, { userId: null, guildId, level: 'concern', categories: [], trigger: 'mention', details: null });
			e.create(Conversation, { userId: null, guildId, source: 'discord' });
			e.create(MoodCheckIn, { userId: OTHER, guildId, mood: 'calm', intensity: 1 });
			e.create(GameRound, { kind: 'wyr', guildId, startedBy: OTHER, content: {} });
			await e.flush();
		}
		const leftAt = async (id: string) =>
			(await sql<{ left_at: Date | null }>('select left_at from guilds where id = ?', [id]))[0]?.left_at ?? null;
		// Haven is removed from two servers; one adds it back.
		world.fake.dispatch('GUILD_DELETE', { id: leaving }, 0);
		world.fake.dispatch('GUILD_DELETE', { id: back }, 0);
		await waitFor(async () => Boolean((await leftAt(leaving)) && (await leftAt(back))), { what: 'left_at on both servers' });
		assert.ok(await leftAt(leaving), 'left_at recorded by the guildDelete listener');
		const { guildCreatePayload } = await import('../support/fake-discord-data.ts');
		world.fake.dispatch('GUILD_CREATE', guildCreatePayload(world.fake.guild(back)!), 0);
		await waitFor(async () => (await leftAt(back)) === null, { what: 'left_at cleared' });
		assert.equal(await leftAt(back), null, 'rejoining clears left_at');
	});

	const rows = async (guildId: string) => ({
		guild: (await sql('select id from guilds where id = ?', [guildId])).length,
		crisis: (await sql('select id from crisis_events where guild_id = ?', [guildId])).length,
		conversations: (await sql('select id from conversations where guild_id = ?', [guildId])).length,
		games: (await sql('select id from game_rounds where guild_id = ?', [guildId])).length,
		checkIns: (await sql('select id from mood_check_ins where guild_id = ?', [guildId])).length,
	});

	test('within the grace period nothing goes', async () => {
		const report = await purge(world.haven.db.orm, new Date(Date.now() + 6 * DAY));
		assert.deepEqual(report.guilds, []);
		assert.deepEqual(await rows(leaving), { guild: 1, crisis: 1, conversations: 1, games: 1, checkIns: 1 });
	});

	test('after it: the server settings and server rows go, check-ins lose only the server; a rejoined server stays', async () => {
		const checkIns = (await sql<{ n: number }>('select count(*)::int as n from mood_check_ins'))[0]!.n;
		const dry = await purge(world.haven.db.orm, new Date(Date.now() + 8 * DAY), { dryRun: true });
		assert.deepEqual(dry.guilds, [leaving]);
		assert.equal(dry.counts['guilds (left servers)'], 1);
		assert.equal(dry.counts['mood_check_ins.guild_id (left servers)'], 1);
		assert.deepEqual(await rows(leaving), { guild: 1, crisis: 1, conversations: 1, games: 1, checkIns: 1 }, 'the dry run changed nothing');

		const report = await purge(world.haven.db.orm, new Date(Date.now() + 8 * DAY));
		assert.deepEqual(report.guilds, [leaving]);
		assert.deepEqual(await rows(leaving), { guild: 0, crisis: 0, conversations: 0, games: 0, checkIns: 0 });
		assert.equal((await sql<{ n: number }>('select count(*)::int as n from mood_check_ins'))[0]!.n, checkIns, 'check-ins stay with their author');
		assert.deepEqual(await rows(back), { guild: 1, crisis: 1, conversations: 1, games: 1, checkIns: 1 }, 'rejoining cancelled the purge');
		assert.deepEqual(await rows(stay), { guild: 1, crisis: 3, conversations: 3, games: 2, checkIns: 2 });
		assert.deepEqual(await sql('select settings->>? as country from guilds where id = ?', ['country', back]), [{ country: 'GB' }]);
	});
});

describe('haven purge (CLI)', () => {
	test('--dry-run prints the counts and changes nothing; without it, the rows go', async () => {
		await rememberTurn(em(), { userId: OTHER, channelId: CHANNEL, role: 'user', content: 'expired' }, { now: new Date(Date.now() - 30 * HOUR) });
		const e = em();
		e.create(GhostLetter, { userId: OTHER, content: 'too old', createdAt: new Date(Date.now() - 200 * DAY) });
		await e.flush();
		const before = await snapshot();
		const out = await haven('purge', '--dry-run');
		assert.match(out, /^Dry run \(nothing changed\) at \d{4}-\d\d-\d\dT/m);
		assert.match(out, /^memory_turns\s+1 would be deleted$/m);
		assert.match(out, /^ghost_letters\s+1 would be deleted$/m);
		assert.match(out, /^crisis_events\.details\s+0 would be anonymised$/m);
		assert.match(out, /^guilds \(left servers\)\s+0 would be deleted$/m);
		assert.match(out, /^Total: 2 rows would change$/m);
		assert.deepEqual(await snapshot(), before, 'nothing changed');

		const report = JSON.parse(await haven('purge', '--json')) as PurgeReport;
		assert.equal(report.dryRun, false);
		assert.equal(report.counts.memory_turns, 1);
		assert.equal(report.counts.ghost_letters, 1);
		assert.deepEqual(await sql('select id from ghost_letters where user_id = ?', [OTHER]), []);
	});
});

describe('the scheduler', () => {
	test('runs on its interval with the injected clock, never overlapping; stop ends it', async () => {
		const clock = at(60 * DAY);
		let runs = 0;
		const scheduler = startRetentionScheduler({
			orm: world.haven.db.orm,
			intervalMs: 30,
			firstRunMs: 0,
			now: () => clock,
			log: { info: () => void runs++, debug: () => void runs++, warn: (m) => assert.fail(m) },
		});
		const report = await scheduler.runNow();
		assert.equal(report?.now, clock.toISOString(), 'the injected clock');
		await waitFor(() => runs >= 3, { everyMs: 10, what: 'three runs' });
		assert.ok(runs >= 3, `ran on its interval (${runs} runs)`);
		await scheduler.stop();
		const stopped = runs;
		await sleep(120); // a window of four intervals in which nothing may run: that is what is asserted
		assert.equal(runs, stopped, 'no run after stop');
	});

	test('started on boot (PURGE_INTERVAL_MS) and stopped on shutdown', async () => {
		await world.restart({ PURGE_INTERVAL_MS: '200' });
		await rememberTurn(
			em(),
			{ userId: USER, channelId: '99999999999999999', role: 'user', content: 'expired at boot' },
			{ now: new Date(Date.now() - 25 * HOUR) },
		);
		const left = async () => (await sql('select id from memory_turns where channel_id = ?', ['99999999999999999'])).length;
		assert.equal(await left(), 1);
		await waitFor(async () => (await left()) === 0, { what: 'the boot scheduler to purge' });
		assert.equal(await left(), 0, 'the boot scheduler purged the expired turn');
		assert.ok(container.db, 'still running');
	});
});
