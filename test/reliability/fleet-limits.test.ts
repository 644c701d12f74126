// Rate limits and cooldowns shared by a fleet through REDIS_URL (the Redis on 127.0.0.1:6379, under a key prefix of
// this run's own): two `haven serve` processes count one window per client, a third reaches the store through a
// proxy that stalls and then stops answering, and the limits keep answering from memory, never with 5xx. A cooldown
// spent through one Discord instance is in effect on the other.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { PAUSE_MS } from '../../src/lib/core/shared-store.ts';
import { shardOf, snowflakeAt } from '../support/fake-discord.ts';
import { slash, startBotWorld, worldGuilds, type BotWorld } from '../bot/support.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { killChildren, serveHaven, until, type HavenProcess } from './support.ts';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** This run's keys: nothing another run (or another test file) counts can leak in. */
const PREFIX = `haven-test-${randomBytes(6).toString('hex')}:`;
const TOKEN = 'fleet-limits-token-0123456789abcdef';

/** A TCP proxy in front of the store that can stall (hold every answer) or close (refuse and drop connections). */
class StoreProxy {
	readonly server: net.Server;
	readonly #sockets = new Set<net.Socket>();
	readonly #held: { to: net.Socket; data: Buffer }[] = [];
	#stalled = false;
	port = 0;

