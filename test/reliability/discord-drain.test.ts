// Shutdown while a Discord command is being handled: a /checkin with a crisis note is in flight (its resources sent,
// its row waiting on a lock the test holds) when Haven is told to stop. The stop waits for it: the check-in and the
// crisis event are written and the person is told "Check-in saved", before Haven leaves Discord and closes the database.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MikroORM } from '@mikro-orm/postgresql';
import { snowflakeAt } from '../support/fake-discord.ts';
import { slash, startBotWorld, textOf, type BotWorld } from '../bot/support.ts';

let world: BotWorld;
let orm: MikroORM;

before(async () => {
	world = await startBotWorld();
	orm = await MikroORM.init({ clientUrl: world.env.DATABASE_URL, entities: [], discovery: { warnWhenNoEntities: false }, debug: false });
});

after(async () => {
	await orm?.close(true);
	await world?.close();
});

const count = async (sql: string, params: unknown[] = []) => (await orm.em.fork().execute<{ n: number }[]>(sql, params))[0]!.n;

test('stop() waits for a command in flight: its check-in and crisis event are stored and its answer sent', async (t) => {
	if (!world.env.DATABASE_URL) return t.skip('needs DATABASE_URL (the lock is taken from a second connection)');
	const user = snowflakeAt(1_480_000_000_000, 1);
	const events = await count('select count(*)::int as n from crisis_events');

	// Hold inserts into mood_check_ins until released: the command will be waiting on it when the stop begins.
	let release!: () => void;
	const released = new Promise<void>((resolve) => (release = resolve));
	let locked!: () => void;
	const isLocked = new Promise<void>((resolve) => (locked = resolve));
	const holder = orm.em.fork().transactional(async (em) => {
		await em.execute('lock table mood_check_ins in exclusive mode');
		locked();
		await released;
	});
	await isLocked;

	const { callback, ix } = await slash(world.fake, {
		name: 'checkin',
		subcommand: 'log',
		userId: user,
		options: { mood: 'numb', intensity: 5, note: 'i want to kill myself tonight' },
	});
	assert.match(textOf(callback.body), /emergency|crisis|line/i, 'the resources first');

	let stopped = false;
	const stopping = world.haven.stop().then(() => (stopped = true));
	await sleep(800); // the stop under way while the command is held: the window under test
	assert.equal(stopped, false, 'the stop waits for the command');
	const releasedAt = performance.now();
	release();
	await holder;
	await stopping;
	const afterRelease = performance.now() - releasedAt;

	const followup = await ix.followup(0);
	assert.match(textOf(followup.body), /Check-in saved/, 'the person is told, before Haven leaves Discord');
	assert.equal(await count('select count(*)::int as n from mood_check_ins where user_id = ?', [user]), 1, 'the check-in is stored');
	assert.equal(await count('select count(*)::int as n from crisis_events'), events + 1, 'the crisis event is stored');
	t.diagnostic(`stopped ${afterRelease.toFixed(0)} ms after the command could go on`);
});
