// The fleet's pieces on a real PostgreSQL: shard settings, the claim and what it refuses, the status of every shard,
// identify leases, fleet-wide jobs, guild bookkeeping per shard, and reminders claimed with SKIP LOCKED.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, parseConfig } from '../../src/lib/core/config.ts';
import { migrate, openDatabase, type Database } from '../../src/lib/db/index.ts';
import { syncGuilds } from '../../src/lib/discord/guilds.ts';
import {
	claimShards,
	FleetConflictError,
	fleetIdentifyThrottler,
	fleetShards,
	readFleet,
	runFleetJob,
	startFleet,
	type FleetRow,
} from '../../src/lib/fleet/fleet.ts';
import { formatShardIds, parseShardIds, shardOfGuild } from '../../src/lib/fleet/shard-config.ts';
import { reminderStore } from '../../src/lib/wellbeing/reminder-store.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { snowflakeAt } from '../support/fake-discord.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let env: Record<string, string | undefined>;
let db: Database;
const sql = <T = any>(query: string, params: unknown[] = []) => db.orm.em.fork().getConnection().execute<T[]>(query, params);

before(async () => {
	env = testEnv();
	db = await openDatabase(parseConfig(env), quiet);
	await migrate(db.orm);
});

after(async () => {
	await db?.close();
	await dropDatabase(env?.DATABASE_URL);
	if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

describe('shard settings', () => {
	test('SHARD_IDS ranges, SHARD_COUNT auto or a number; unset is every shard, as for a single instance', () => {
		assert.deepEqual(parseShardIds('0-3,8'), [0, 1, 2, 3, 8]);
		assert.deepEqual(parseShardIds(' 5 , 1-2 ,2'), [1, 2, 5]);
		assert.equal(formatShardIds([0, 1, 2, 3, 8, 10, 11]), '0-3,8,10-11');
		assert.match(String(parseShardIds('3-1')), /runs backwards/);
		assert.match(String(parseShardIds('a')), /ranges such as 0-3,8/);
		assert.deepEqual(parseConfig({}).fleet, { shardCount: 'auto', shardIds: undefined, heartbeatMs: 10_000 });
		assert.deepEqual(parseConfig({ SHARD_COUNT: '4', SHARD_IDS: '2-3' }).fleet.shardIds, [2, 3]);
		assert.equal(parseConfig({ SHARD_COUNT: 'auto', SHARD_IDS: '0' }).fleet.shardCount, 'auto');
	});

	test('refused at start: ids without a count, ids outside the count, a count that is not a number', () => {
		const problems = (vars: Record<string, string>) => {
			try {
				parseConfig(vars);
				return [];
			} catch (error) {
				assert.ok(error instanceof ConfigError);
				return error.problems;
			}
		};
		assert.match(problems({ SHARD_IDS: '0-1' }).join(), /SHARD_IDS needs SHARD_COUNT/);
		assert.match(problems({ SHARD_COUNT: '4', SHARD_IDS: '3-5' }).join(), /SHARD_IDS lists shard 4, 5, outside SHARD_COUNT=4/);
		assert.match(problems({ SHARD_COUNT: 'many' }).join(), /SHARD_COUNT must be auto or a whole number/);
		assert.equal(shardOfGuild('81384788765712384', 4), Number((81384788765712384n >> 22n) % 4n));
	});
});

describe('claiming shards', () => {
	test('a live owner keeps its shards; overlap, a disagreeing count and out-of-range shards are refused with the reason', async () => {
		await claimShards(db.orm, { instanceId: 'one', shardCount: 4, shardIds: [0, 1], heartbeatMs: 100, log: quiet });
		const one = startFleet({
			orm: db.orm,
			instanceId: 'one',
			heartbeatMs: 100,
			log: quiet,
			own: { shardCount: 4, shardIds: [0, 1], snapshot: () => [], onLost: () => assert.fail('not lost') },
		});
		try {
			const overlap = claimShards(db.orm, { instanceId: 'two', shardCount: 4, shardIds: [1, 2], heartbeatMs: 100, log: quiet });
			await assert.rejects(
				overlap,
				(error: Error) => error instanceof FleetConflictError && /shard 1 is already connected by the live instance one/.test(error.message),
			);
			await assert.rejects(
				claimShards(db.orm, { instanceId: 'two', shardCount: 8, shardIds: [4], heartbeatMs: 100, log: quiet }),
				/SHARD_COUNT disagrees: this instance runs 8 shard\(s\), instance one runs 4/,
			);
			await assert.rejects(
				claimShards(db.orm, { instanceId: 'two', shardCount: 4, shardIds: [4], heartbeatMs: 100, log: quiet }),
				/shard 4 is outside the fleet's 4 shard\(s\)/,
			);
			await claimShards(db.orm, { instanceId: 'two', shardCount: 4, shardIds: [2, 3], heartbeatMs: 100, log: quiet });
			const rows = await readFleet(db.orm.em.fork(), 300);
			assert.deepEqual(
				rows.map((row) => [row.shardId, row.instanceId]),
				[
					[0, 'one'],
					[1, 'one'],
					[2, 'two'],
					[3, 'two'],
				],
			);
		} finally {
			await one.stop();
		}
		// Stopped: its shards are handed back and can be claimed at once.
		await claimShards(db.orm, { instanceId: 'three', shardCount: 4, shardIds: [0, 1], heartbeatMs: 100, log: quiet });
	});

	test("a dead owner's shards are waited out, then taken; the old owner, if it comes back, learns it lost them", async () => {
		await sql('delete from fleet_shards');
		await claimShards(db.orm, { instanceId: 'old', shardCount: 2, shardIds: [0, 1], heartbeatMs: 100, log: quiet });
		// 'old' never heartbeats (as if killed): after three beats its rows are stale.
		const started = Date.now();
		await claimShards(db.orm, { instanceId: 'new', shardCount: 2, shardIds: [0, 1], heartbeatMs: 100, log: quiet });
		assert.ok(Date.now() - started >= 200, 'waited for the old owner to go stale');
		const lost: number[][] = [];
		const old = startFleet({
			orm: db.orm,
			instanceId: 'old',
			heartbeatMs: 100,
			log: quiet,
			own: { shardCount: 2, shardIds: [0, 1], snapshot: () => [], onLost: (ids) => lost.push(ids) },
		});
		await old.beat();
		await old.stop();
		assert.deepEqual(lost[0], [0, 1]);
		const rows = await readFleet(db.orm.em.fork(), 300);
		assert.ok(
			rows.every((row) => row.instanceId === 'new'),
			"the returning owner does not overwrite the new owner's rows",
		);
	});
});

describe('the fleet in /v1/status', () => {
	const row = (shardId: number, live: boolean, extra: Partial<FleetRow> = {}): FleetRow => ({
		shardId,
		shardCount: 4,
		instanceId: 'x',
		state: 'ready',
		latencyMs: 40,
		guilds: 3,
		lastReady: new Date(0),
		resumes: 1,
		heartbeatAt: new Date(),
		live,
		...extra,
	});

	test('every shard of the count: own live, others from their rows, a silent owner or a missing row disconnected', () => {
		const own = [{ id: 0, state: 'ready' as const, latencyMs: 12, guilds: 5, lastReady: new Date(1), resumes: 0 }];
		const shards = fleetShards(4, [row(0, true), row(1, true), row(2, false)], own);
		assert.deepEqual(
			shards.map((shard) => [shard.id, shard.state, shard.latencyMs]),
			[
				[0, 'ready', 12],
				[1, 'ready', 40],
				[2, 'disconnected', null],
				[3, 'disconnected', null],
			],
		);
		assert.equal(shards[3]!.lastReady, null);
	});

	test("an API-only instance reads the fleet's count and servers from the rows", async () => {
		await sql('delete from fleet_shards');
		await claimShards(db.orm, { instanceId: 'bot', shardCount: 2, shardIds: [0, 1], heartbeatMs: 100, log: quiet });
		const snapshot = () => [
			{ id: 0, state: 'ready' as const, latencyMs: 10, guilds: 4, lastReady: new Date(), resumes: 0 },
			{ id: 1, state: 'ready' as const, latencyMs: 11, guilds: 6, lastReady: new Date(), resumes: 2 },
		];
		const bot = startFleet({
			orm: db.orm,
			instanceId: 'bot',
			heartbeatMs: 100,
			log: quiet,
			own: { shardCount: 2, shardIds: [0, 1], snapshot, onLost: () => undefined },
		});
		const reader = startFleet({ orm: db.orm, instanceId: 'api', heartbeatMs: 100, log: quiet });
		try {
			await bot.beat();
			await reader.beat();
			const { total, shards } = await reader.shards();
			assert.equal(total, 2);
			assert.deepEqual(
				shards.map((shard) => [shard.id, shard.state, shard.guilds, shard.resumes]),
				[
					[0, 'ready', 4, 0],
					[1, 'ready', 6, 2],
				],
			);
			assert.equal(reader.guilds(undefined), 10);
			assert.equal(bot.guilds(10), 10, 'own servers are not counted twice');
		} finally {
			await bot.stop();
			await reader.stop();
		}
	});
});

describe('identify leases', () => {
	test('two instances identifying in one bucket are spaced by the hold; other buckets do not wait', async () => {
		const gateway = { fetchGatewayInformation: async () => ({ session_start_limit: { max_concurrency: 2 } }) };
		const first = await fleetIdentifyThrottler({ orm: db.orm, instanceId: 'a', holdMs: 400, log: quiet })(gateway);
		const second = await fleetIdentifyThrottler({ orm: db.orm, instanceId: 'b', holdMs: 400, log: quiet })(gateway);
		const signal = new AbortController().signal;
		const t0 = Date.now();
		await first.waitForIdentify(0, signal);
		await second.waitForIdentify(1, signal); // bucket 1: free
		assert.ok(Date.now() - t0 < 300);
		await second.waitForIdentify(2, signal); // bucket 0 again: waits for the first lease
		assert.ok(Date.now() - t0 >= 380, `waited ${Date.now() - t0} ms`);
		const aborted = AbortSignal.abort();
		await assert.rejects(second.waitForIdentify(4, aborted));
	});
});

describe('fleet-wide jobs', () => {
	test('one runner at a time, once per period across the fleet; the same instance keeps its own schedule', async () => {
		let runs = 0;
		const work = async () => {
			runs++;
			await sleep(200);
			return runs;
		};
		const [x, y] = await Promise.all([
			runFleetJob(db.orm, { job: 'test-job', instanceId: 'x', periodMs: 60_000 }, work),
			runFleetJob(db.orm, { job: 'test-job', instanceId: 'y', periodMs: 60_000 }, work),
		]);
		assert.equal([x, y].filter((run) => run.ran).length, 1, 'exactly one ran');
		assert.equal(runs, 1);
		const winner = x.ran ? 'x' : 'y';
		const other = x.ran ? 'y' : 'x';
		assert.equal(
			(await runFleetJob(db.orm, { job: 'test-job', instanceId: other, periodMs: 60_000 }, work)).ran,
			false,
			'ran recently elsewhere',
		);
		assert.equal((await runFleetJob(db.orm, { job: 'test-job', instanceId: winner, periodMs: 60_000 }, work)).ran, true, 'its own next run');
	});
});

describe('guild bookkeeping per shard', () => {
	test("a sync marks left only the servers of its own shards, never another instance's", async () => {
		const onShard = (shard: number, from: number) => {
			for (let ms = from; ; ms++) {
				const id = snowflakeAt(ms);
				if (shardOfGuild(id, 2) === shard) return id;
			}
		};
		const mineGone = onShard(0, Date.now() - 10_000_000);
		const mineHere = onShard(0, Date.now() - 9_000_000);
		const theirs = onShard(1, Date.now() - 8_000_000);
		await sql('delete from guilds');
		await syncGuilds(db.orm.em.fork() as never, [mineGone, mineHere, theirs]);
		await syncGuilds(db.orm.em.fork() as never, [mineHere], new Date(), { shardCount: 2, shardIds: [0] });
		const rows = await sql<{ id: string; left: boolean }>('select id, left_at is not null as left from guilds order by id');
		assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.left])), { [mineGone]: true, [mineHere]: false, [theirs]: false });
		// Every shard in scope (a single instance): the previous behaviour, anything absent is left.
		await syncGuilds(db.orm.em.fork() as never, [mineHere], new Date(), { shardCount: 2, shardIds: [0, 1] });
		assert.equal((await sql(`select id from guilds where id = ? and left_at is not null`, [theirs])).length, 1);
	});
});

