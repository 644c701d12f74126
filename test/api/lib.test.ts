import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { requireBearer } from '../../src/lib/api/auth.ts';
import { clientIp, normalizeIp, proxyTrust, rateLimitKey } from '../../src/lib/api/client-ip.ts';
import { HttpError } from '../../src/lib/api/http-error.ts';
import { responsesOf } from '../../src/lib/api/openapi.ts';
import { FixedWindowLimiter, rateLimitHeaders, tightest } from '../../src/lib/api/rate-limit.ts';
import { ChatRequest, FeedbackRequest, isSnowflake, TestimonialsQuery } from '../../src/lib/api/schemas.ts';
import { staleWhileRevalidate } from '../../src/lib/operations/stats.ts';
import { computeStatus, overallStatus, shardState, ShardTracker, type ShardSnapshot } from '../../src/lib/operations/status.ts';

const status = (error: unknown) => (error instanceof HttpError ? error.status : undefined);

describe('clientIp', () => {
	const none = proxyTrust(false);
	test('without TRUST_PROXY it is the socket address, whatever the headers say', () => {
		fc.assert(
			fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.option(fc.string()), (socket, header) => {
				assert.equal(clientIp(socket, header ?? undefined, none), normalizeIp(socket));
			}),
		);
		assert.equal(clientIp('::ffff:10.1.2.3', '1.1.1.1', none), '10.1.2.3');
	});

	test('hops: the n-th address from the right; a client cannot push it further left', () => {
		const one = proxyTrust({ hops: 1 });
		const two = proxyTrust({ hops: 2 });
		assert.equal(clientIp('10.0.0.1', '198.51.100.7', one), '198.51.100.7');
		assert.equal(clientIp('10.0.0.1', '6.6.6.6, 198.51.100.7', one), '198.51.100.7');
		assert.equal(clientIp('10.0.0.1', ['6.6.6.6', '198.51.100.7'], one), '198.51.100.7');
		assert.equal(clientIp('10.0.0.1', '6.6.6.6, 198.51.100.7, 10.0.0.2', two), '198.51.100.7');
		assert.equal(clientIp('10.0.0.1', '198.51.100.7', two), '198.51.100.7', 'fewer entries than hops: the left-most');
		assert.equal(clientIp('10.0.0.1', undefined, one), '10.0.0.1');
		assert.equal(clientIp('10.0.0.1', 'garbage', one), '10.0.0.1', 'a non-address never becomes the key');
		assert.equal(clientIp('10.0.0.1', '', one), '10.0.0.1');
		assert.equal(proxyTrust({ hops: 0 }), false);
		fc.assert(
			fc.property(fc.array(fc.ipV4(), { maxLength: 5 }), fc.ipV4(), fc.ipV4(), (spoofed, real, proxy) => {
				assert.equal(clientIp(proxy, [...spoofed, real].join(', '), one), real);
			}),
		);
	});

	test('addresses: the right-most address that is not a trusted proxy (CIDR, IPv4 and IPv6)', () => {
		const trust = proxyTrust({ addresses: ['10.0.0.0/8', '2001:db8::/32', '127.0.0.1'] });
		assert.equal(clientIp('127.0.0.1', '6.6.6.6, 198.51.100.7, 10.1.1.1', trust), '198.51.100.7');
		assert.equal(clientIp('::ffff:127.0.0.1', '198.51.100.7', trust), '198.51.100.7');
		assert.equal(clientIp('2001:db8::5', '2001:db8::6, 2a00::1', trust), '2a00::1');
		assert.equal(clientIp('198.51.100.9', '6.6.6.6', trust), '198.51.100.9', 'an untrusted peer is the client');
		assert.equal(clientIp('10.0.0.1', '10.0.0.2, 10.0.0.3', trust), '10.0.0.2', 'all trusted: the left-most');
		assert.equal(clientIp('10.0.0.1', 'nonsense, 10.0.0.3', trust), '10.0.0.3');
	});

	test('rate-limit keys: IPv4 as is, IPv6 by /64', () => {
		assert.equal(rateLimitKey('198.51.100.7'), '198.51.100.7');
		assert.equal(rateLimitKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
		assert.equal(rateLimitKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
		assert.equal(rateLimitKey('::1'), '0:0:0:0::/64');
		assert.equal(rateLimitKey('2001:db8::'), '2001:db8:0:0::/64');
		assert.equal(rateLimitKey('1::2:3:4:5:1.2.3.4'), '1:0:2:3::/64');
	});
});

describe('FixedWindowLimiter', () => {
	test('a window opens with the first request; over the limit until it ends; then a fresh quota', () => {
		let now = 1_000;
		const limiter = new FixedWindowLimiter(2, 60_000, () => now);
		assert.deepEqual(limiter.take('a'), { allowed: true, limit: 2, remaining: 1, resetMs: 60_000 });
		now += 10_000;
		assert.deepEqual(limiter.take('a'), { allowed: true, limit: 2, remaining: 0, resetMs: 50_000 });
		assert.deepEqual(limiter.take('a'), { allowed: false, limit: 2, remaining: 0, resetMs: 50_000 });
		assert.equal(limiter.take('b').allowed, true, 'keys are independent');
		now += 50_000;
		assert.deepEqual(limiter.take('a'), { allowed: true, limit: 2, remaining: 1, resetMs: 60_000 });
	});

	test('never more than 2 x limit in any window-length span; ended windows are swept without timers', () => {
		fc.assert(
			fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 200 }), (gaps) => {
				let now = 0;
				const limiter = new FixedWindowLimiter(5, 1_000, () => now);
				const passed: number[] = [];
				for (const gap of gaps) {
					now += gap;
					if (limiter.take('k').allowed) passed.push(now);
				}
				for (const at of passed) assert.ok(passed.filter((t) => t >= at && t < at + 1_000).length <= 10);
			}),
		);
		let now = 0;
		const limiter = new FixedWindowLimiter(1, 1_000, () => now);
		for (let i = 0; i < 100; i++) limiter.take(`k${i}`);
		assert.equal(limiter.size, 100);
		now = 1_500;
		limiter.take('new');
		assert.equal(limiter.size, 1);
	});

	test('headers in seconds; the tightest of several limits is reported', () => {
		assert.deepEqual(rateLimitHeaders({ allowed: true, limit: 60, remaining: 59, resetMs: 59_001 }), {
			'RateLimit-Limit': '60',
			'RateLimit-Remaining': '59',
			'RateLimit-Reset': '60',
		});
		assert.deepEqual(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetMs: 1 }), {
			'RateLimit-Limit': '5',
			'RateLimit-Remaining': '0',
			'RateLimit-Reset': '1',
			'Retry-After': '1',
		});
		const all = { allowed: true, limit: 60, remaining: 50, resetMs: 1_000 };
		const chat = { allowed: true, limit: 20, remaining: 3, resetMs: 5_000 };
		assert.equal(tightest([all, chat]), chat);
		assert.equal(tightest([all, { ...chat, allowed: false, remaining: 0 }]).limit, 20);
	});
});

