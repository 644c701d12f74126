import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { StatusBody } from '../../src/lib/api/schemas.ts';
import { startHeartbeat, type HeartbeatOptions } from '../../src/lib/operations/heartbeat.ts';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startTestHaven } from '../support/haven.ts';

const KEY = 'status-key-s3cret';
const STATUS: StatusBody = {
	status: 'ok',
	version: 'v9.9.9',
	startedAt: '2026-11-21T00:00:00.000Z',
	uptimeSeconds: 42,
	shardCount: 2,
	guilds: 7,
	generatedAt: '2026-11-21T00:00:42.000Z',
	shards: [],
};

let capture: CaptureServer;
let logs: string[];
let stops: (() => Promise<void>)[];

before(async () => {
	capture = await startCaptureServer();
});
after(() => capture.close());
beforeEach(() => {
	capture.requests.length = 0;
	capture.setResponse(200);
	logs = [];
	stops = [];
});
afterEach(async () => {
	for (const stop of stops) await stop();
});

function beat(options: Partial<HeartbeatOptions> = {}) {
	const heartbeat = startHeartbeat({
		url: `${capture.url}/api/status?token=hidden`,
		apiKey: KEY,
		status: async () => STATUS,
		log: { info: (m) => logs.push(`info ${m}`), warn: (m) => logs.push(`warn ${m}`) },
		intervalMs: 60_000,
		firstDelayMs: 0,
		timeoutMs: 1_000,
		retryDelaysMs: [20, 40],
		...options,
	});
	stops.push(() => heartbeat.stop());
	return heartbeat;
}

describe('startHeartbeat', () => {
	test('posts the key and the live status soon after start, then every interval', async () => {
		beat({ intervalMs: 150, firstDelayMs: 10 });
		const [first, second] = await capture.waitForRequests(2, 2_000);
		assert.equal(first!.method, 'POST');
		assert.equal(first!.path, '/api/status');
		assert.match(String(first!.headers['content-type']), /application\/json/);
		const { timestamp, ...rest } = first!.body;
		assert.deepEqual(rest, { apiKey: KEY, status: 'ok', version: 'v9.9.9', uptimeSeconds: 42, guilds: 7, shardCount: 2 });
		assert.ok(Math.abs(Date.parse(timestamp) - Date.now()) < 5_000);
		assert.ok(second!.at - first!.at >= 140, `interval respected: ${second!.at - first!.at} ms`);
	});

	test('retries a failing beat with growing pauses, logs without the key, and never throws', async () => {
		capture.setResponse(503);
		const heartbeat = beat({ firstDelayMs: 60_000 });
		assert.equal(await heartbeat.beat(), false);
		const times = capture.requests.map((r) => r.at);
		assert.equal(times.length, 3, 'one try and two retries');
		assert.ok(times[1]! - times[0]! >= 18 && times[2]! - times[1]! >= 38, `backoff: ${times.join(', ')}`);
		assert.equal(logs.filter((l) => l.startsWith('warn')).length, 3);
		assert.match(logs.at(-1)!, /HTTP 503, attempt 3\)$/);
		for (const line of logs) {
			assert.ok(!line.includes(KEY) && !line.includes('hidden'), line);
		}
		capture.setResponse(200);
		assert.equal(await heartbeat.beat(), true);
		assert.match(logs.at(-1)!, /delivered again/);
	});

	test('does not repeat a beat the website refused (4xx)', async () => {
		capture.setResponse(401);
		assert.equal(await beat({ firstDelayMs: 60_000 }).beat(), false);
		assert.equal(capture.requests.length, 1);
	});

	test('bounds each attempt with the timeout', async () => {
		capture.setResponse(200, 5_000);
		const started = Date.now();
		assert.equal(await beat({ firstDelayMs: 60_000, timeoutMs: 100, retryDelaysMs: [10] }).beat(), false);
		assert.ok(Date.now() - started < 1_000, `${Date.now() - started} ms`);
		assert.equal(capture.requests.length, 2);
		assert.match(logs.at(-1)!, /no answer within 100 ms/);
	});

	test('never overlaps: the next beat waits for the current one', async () => {
		capture.setResponse(200, 200);
		const heartbeat = beat({ intervalMs: 20 });
		await Promise.all([heartbeat.beat(), heartbeat.beat(), heartbeat.beat()]);
		await capture.waitForRequests(3, 3_000);
		const times = capture.requests.map((r) => r.at);
		for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 200, `overlap: ${times.join(', ')}`);
	});

	test('stop() aborts a beat in flight and ends the schedule', async () => {
		capture.setResponse(200, 5_000);
		const heartbeat = beat({ intervalMs: 20, timeoutMs: 10_000 });
		await capture.waitForRequests(1);
		const started = Date.now();
		await heartbeat.stop();
		assert.ok(Date.now() - started < 500);
		await sleep(100); // a window in which no beat may be sent: that is what is asserted
		assert.equal(capture.requests.length, 1);
	});
});

describe('in the running service', () => {
	test('sends the live status to STATUS_API_URL when SERVICE_STATUS_API_KEY is set, and stops with it', async () => {
		const env = testEnv({ SERVICE_STATUS_API_KEY: KEY, STATUS_API_URL: `${capture.url}/api/status`, STATUS_HEARTBEAT_INTERVAL_MS: '200' });
		const haven = await startTestHaven(env);
		try {
			const [first] = await capture.waitForRequests(2, 5_000);
			assert.equal(first!.body.apiKey, KEY);
			assert.equal(first!.body.status, 'degraded');
			assert.equal(first!.body.shardCount, 0);
			assert.equal(first!.body.guilds, 0);
			assert.equal(typeof first!.body.version, 'string');
			assert.ok(Number.isInteger(first!.body.uptimeSeconds));
		} finally {
			await haven.stop();
			await dropDatabase(env.DATABASE_URL);
		}
		const count = capture.requests.length;
		await sleep(400); // two intervals in which no beat may be sent: that is what is asserted
		assert.equal(capture.requests.length, count, 'no beats after shutdown');
	});
});
