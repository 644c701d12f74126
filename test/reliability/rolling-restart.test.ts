// A rolling restart of a fleet of two: instances A (shard 0) and B (shard 1) share a database, REDIS_URL and one
// Discord application; clients write feedback through both, as a load balancer would spread them. B gets SIGTERM
// under that load and a new B takes its shard. No request is answered with a 5xx (a connection that is refused or
// closed is retried on the other instance, as a balancer does), every accepted write is stored, and A's /v1/status
// never reports shard 1 ready between the old B leaving and the new B being ready.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { parseConfig } from '../../src/lib/core/config.ts';
import { Feedback, openDatabase } from '../../src/lib/db/index.ts';
import { startFakeDiscord, type FakeDiscord } from '../support/fake-discord.ts';
import { worldGuilds } from '../bot/support.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { killChildren, serveHaven, until, type HavenProcess } from './support.ts';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `haven-test-${randomBytes(6).toString('hex')}:`;
const TOKEN = 'rolling-restart-token-0123456789abcdef';

let fake: FakeDiscord;
let env: Record<string, string | undefined>;
let a: HavenProcess & { url: string };
let b: HavenProcess & { url: string };

before(async () => {
	fake = await startFakeDiscord({ shardCount: 2, guilds: worldGuilds(5) });
	env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		API_TOKEN: TOKEN,
		REDIS_URL: REDIS,
		REDIS_KEY_PREFIX: PREFIX,
		SHARD_COUNT: '2',
		FLEET_HEARTBEAT_MS: '500',
		RATE_LIMIT_PER_MINUTE: '1000000',
		RATE_LIMIT_FEEDBACK_PER_MINUTE: '1000000',
		PURGE_INTERVAL_MS: '0',
		LOG_LEVEL: 'info',
	});
	a = await serveHaven({ ...env, SHARD_IDS: '0' });
	b = await serveHaven({ ...env, SHARD_IDS: '1' });
	await Promise.all([fake.waitForShard(0, 30_000), fake.waitForShard(1, 30_000)]);
});

after(async () => {
	killChildren();
	await fake?.close();
	const redis = new Redis(REDIS);
	const keys = await redis.keys(`${PREFIX}*`);
	if (keys.length) await redis.del(...keys);
	await redis.quit();
	await dropDatabase(env?.DATABASE_URL);
	if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

async function shardState(url: string, id: number): Promise<string | undefined> {
	const response = await fetch(`${url}/v1/status`);
	const body = (await response.json()) as { shards: { id: number; state: string }[] };
	return body.shards.find((shard) => shard.id === id)?.state;
}

test('rolling restart of one of two instances under HTTP load: zero 5xx, zero lost writes, shard 1 not ready while ownerless', async (t) => {
	await until(async () => (await shardState(a.url, 1)) === 'ready', "A to see B's shard ready", 20_000);

	// The balancer: instances in rotation; a request whose connection is refused or dropped goes to the next one.
	const rotation = [a.url, b.url];
	const statuses = new Map<string, number>();
	const accepted: string[] = [];
	const unanswered: string[] = [];
	const acceptedBy = new Map<string, number>();
	let retried = 0;
	let n = 0;
	let writing = true;
	const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
	const writer = async () => {
		while (writing) {
			// Each write's attempts walk the rotation from its own number, so a retry always goes to the next instance
			// (the shared counter moves on under the other writers and could send every attempt to a stopping one).
			const index = n++;
			const message = `rolling restart write ${index}`;
			let done = false;
			for (let attempt = 0; attempt < 6 && !done; attempt++) {
				const base = rotation[(index + attempt) % rotation.length]!;
				try {
					const response = await fetch(`${base}/v1/feedback`, {
						method: 'POST',
						headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
						body: JSON.stringify({ userId: '123456789012345678', message }),
					});
					await response.arrayBuffer();
					count(String(response.status));
					if (response.status === 202) {
						accepted.push(message);
						acceptedBy.set(base, (acceptedBy.get(base) ?? 0) + 1);
					}
					done = true;
				} catch {
					retried++; // refused or closed before an answer: try the other instance
					await sleep(10);
				}
			}
			if (!done) unanswered.push(message);
		}
	};
	const writers = Array.from({ length: 4 }, writer);
	// A's view of shard 1, sampled throughout.
	const samples: { at: number; state: string | undefined }[] = [];
	let sampling = true;
	const sampler = (async () => {
		while (sampling) {
			samples.push({ at: performance.now(), state: await shardState(a.url, 1).catch(() => 'unreachable') });
			await sleep(50);
		}
	})();
	// A failed wait must not leave the load running and the file never ending.
	t.after(() => {
		writing = false;
		sampling = false;
	});

	await until(() => (acceptedBy.get(a.url) ?? 0) >= 20 && (acceptedBy.get(b.url) ?? 0) >= 20, 'writes flowing through both instances', 15_000);
	b.child.kill('SIGTERM');
	assert.equal(await b.exited, 0, b.output());
	const bLeftAt = performance.now();
	rotation.splice(rotation.indexOf(b.url), 1);
	await sleep(1_000); // a while with shard 1 ownerless, under load: the window under test
	const newBStartedAt = performance.now();
	const newB = await serveHaven({ ...env, SHARD_IDS: '1' });
	await until(async () => (await shardState(a.url, 1)) === 'ready', "A to see the new B's shard ready", 30_000);
	rotation.push(newB.url);
	await until(() => (acceptedBy.get(newB.url) ?? 0) >= 20, 'writes through the new B', 15_000);
	writing = false;
	await Promise.all(writers);
	sampling = false;
	await sampler;

	const gap = samples.filter((sample) => sample.at > bLeftAt && sample.at < newBStartedAt);
	assert.ok(gap.length > 5, `sampled the ownerless window (${gap.length} samples)`);
	assert.deepEqual(
		gap.filter((sample) => sample.state === 'ready'),
		[],
		'shard 1 is never reported ready while no instance serves it',
	);
	assert.ok(
		samples.some((sample) => sample.at > newBStartedAt && sample.state === 'ready'),
		"ready again once the new B's shard is",
	);

	const errors = [...statuses.keys()].filter((status) => status !== '202');
	assert.deepEqual(errors, [], `statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
	assert.deepEqual(unanswered, [], 'every write was answered by one instance or the other');
	for (const haven of [a, newB]) assert.doesNotMatch(haven.output(), /ERROR/, haven.output());
	assert.doesNotMatch(b.output(), /ERROR/, b.output());

	const db = await openDatabase(parseConfig({ ...env, LOG_LEVEL: 'error' }), { info: () => undefined, warn: () => undefined });
	try {
		const stored = new Set((await db.orm.em.fork().find(Feedback, {})).map((row) => row.message));
		const lost = accepted.filter((message) => !stored.has(message));
		assert.deepEqual(lost, [], 'every 202 is stored');
	} finally {
		await db.close();
	}
	t.diagnostic(
		`${accepted.length} writes accepted, none lost; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${retried} connection-level retries on the other instance; shard 1 sampled ${gap.length} times while ownerless, never ready`,
	);
	newB.child.kill('SIGTERM');
	assert.equal(await newB.exited, 0);
});