describe('requireBearer', () => {
	const check = (header: string | undefined, token: string | undefined) => {
		try {
			requireBearer(header, token);
			return 200;
		} catch (error) {
			return status(error);
		}
	};
	test('503 without a configured token, 401 for a missing or wrong one, in any scheme case', () => {
		assert.equal(check('Bearer x', undefined), 503);
		assert.equal(check(undefined, 'secret'), 401);
		assert.equal(check('Bearer secre', 'secret'), 401);
		assert.equal(check('Bearer secrets', 'secret'), 401);
		assert.equal(check('Token secret', 'secret'), 401);
		assert.equal(check('Bearer secret extra', 'secret'), 401);
		assert.equal(check('Bearer secret', 'secret'), 200);
		assert.equal(check('bearer   secret ', 'secret'), 200);
		fc.assert(
			fc.property(fc.stringMatching(/^\S+$/), fc.string({ minLength: 1 }), (given, token) => {
				fc.pre(given !== token);
				assert.equal(check(`Bearer ${given}`, token), 401);
			}),
		);
	});
});

describe('schemas', () => {
	test('snowflakes: 17 to 20 digits, no leading zero, at most 2^64 - 1', () => {
		fc.assert(fc.property(fc.bigInt({ min: 10n ** 16n, max: 2n ** 64n - 1n }), (n) => isSnowflake(n.toString())));
		fc.assert(fc.property(fc.bigInt({ min: 2n ** 64n, max: 10n ** 20n - 1n }), (n) => !isSnowflake(n.toString())));
		fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 16n - 1n }), (n) => !isSnowflake(n.toString())));
		for (const bad of ['', ' 123456789012345678', '123456789012345678 ', '+123456789012345678', '1e17', '0123456789012345678'])
			assert.equal(isSnowflake(bad), false, bad);
	});

	test('messages are trimmed and bounded; unknown fields are dropped', () => {
		assert.deepEqual(ChatRequest.parse({ message: '  hi  ', extra: 1 }), { message: 'hi' });
		assert.equal(FeedbackRequest.safeParse({ userId: '123456789012345678', message: ' ab ' }).success, false);
		assert.equal(FeedbackRequest.safeParse({ userId: '123456789012345678', message: 'abc' }).success, true);
		assert.deepEqual(TestimonialsQuery.parse({}), { limit: 20 });
		assert.deepEqual(TestimonialsQuery.parse({ limit: '5' }), { limit: 5 });
	});

	test('the OpenAPI responses of a route follow from what it declares', () => {
		assert.deepEqual(Object.keys(responsesOf({ summary: 's', responses: { 200: { description: 'ok' } } })).sort(), ['200', '429', '500']);
		const post = responsesOf({
			summary: 's',
			auth: true,
			body: ChatRequest,
			responses: { 200: { description: 'ok' }, 503: { description: 'No AI.' } },
		});
		assert.deepEqual(Object.keys(post).sort(), ['200', '400', '401', '413', '415', '429', '500', '503']);
		assert.match(post[503]!.description, /^No AI\. Or: .*API_TOKEN/);
	});
});

