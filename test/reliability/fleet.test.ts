// A fleet: two real `haven serve` processes splitting four shards of the fake Discord, and an API-only third, on one
// PostgreSQL. Each DM and interaction is answered once across the fleet; every instance's /v1/status shows the same
// four shards; a misconfigured fifth is refused; a restart of one instance marks left only its own servers, and its
// purge touches none of the other's; reminders due in bulk go out once each; SIGKILL of one instance shows its shards
// not ready within the bound, and the status degraded, on the survivors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MikroORM } from '@mikro-orm/postgresql';
import { freshDatabaseUrl, dropDatabase } from '../support/env.ts';
import { shardOf, snowflakeAt, startFakeDiscord, type FakeDiscord } from '../support/fake-discord.ts';
import { startControlledPostgres, type ControlledPostgres } from '../support/postgres-control.ts';
import { killChildren, runHaven, serveHaven, until, type HavenProcess } from './support.ts';

const SHARDS = 4;
/** Heartbeat of the fleet rows: an owner is gone after three missed beats (900 ms here; 30 s by default). */
const HEARTBEAT_MS = 300;
const API_TOKEN = 'fleet-token-0123456789-0123456789-abcdef';
const REMINDERS = 150;

let fake: FakeDiscord;
let pg: ControlledPostgres | undefined;
let databaseUrl: string;
let orm: MikroORM;
let a: HavenProcess & { url: string };
let b: HavenProcess & { url: string };
let api: HavenProcess & { url: string };
let reminderUsers: string[];

const common = () => ({
	DATABASE_URL: databaseUrl,
	TOKEN: fake.token,
	CLIENT_ID: fake.applicationId,
	DISCORD_API_URL: fake.restUrl,
	GITHUB_API_URL: fake.restUrl, // the release check finds no release there, offline
	API_TOKEN,
	FLEET_HEARTBEAT_MS: String(HEARTBEAT_MS),
	RATE_LIMIT_PER_MINUTE: '100000',
	PURGE_INTERVAL_MS: '0',
	LOG_LEVEL: 'info',
});
const envA = () => ({ ...common(), SHARD_COUNT: 'auto', SHARD_IDS: '0-1' });
const envB = () => ({ ...common(), SHARD_COUNT: String(SHARDS), SHARD_IDS: '2-3' });