describe('reminders claimed with SKIP LOCKED', () => {
	test('two instances claiming at once get disjoint reminders, all of them', async () => {
		const due = new Date(Date.now() - 60_000);
		const users = Array.from({ length: 300 }, (_, i) => snowflakeAt(Date.now() - 20_000_000 + i));
		await sql(
			`insert into check_in_reminders (user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, last_sent_at, disabled_reason, created_at, updated_at)
			 select id, true, 240, 'UTC', 0, 0, ?, null, null, ?, ? from unnest(?::varchar[]) as id`,
			[due, due, due, `{${users.join(',')}}`],
		);
		const store = reminderStore(() => db.orm.em.fork() as never);
		const now = new Date();
		const plan = () => ({ next: new Date(now.getTime() + 240 * 60_000), sentAt: now });
		const claimed: string[] = [];
		await Promise.all(
			Array.from({ length: 4 }, async () => {
				for (;;) {
					const batch = await store.claimDue!(now, 50, plan);
					if (!batch.length) return;
					claimed.push(...batch.map(({ reminder }) => reminder.userId));
				}
			}),
		);
		assert.equal(claimed.length, users.length, 'none twice');
		assert.deepEqual(new Set(claimed), new Set(users), 'none forgotten');
		const [{ moved }] = await sql<{ moved: number }>(
			'select count(*)::int as moved from check_in_reminders where next_due_at > ? and last_sent_at = ?',
			[now, now],
		);
		assert.equal(moved, users.length);
	});
});
