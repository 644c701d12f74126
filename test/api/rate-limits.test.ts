import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { request, type Reply } from './support.ts';

const TOKEN = 'rate-limit-token';
let fake: FakeOpenAi | undefined;
let haven: TestHaven | undefined;
let env: Record<string, string | undefined> = {};

async function start(overrides: Record<string, string>) {
	await stop();
	fake ??= await startFakeOpenAi();
	env = testEnv({ API_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: fake.url, ...overrides });
	haven = await startTestHaven(env);
	return haven;
}

async function stop() {
	await haven?.stop();
	haven = undefined;
	await dropDatabase(env.DATABASE_URL);
}

after(async () => {
	await stop();
	await fake?.close();
});

function assertLimited(reply: Reply, limit: number) {
	assert.equal(reply.status, 429, reply.text);
	assert.match(reply.json.error, /^Too many requests: try again in \d+ seconds$/);
	assert.deepEqual(Object.keys(reply.json), ['error']);
	const retryAfter = Number(reply.headers['retry-after']);
	assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${reply.headers['retry-after']} is in seconds`);
	assert.equal(reply.headers['ratelimit-limit'], String(limit));
	assert.equal(reply.headers['ratelimit-remaining'], '0');
	assert.equal(reply.headers['ratelimit-reset'], String(retryAfter));
	assert.equal(reply.headers['cache-control'], 'no-store');
}

describe('the default limits, client = socket address', () => {
	test('5 feedback a minute, 20 chats a minute, 60 requests a minute in all; X-Forwarded-For changes nothing', async () => {
		const { url } = await start({});
		const feedback = () => request(url, 'POST', '/v1/feedback', { token: TOKEN, body: { userId: '123456789012345678', message: 'thank you' } });
		for (let i = 1; i <= 5; i++) {
			const reply = await feedback();
			assert.equal(reply.status, 202);
			assert.equal(reply.headers['ratelimit-limit'], '5');
			assert.equal(reply.headers['ratelimit-remaining'], String(5 - i));
		}
		assertLimited(await feedback(), 5);
		// Limited before anything else is looked at: no token, no body.
		assertLimited(await request(url, 'POST', '/v1/feedback'), 5);

		const chat = (headers: Record<string, string> = {}) => request(url, 'POST', '/v1/chat', { token: TOKEN, body: { message: 'hi' }, headers });
		for (let i = 1; i <= 20; i++) {
			const reply = await chat();
			assert.equal(reply.status, 200);
			assert.equal(reply.headers['ratelimit-limit'], '20');
		}
		assertLimited(await chat(), 20);
		assertLimited(await chat({ 'x-forwarded-for': '203.0.113.9' }), 20);

		// 5 + 2 + 20 + 2 = 29 requests so far; the rest of the 60 go anywhere, unknown paths included.
		for (let i = 30; i <= 60; i++) {
			const reply = await request(url, 'GET', i % 2 ? '/healthz' : '/no-such-path');
			assert.notEqual(reply.status, 429, `request ${i}`);
			assert.equal(reply.headers['ratelimit-limit'], '60');
			assert.equal(reply.headers['ratelimit-remaining'], String(60 - i));
		}
		assertLimited(await request(url, 'GET', '/v1/stats'), 60);
		for (const spoof of ['203.0.113.9', '198.51.100.1, 203.0.113.10', '::1', 'unknown', '127.0.0.2']) {
			assertLimited(
				await request(url, 'GET', '/healthz', { headers: { 'x-forwarded-for': spoof, 'x-real-ip': spoof, forwarded: `for=${spoof}` } }),
				60,
			);
		}
		// A preflight is not counted and still answers, so the website can read the 429s.
		assert.equal((await request(url, 'OPTIONS', '/v1/chat')).status, 204);
	});
});

describe('behind one trusted proxy (TRUST_PROXY=1)', () => {
	test('the client is the address the proxy appended; what the client wrote itself is ignored', async () => {
		const { url } = await start({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3' });
		const from = (xff?: string) => request(url, 'GET', '/healthz', xff ? { headers: { 'x-forwarded-for': xff } } : {});
		for (let i = 0; i < 3; i++) assert.equal((await from('198.51.100.7')).status, 200);
		assertLimited(await from('198.51.100.7'), 3);
		// The client prepends a fresh address each time; the proxy still appends the real one.
		assertLimited(await from('203.0.113.1, 198.51.100.7'), 3);
		assertLimited(await from('10.9.9.9,198.51.100.7'), 3);
		// Another client behind the same proxy has its own quota.
		assert.equal((await from('198.51.100.8')).status, 200);
		// IPv6 clients are limited by /64: a new address in the same network is the same client.
		for (let i = 1; i <= 3; i++) assert.equal((await from(`2001:db8:1:2::${i}`)).status, 200);
		assertLimited(await from('2001:db8:1:2:ffff::1'), 3);
		assert.equal((await from('2001:db8:1:3::1')).status, 200);
		// Without the header, the socket address is the client.
		assert.equal((await from()).status, 200);
	});
});