const sql = <T = any>(query: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<T[]>(query, params);

async function status(url: string): Promise<any> {
	const response = await fetch(`${url}/v1/status`);
	assert.equal(response.status, 200);
	return response.json();
}

/** What must be identical on every instance (latency is each instance's last measure, so it is left out). */
const shardContent = (body: any) =>
	body.shards.map((shard: any) => ({ id: shard.id, state: shard.state, guilds: shard.guilds, resumes: shard.resumes, lastReady: shard.lastReady }));

/** A server id whose events come on `shard` (Discord's rule), for rows the fake knows nothing about. */
function guildIdOnShard(shard: number): string {
	for (let ms = Date.now() - 86_400_000; ; ms++) {
		const id = snowflakeAt(ms);
		if (shardOf(id, SHARDS) === shard) return id;
	}
}

/** `haven serve` until it prints its port, with room for logins spaced 5 s apart on a busy machine. */
async function serveSlow(env: Record<string, string>): Promise<HavenProcess & { url: string }> {
	const running = runHaven(['serve'], env);
	const [, port] = await running.waitFor(/HTTP API on port (\d+)/, 150_000);
	return { ...running, url: `http://127.0.0.1:${port}` };
}

const botPosts = (channelId: string) => fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`);

before(async () => {
	fake = await startFakeDiscord({ shardCount: SHARDS, guilds: 12, maxConcurrency: 2 });
	const fresh = freshDatabaseUrl();
	if (fresh) databaseUrl = fresh;
	else {
		pg = await startControlledPostgres();
		const url = new URL(pg.url);
		url.pathname = '/fleet';
		databaseUrl = url.toString();
	}
	const migrated = runHaven(['migrate'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });
	assert.equal(await migrated.exited, 0, migrated.output());
	orm = await MikroORM.init({ clientUrl: databaseUrl, entities: [], discovery: { warnWhenNoEntities: false }, debug: false });
});

after(async () => {
	killChildren();
	await orm?.close(true);
	await fake?.close();
	if (pg) await pg.close();
	else await dropDatabase(databaseUrl);
});

describe('a fleet of two instances and an API-only one on one PostgreSQL', () => {
	test('each instance connects its own shards; identifies are spaced fleet-wide; every /v1/status shows the same four shards', async () => {
		// Reminders due before any instance runs: both instances' first tick finds them.
		const due = new Date(Date.now() - 60_000);
		reminderUsers = Array.from({ length: REMINDERS }, (_, i) => snowflakeAt(Date.now() - 1_000_000 + i));
		await sql(
			`insert into check_in_reminders (user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, last_sent_at, disabled_reason, created_at, updated_at)
			 select id, true, 1440, 'UTC', 0, 0, ?, null, null, ?, ? from unnest(?::varchar[]) as id`,
			[due, due, due, `{${reminderUsers.join(',')}}`],
		);

		[a, b] = await Promise.all([serveSlow(envA()), serveSlow(envB())]);
		api = await serveHaven({
			DATABASE_URL: databaseUrl,
			API_TOKEN,
			FLEET_HEARTBEAT_MS: String(HEARTBEAT_MS),
			RATE_LIMIT_PER_MINUTE: '100000',
			LOG_LEVEL: 'info',
		});
		await a.waitFor(/connects shard 0-1 of 4/);
		await b.waitFor(/connects shard 2-3 of 4/);
		await until(async () => fake.connectedShards().length === SHARDS, 'four shards connected', 30_000);
		for (let shard = 0; shard < SHARDS; shard++) assert.equal(fake.identifyCount(shard), 1, `shard ${shard} identified once`);

		// max_concurrency 2: buckets 0 (shards 0 and 2) and 1 (shards 1 and 3), each shared by both processes: the two
		// IDENTIFYs of a bucket arrive at least 5 s apart (Discord's rule), whichever process sent them.
		const identifies = fake.gatewayReceived.filter((payload) => payload.op === 2);
		assert.equal(identifies.length, SHARDS);
		const at = (shard: number) => identifies.find((payload) => (payload.d as { shard: number[] }).shard[0] === shard)!.at;
		for (const [x, y] of [
			[0, 2],
			[1, 3],
		] as const)
			assert.ok(Math.abs(at(x) - at(y)) >= 5_000, `shards ${x} and ${y} identified ${Math.abs(at(x) - at(y))} ms apart`);

		const bodies = await until(
			async () => {
				const all = await Promise.all([a, b, api].map((haven) => status(haven.url)));
				const same = all.every((body) => JSON.stringify(shardContent(body)) === JSON.stringify(shardContent(all[0])));
				return all.every((body) => body.status === 'ok') && same ? all : undefined;
			},
			'the same ok status from every instance',
			20_000,
		);
		for (const body of bodies) {
			assert.equal(body.shardCount, SHARDS);
			assert.deepEqual(
				body.shards.map((shard: any) => shard.id),
				[0, 1, 2, 3],
			);
			assert.equal(
				body.shards.reduce((sum: number, shard: any) => sum + shard.guilds, 0),
				12,
				'every server counted once',
			);
		}
		const stats = await Promise.all([a, b, api].map(async (haven) => (await (await fetch(`${haven.url}/v1/stats`)).json()) as any));
		for (const body of stats) assert.equal(body.guilds, 12, '/v1/stats counts the fleet');
	});

	test('a misconfigured instance is refused: a shard a live instance holds, a disagreeing count, a shard out of range', async () => {
		const overlap = runHaven(['serve'], { ...common(), SHARD_COUNT: String(SHARDS), SHARD_IDS: '1-2' });
		assert.notEqual(await overlap.exited, 0);
		assert.match(overlap.output(), /shard 1 is already connected by the live instance/);
		assert.match(overlap.output(), /shard 2 is already connected by the live instance/);

		const resized = runHaven(['serve'], { ...common(), SHARD_COUNT: '8', SHARD_IDS: '4-7' });
		assert.notEqual(await resized.exited, 0);
		assert.match(resized.output(), /SHARD_COUNT disagrees: this instance runs 8 shard\(s\), instance .* runs 4/);

		const outside = runHaven(['serve'], { ...common(), SHARD_COUNT: String(SHARDS), SHARD_IDS: '5' });
		assert.notEqual(await outside.exited, 0);
		assert.match(outside.output(), /SHARD_IDS lists shard 5, outside SHARD_COUNT=4/);
		assert.equal(fake.connectedShards().length, SHARDS, 'no refused instance connected anything');
		for (let shard = 0; shard < SHARDS; shard++) assert.equal(fake.identifyCount(shard), 1);
	});

	test('each DM, mention and slash command is answered exactly once across the fleet', async () => {
		const users = Array.from({ length: 8 }, (_, i) => snowflakeAt(Date.now() - 5_000_000 + i));
		const channels = users.map((user) => fake.dmChannel(user).id as string);
		for (const user of users) fake.sendMessage({ authorId: user, dm: true, content: 'hello, long day today' });
		// One mention in each server: servers sit on all four shards, so both instances answer some.
		const guildIds = fake.guilds.ids;
		assert.deepEqual(new Set(guildIds.map((id) => shardOf(id, SHARDS))), new Set([0, 1, 2, 3]));
		const mentions = guildIds.map((guildId) => {
			const guild = fake.guild(guildId)!;
			return fake.sendMessage({ authorId: guild.members[2]!.user.id, guildId, mentionsBot: true, content: 'hi there' });
		});
		const pings = guildIds.map((guildId) => fake.sendSlashCommand({ name: 'ping', guildId, userId: fake.guild(guildId)!.members[2]!.user.id }));

		await until(() => channels.every((channel) => botPosts(channel).length >= 1), 'every DM answered');
		await until(() => mentions.every((sent) => botPosts(sent.message.channel_id as string).length >= 1), 'every mention answered');
		await Promise.all(pings.map((ping) => ping.callback(10_000)));
		await sleep(1_500); // the window in which a second answer would show up
		for (const channel of channels) assert.equal(botPosts(channel).length, 1, `DM ${channel} answered once`);
		// One mention per server, each in its server's first text channel: one answer per channel.
		for (const sent of mentions) assert.equal(botPosts(sent.message.channel_id as string).length, 1, `mention ${sent.message.id} answered once`);
		for (const ping of pings)
			assert.equal(ping.requests().filter((r) => r.path.endsWith('/callback')).length, 1, 'each interaction called back once');
	});

	test('reminders due in bulk: each sent exactly once by the two instances together', async () => {
		// Both instances' schedulers tick once a minute from their start; the rows were due before either started.
		const channels = reminderUsers.map((user) => fake.dmChannel(user).id as string);
		const delivered = () => channels.filter((channel) => botPosts(channel).length > 0).length;
		await until(() => delivered() === REMINDERS || undefined, 'every reminder DM', 120_000, 500);
		await sleep(2_000); // the window in which a second reminder would show up
		for (const channel of channels) assert.equal(botPosts(channel).length, 1, `one reminder in ${channel}`);
		const [{ sent }] = await sql<{ sent: number }>(`select count(*)::int as sent from check_in_reminders where last_sent_at is not null`);
		assert.equal(sent, REMINDERS);
	});

	test("a restart marks left only the restarted instance's servers, and its purge never touches the other's", async () => {
		const leftOfA = guildIdOnShard(1);
		const notMine = guildIdOnShard(3);
		const t = new Date(Date.now() - 3_600_000);
		await sql(`insert into guilds (id, settings, joined_at, left_at, updated_at) values (?, '{}', ?, null, ?), (?, '{}', ?, null, ?)`, [
			leftOfA,
			t,
			t,
			notMine,
			t,
			t,
		]);
		a.child.kill('SIGTERM');
		assert.equal(await a.exited, 0, a.output());
		// Back with a purge that runs at once and no grace: what A marks left goes, and only that.
		a = await serveSlow({ ...envA(), PURGE_INTERVAL_MS: '1000', GUILD_PURGE_GRACE_DAYS: '0' });
		await a.waitFor(/Retention purge: [1-9]\d* row\(s\) changed/, 30_000);
		const rows = await sql<{ id: string; left_at: Date | null }>('select id, left_at from guilds');
		const byId = new Map(rows.map((row) => [row.id, row]));
		assert.equal(byId.has(leftOfA), false, "A's server that is gone from Discord was marked left and purged");
		assert.equal(byId.get(notMine)?.left_at, null, "B's server is B's business: not marked left");
		for (const guildId of fake.guilds.ids) assert.equal(byId.get(guildId)?.left_at, null, `server ${guildId} stays`);
		await until(async () => (await status(api.url)).status === 'ok', 'the fleet ok again after the restart', 20_000);
	});

	test('SIGKILL of one instance: its shards show not ready on every survivor within the bound, and the status is degraded', async () => {
		const killedAt = Date.now();
		b.child.kill('SIGKILL');
		await b.exited;
		const [fromA, fromApi] = await Promise.all(
			[a, api].map((haven) =>
				until(
					async () => {
						const body = await status(haven.url);
						const down = body.shards.filter((shard: any) => shard.state !== 'ready').map((shard: any) => shard.id);
						return body.status === 'degraded' && JSON.stringify(down) === '[2,3]' ? body : undefined;
					},
					'shards 2 and 3 not ready',
					60_000,
				),
			),
		);
		const elapsed = Date.now() - killedAt;
		assert.ok(elapsed < 60_000, `seen within ${elapsed} ms`);
		assert.deepEqual(shardContent(fromA), shardContent(fromApi));
		assert.equal(fromA.shards.length, SHARDS);
		assert.deepEqual(
			fromA.shards.filter((shard: any) => shard.state === 'ready').map((shard: any) => shard.id),
			[0, 1],
		);

		// A replacement with the same settings takes over the dead owner's shards and the fleet is whole again.
		b = await serveSlow(envB());
		await until(async () => (await status(api.url)).status === 'ok', 'ok again with the replacement', 30_000);
	});
});
