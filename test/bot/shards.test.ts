// Two shards on the fake gateway: GET /v1/status reports each shard (ready, latency, guilds, last ready, resumes),
// turns degraded while a shard is down, and ok again after it resumes, with `resumes` counted; the system log says so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../support/wait.ts';
import { shardOf } from '../support/fake-discord.ts';
import { LOG_CHANNEL_ID, slash, startBotWorld, worldGuilds, type BotWorld } from './support.ts';

let world: BotWorld;

before(async () => {
	world = await startBotWorld({ fake: { shardCount: 2, guilds: worldGuilds(3), heartbeatIntervalMs: 250 }, env: { LOG_CHANNEL_ID } });
});

after(async () => {
	await world?.close();
});

interface Status {
	status: string;
	shardCount: number;
	guilds: number;
	shards: { id: number; state: string; latencyMs: number | null; guilds: number; lastReady: string | null; resumes: number }[];
}

const status = async (): Promise<Status> => (await (await fetch(`${world.haven.url}/v1/status`)).json()) as Status;

async function until(check: (s: Status) => boolean, what: string, timeoutMs = 8_000): Promise<Status> {
	let last: Status | undefined;
	return waitFor(
		async () => {
			last = await status();
			return check(last) && last;
		},
		{ timeoutMs, everyMs: 50, what },
	).catch((error: Error) => {
		throw new Error(`${error.message}; last status: ${JSON.stringify(last)}`);
	});
}

const logLines = () =>
	world.fake.requests
		.filter((r) => r.method === 'POST' && r.path === `/channels/${LOG_CHANNEL_ID}/messages`)
		.flatMap((r) => String(r.body.content).split('\n'));

describe('shards and /v1/status', () => {
	test('both shards ready: ok, with per-shard guilds, latency and last ready', async () => {
		const ready = await until((s) => s.shards.length === 2 && s.shards.every((shard) => shard.latencyMs !== null), 'heartbeat latencies');
		assert.equal(ready.status, 'ok');
		assert.equal(ready.shardCount, 2);
		assert.equal(ready.guilds, 4);
		const expected = [0, 1].map((id) => world.fake.guilds.ids.filter((guild) => shardOf(guild, 2) === id).length);
		assert.ok(
			expected.every((n) => n > 0),
			'guilds are spread over both shards',
		);
		assert.deepEqual(
			ready.shards.map((s) => [s.id, s.state, s.guilds, s.resumes]),
			[
				[0, 'ready', expected[0], 0],
				[1, 'ready', expected[1], 0],
			],
		);
		for (const shard of ready.shards) {
			assert.ok(shard.latencyMs! >= 0);
			assert.ok(Date.parse(shard.lastReady!) <= Date.now());
		}
	});

	test('a shard down: degraded; back: ok with resumes counted; the system log says both', async () => {
		const lastReady = (await status()).shards[1]!.lastReady;
		world.fake.setShardDown(1, true);
		const degraded = await until((s) => s.status === 'degraded', 'degraded');
		assert.notEqual(degraded.shards[1]!.state, 'ready');
		assert.equal(degraded.shards[0]!.state, 'ready');
		await sleep(300); // the outage itself: the shard stays down a while before it may come back
		world.fake.setShardDown(1, false);
		const back = await until((s) => s.status === 'ok', 'ok again');
		assert.equal(back.shards[1]!.resumes, 1);
		assert.equal(world.fake.resumeCount(1), 1);
		assert.equal(back.shards[0]!.resumes, 0);
		assert.equal(back.shards[1]!.lastReady, lastReady, 'a resume is not a new session');
		const guildOnShard1 = world.fake.guilds.ids.find((guild) => shardOf(guild, 2) === 1)!;
		const { callback } = await slash(world.fake, { name: 'about', guildId: guildOnShard1 });
		assert.match(JSON.stringify(callback.body), /About Haven/, 'interactions flow on the resumed shard');
		await waitFor(() => logLines().some((line) => line.startsWith('Shard 1 resumed')), { what: 'the resume in the system log' });
		assert.ok(logLines().includes('Shard 1 lost its gateway connection; reconnecting.'), logLines().join('\n'));
		assert.ok(
			logLines().some((line) => /^Shard 1 resumed \(\d+ missed events? replayed\)\.$/.test(line)),
			logLines().join('\n'),
		);
	});

	test('a dropped connection resumes at once: resumes counted per shard', async () => {
		world.fake.dropConnection(0);
		const back = await until((s) => s.status === 'ok' && s.shards[0]!.resumes === 1, 'shard 0 resumed');
		assert.deepEqual(
			back.shards.map((s) => s.resumes),
			[1, 1],
		);
	});
});