	constructor(target: URL) {
		this.server = net.createServer((client) => {
			const upstream = net.connect(Number(target.port || 6379), target.hostname);
			for (const socket of [client, upstream]) {
				this.#sockets.add(socket);
				socket.on('close', () => this.#sockets.delete(socket));
				socket.on('error', () => undefined);
			}
			client.on('data', (data) => upstream.write(data));
			// Answers are held while stalled and delivered in order later, as a server that was merely slow would.
			upstream.on('data', (data) => (this.#stalled ? this.#held.push({ to: client, data }) : client.write(data)));
			client.on('close', () => upstream.destroy());
			upstream.on('close', () => client.destroy());
		});
	}

	async listen(port = 0): Promise<void> {
		await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
		this.port = (this.server.address() as net.AddressInfo).port;
	}

	stall(): void {
		this.#stalled = true;
	}

	resume(): void {
		this.#stalled = false;
		for (const { to, data } of this.#held.splice(0)) to.write(data);
	}

	/** Stop answering: the port is closed and every connection dropped. */
	async close(): Promise<void> {
		const closed = new Promise((resolve) => this.server.close(resolve));
		for (const socket of this.#sockets) socket.destroy();
		await closed;
	}
}

let env: Record<string, string | undefined>;
let a: HavenProcess & { url: string };
let b: HavenProcess & { url: string };
let c: HavenProcess & { url: string };
let proxy: StoreProxy;

after(async () => {
	const redis = new Redis(REDIS);
	const keys = await redis.keys(`${PREFIX}*`);
	if (keys.length) await redis.del(...keys);
	await redis.quit();
});

async function get(url: string, client: string) {
	const response = await fetch(`${url}/healthz`, { headers: { 'x-forwarded-for': client } });
	await response.arrayBuffer();
	return response;
}

describe('HTTP rate limits shared through REDIS_URL', () => {
	before(async () => {
		proxy = new StoreProxy(new URL(REDIS));
		await proxy.listen();
		env = testEnv({
			API_TOKEN: TOKEN,
			REDIS_URL: REDIS,
			REDIS_KEY_PREFIX: PREFIX,
			RATE_LIMIT_PER_MINUTE: '60',
			RATE_LIMIT_FEEDBACK_PER_MINUTE: '5',
			// Each sub-test is its own client (X-Forwarded-For from the loopback proxy hop), so their windows never mix.
			TRUST_PROXY: '1',
			PURGE_INTERVAL_MS: '0',
			LOG_LEVEL: 'info',
		});
		// Two instances on the store, one through the proxy; the same database (migrations take turns under their lock).
		// The first creates the database; the other two start together.
		a = await serveHaven(env);
		[b, c] = await Promise.all([serveHaven(env), serveHaven({ ...env, REDIS_URL: `redis://127.0.0.1:${proxy.port}` })]);
	});

	after(async () => {
		killChildren();
		await proxy?.close().catch(() => undefined);
		await dropDatabase(env?.DATABASE_URL);
		if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
	});

	test('the 61st request in a minute, spread over two instances, is 429 on both', async () => {
		const client = '198.51.100.1';
		for (let i = 1; i <= 60; i++) {
			const response = await get(i % 2 ? a.url : b.url, client);
			assert.equal(response.status, 200, `request ${i}`);
			assert.equal(response.headers.get('ratelimit-limit'), '60');
			assert.equal(response.headers.get('ratelimit-remaining'), String(60 - i), `request ${i}: one count for both instances`);
		}
		for (const url of [a.url, b.url]) {
			const refused = await get(url, client);
			assert.equal(refused.status, 429);
			assert.equal(refused.headers.get('ratelimit-remaining'), '0');
			const retry = Number(refused.headers.get('retry-after'));
			assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
		}
		// Another client still has its whole window.
		assert.equal((await get(b.url, '198.51.100.2')).headers.get('ratelimit-remaining'), '59');
	});

	test("a route's own limit is shared too: the 6th feedback in a minute across the instances is 429", async () => {
		const statuses: number[] = [];
		for (let i = 0; i < 6; i++) {
			const response = await fetch(`${(i % 2 ? a : b).url}/v1/feedback`, {
				method: 'POST',
				headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.3' },
				body: JSON.stringify({ userId: '123456789012345678', message: `shared feedback window ${i}` }),
			});
			statuses.push(response.status);
			if (i === 5) {
				assert.equal(response.headers.get('ratelimit-limit'), '5');
				assert.ok(Number(response.headers.get('retry-after')) >= 1);
			}
			await response.arrayBuffer();
		}
		assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429]);
	});

	test('the store stalls, then stops answering: limits are kept in memory, never a 5xx, and shared again when it is back', async () => {
		const client = '198.51.100.4';
		// Shared while the proxy forwards: 10 requests through C count in the store (A sees them).
		for (let i = 0; i < 10; i++) assert.equal((await get(c.url, client)).status, 200);
		assert.equal((await get(a.url, client)).headers.get('ratelimit-remaining'), '49', 'counted in the shared window');

		proxy.stall();
		const started = performance.now();
		const first = await get(c.url, client);
		const waited = performance.now() - started;
		assert.equal(first.status, 200, 'a stalled store is not an error');
		assert.equal(first.headers.get('ratelimit-remaining'), '59', "decided by C's own window");
		assert.ok(waited < 3_000, `the first request after the stall waited ${waited.toFixed(0)} ms (bounded by the command timeout)`);
		await c.waitFor(/Shared store \(REDIS_URL\) unavailable/, 5_000);
		// The memory window holds the same limit: 59 more pass, the next is 429, none is 5xx.
		const statuses = new Map<number, number>();
		for (let i = 0; i < 60; i++) {
			const { status } = await get(c.url, client);
			statuses.set(status, (statuses.get(status) ?? 0) + 1);
		}
		assert.deepEqual(Object.fromEntries(statuses), { 200: 59, 429: 1 });

		// Answering again: after the pause, C counts in the shared window again: the 11 before the stall, the request
		// that timed out (it reached the store, only the answer was late), and this one.
		proxy.resume();
		await sleep(PAUSE_MS + 200); // the pause after a failure is the behaviour under test
		assert.equal((await get(c.url, client)).headers.get('ratelimit-remaining'), '47');
		await c.waitFor(/Shared store \(REDIS_URL\) is back/, 5_000);

		// The port closes: C reconnects in vain and decides in memory at once, still without errors.
		await proxy.close();
		await until(async () => (await get(c.url, '198.51.100.5')).headers.get('ratelimit-remaining') === '59', 'C to fall back to memory', 10_000);
		const quick = performance.now();
		const answers = await Promise.all(Array.from({ length: 20 }, () => get(c.url, '198.51.100.6')));
		assert.ok(
			answers.every((response) => response.status === 200),
			'no errors while the store is down',
		);
		assert.ok(performance.now() - quick < 3_000, 'no waiting for a store that is down');
		// A and B, on the store itself, were never affected.
		assert.equal((await get(a.url, '198.51.100.6')).headers.get('ratelimit-remaining'), '59', 'C counted 20 only in its own memory');
		for (const haven of [a, b, c]) assert.doesNotMatch(haven.output(), /ERROR/, haven.output());
	});
});

describe('command cooldowns shared through REDIS_URL', () => {
	let world: BotWorld;
	let second: HavenProcess & { url: string };
	/** A server on each shard: shard 0 is served in this process, shard 1 by a second instance. */
	let onShard0: string;
	let onShard1: string;

	before(async () => {
		world = await startBotWorld({
			fake: { shardCount: 2, guilds: worldGuilds(5) },
			env: { REDIS_URL: REDIS, REDIS_KEY_PREFIX: PREFIX, SHARD_COUNT: '2', SHARD_IDS: '0' },
		});
		const ids = world.fake.guilds.ids;
		onShard0 = ids.find((id) => shardOf(id, 2) === 0)!;
		onShard1 = ids.find((id) => shardOf(id, 2) === 1)!;
		// The second instance: same store, database and Discord application, the other shard.
		second = await serveHaven({ ...world.env, SHARD_IDS: '1', LOG_LEVEL: 'info' });
		await world.fake.waitForShard(1, 30_000);
	});

	after(async () => {
		second?.child.kill('SIGTERM');
		await second?.exited;
		await world?.close();
	});

	test('a /ping through one instance puts the person in cooldown on the other, and only that person', async () => {
		const user = snowflakeAt(1_470_000_000_000, 1);
		const first = (await slash(world.fake, { name: 'ping', userId: user, guildId: onShard1 }, 15_000)).callback;
		assert.match(first.body.data.content, /^Pong!/, 'answered by the second instance (shard 1)');
		const elsewhere = (await slash(world.fake, { name: 'ping', userId: user, guildId: onShard0 })).callback;
		assert.match(elsewhere.body.data.content, /^Please slow down a little: try again in [1-5] seconds?\.$/, 'refused by this one (shard 0)');
		const other = snowflakeAt(1_470_000_000_000, 2);
		assert.match((await slash(world.fake, { name: 'ping', userId: other, guildId: onShard0 })).callback.body.data.content, /^Pong!/);
		// ... and the other way round.
		assert.match(
			(await slash(world.fake, { name: 'ping', userId: other, guildId: onShard1 }, 15_000)).callback.body.data.content,
			/try again in/,
		);
	});
});