describe('status', () => {
	const shard = (over: Partial<ShardSnapshot> = {}): ShardSnapshot => ({
		id: 0,
		state: 'ready',
		latencyMs: 40,
		guilds: 3,
		lastReady: new Date(0),
		resumes: 0,
		...over,
	});

	test('API-only is degraded; starting until every shard was ready once; degraded when one is not ready', () => {
		assert.equal(overallStatus(false, []), 'degraded');
		assert.equal(overallStatus(true, []), 'starting');
		assert.equal(overallStatus(true, [shard(), shard({ id: 1, state: 'identifying', lastReady: null })]), 'starting');
		assert.equal(overallStatus(true, [shard(), shard({ id: 1, state: 'resuming' })]), 'degraded');
		assert.equal(overallStatus(true, [shard(), shard({ id: 1 })]), 'ok');
	});

	test('computeStatus fills every field', () => {
		const startedAt = new Date('2026-11-21T10:00:00.000Z');
		const now = new Date('2026-11-21T10:01:01.900Z');
		const body = computeStatus({ botEnabled: true, shards: [shard({ latencyMs: null })], guilds: 3, version: 'v1', startedAt, now });
		assert.deepEqual(body, {
			status: 'ok',
			version: 'v1',
			startedAt: '2026-11-21T10:00:00.000Z',
			uptimeSeconds: 61,
			shardCount: 1,
			guilds: 3,
			generatedAt: '2026-11-21T10:01:01.900Z',
			shards: [{ id: 0, state: 'ready', latencyMs: null, guilds: 3, lastReady: '1970-01-01T00:00:00.000Z', resumes: 0 }],
		});
		const apiOnly = computeStatus({ botEnabled: false, shards: [shard()], guilds: 9, version: 'v1', startedAt, now });
		assert.equal(apiOnly.status, 'degraded');
		assert.equal(apiOnly.shardCount, 0);
		assert.deepEqual(apiOnly.shards, []);
		assert.equal(apiOnly.guilds, 9);
	});

	test('ShardTracker joins discord.js shard state with ready times and resumes', () => {
		const tracker = new ShardTracker();
		const at = new Date('2026-11-21T10:00:00.000Z');
		tracker.ready(1, at);
		tracker.resumed(1);
		tracker.resumed(1);
		const client = {
			guilds: {
				cache: new Map([
					['a', { shardId: 0 }],
					['b', { shardId: 1 }],
					['c', { shardId: 1 }],
				]),
			},
			ws: {
				shards: new Map([
					[1, { id: 1, status: 0, ping: 41.6 }],
					[0, { id: 0, status: 6, ping: -1 }],
				]),
			},
		} as never;
		assert.deepEqual(tracker.snapshot(client), [
			{ id: 0, state: 'waitingForGuilds', latencyMs: null, guilds: 1, lastReady: null, resumes: 0 },
			{ id: 1, state: 'ready', latencyMs: 42, guilds: 2, lastReady: at, resumes: 2 },
		]);
		assert.equal(shardState(8), 'resuming');
		assert.equal(shardState(99), 'disconnected');
	});
});

describe('staleWhileRevalidate', () => {
	test('one load at a time; a stale value is served while it refreshes; a failed refresh keeps it', async () => {
		let now = 0;
		let loads = 0;
		let fail = false;
		const get = staleWhileRevalidate(
			async () => {
				loads++;
				if (fail) throw new Error('down');
				return loads;
			},
			1_000,
			() => now,
		);
		assert.equal(get.peek(), undefined, 'nothing to peek at before the first load');
		assert.equal(loads, 0, 'peeking does not load');
		assert.deepEqual(await Promise.all([get(), get(), get()]), [1, 1, 1]);
		assert.equal(loads, 1);
		assert.equal(get.peek(), 1);
		now = 1_000;
		assert.equal(get.peek(), 1, 'stale while refreshing');
		assert.equal(loads, 2, 'a stale peek starts the refresh');
		assert.equal(await get(), 1, 'stale while refreshing');
		await new Promise((resolve) => setImmediate(resolve));
		assert.equal(await get(), 2);
		now = 2_000;
		fail = true;
		assert.equal(await get(), 2);
		await new Promise((resolve) => setImmediate(resolve));
		assert.equal(await get(), 2);
	});
});
