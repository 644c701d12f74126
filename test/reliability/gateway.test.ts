// Discord gateway faults with two shards on the fake Discord: a shard that cannot connect at startup, a dropped
// connection (resume), an invalidated session (identify again), one shard of two down. /healthz keeps answering and
// /v1/status tells the truth at each step (starting, degraded, ok), every answer consistent with its own shard list;
// interactions keep flowing on the healthy shard and none is ever answered twice.
import assert from 'node:assert/strict';
import { chmodSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.ts';
import { dropDatabase, freePort, testEnv } from '../support/env.ts';
import { shardOf, snowflakeAt, startFakeDiscord, type FakeDiscord, type SentInteraction } from '../support/fake-discord.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { waitReady, worldGuilds } from '../bot/support.ts';
import { scrape, total, until } from './support.ts';

interface Shard {
	id: number;
	state: string;
	lastReady: string | null;
	resumes: number;
}
interface Status {
	status: 'ok' | 'degraded' | 'starting';
	shardCount: number;
	shards: Shard[];
}

const API_TOKEN = 'gateway-token-0123456789';
let fake: FakeDiscord;
let capture: CaptureServer;
let haven: TestHaven;
let env: Record<string, string | undefined>;
let base: string;
let nextUser = 1;
const someone = () => snowflakeAt(1_497_000_000_000, nextUser++);
const observed: Status[] = [];
const interactions: SentInteraction[] = [];

/** One GET /v1/status, checked for consistency with its own shards and kept for the final tally. */
async function status(): Promise<Status> {
	const response = await fetch(`${base}/v1/status`);
	assert.equal(response.status, 200);
	const body = (await response.json()) as Status;
	const allReadyOnce = body.shards.length > 0 && body.shards.every((shard) => shard.lastReady !== null);
	const allReady = body.shards.every((shard) => shard.state === 'ready');
	const expected = !allReadyOnce ? 'starting' : allReady ? 'ok' : 'degraded';
	assert.equal(body.status, expected, `inconsistent status: ${JSON.stringify(body)}`);
	observed.push(body);
	return body;
}

const untilStatus = (check: (s: Status) => boolean, what: string, timeoutMs = 15_000) =>
	until(async () => ((s) => (check(s) ? s : undefined))(await status()), what, timeoutMs, 40);

/** A slash command in a guild on `shard`, tracked for the answered-once check. */
function command(shard: number): SentInteraction {
	const guildId = fake.guilds.ids.find((id) => shardOf(id, 2) === shard)!;
	const ix = fake.sendSlashCommand({ name: 'about', userId: someone(), guildId });
	interactions.push(ix);
	return ix;
}

before(async () => {
	capture = await startCaptureServer();
	capture.setResponse(200, 0, { tag_name: 'v0.3.0', html_url: 'https://example.test/r', published_at: '2026-11-01T10:00:00Z' });
	fake = await startFakeDiscord({ shardCount: 2, guilds: worldGuilds(3), heartbeatIntervalMs: 250 });
	const port = await freePort();
	base = `http://127.0.0.1:${port}`;
	env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		GITHUB_API_URL: capture.url,
		GITHUB_REPO: 'haven-wellbeing/haven',
		HAVEN_VERSION: 'v0.3.0',
		API_TOKEN,
		PORT: String(port),
		// /v1/status is polled every 40 ms: with the default 60 a minute, a slow run would meet 429s.
		RATE_LIMIT_PER_MINUTE: '1000000',
	});
	if (env.DATA_DIR) chmodSync(env.DATA_DIR, 0o711);
});

after(async () => {
	await haven?.stop();
	await fake?.close();
	await capture?.close();
	await dropDatabase(env?.DATABASE_URL);
	if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

describe('gateway faults and /v1/status', () => {
	test('a shard that cannot connect at startup: the API answers meanwhile and says "starting"; then ok', async () => {
		fake.setShardDown(1, true);
		const starting = startTestHaven(env);
		const early = await untilStatus((s) => s.status === 'starting', 'the API to answer during the gateway login', 30_000);
		assert.equal((await fetch(`${base}/healthz`)).status, 200);
		assert.equal(early.status, 'starting');
		await until(async () => ((await status()).shards.find((s) => s.id === 0)?.lastReady ? true : undefined), 'shard 0 ready');
		assert.equal((await status()).status, 'starting', 'still starting while shard 1 has never been ready');
		fake.setShardDown(1, false);
		haven = await starting;
		await waitReady(haven.client!);
		const ok = await untilStatus((s) => s.status === 'ok', 'ok');
		assert.deepEqual(
			ok.shards.map((s) => s.state),
			['ready', 'ready'],
		);
		assert.equal(total(await scrape(base, API_TOKEN), 'haven_bot_status', { status: 'ok' }), 1);
	});

	test('a dropped connection: resumed, resumes counted, an interaction sent just before is answered once', async () => {
		const before = command(0);
		await before.callback(5_000);
		const lastReady = (await status()).shards[0]!.lastReady;
		fake.dropConnection(0);
		const back = await untilStatus((s) => s.status === 'ok' && s.shards[0]!.resumes === 1, 'shard 0 resumed');
		assert.equal(back.shards[0]!.lastReady, lastReady, 'a resume is not a new session');
		assert.equal(fake.resumeCount(0), 1);
		await command(0).callback(5_000);
	});

	test('one shard of two down: degraded while it is, interactions flow on the other; back: ok', async () => {
		fake.setShardDown(1, true);
		const degraded = await untilStatus((s) => s.status === 'degraded', 'degraded');
		assert.equal(degraded.shards[0]!.state, 'ready');
		assert.notEqual(degraded.shards[1]!.state, 'ready');
		const samples = await scrape(base, API_TOKEN);
		assert.equal(total(samples, 'haven_bot_status', { status: 'degraded' }), 1);
		assert.equal(total(samples, 'haven_shard_ready', { shard: '1' }), 0);
		assert.equal(total(samples, 'haven_shard_ready', { shard: '0' }), 1);
		await command(0).callback(5_000);
		fake.setShardDown(1, false);
		const ok = await untilStatus((s) => s.status === 'ok' && s.shards[1]!.resumes === 1, 'shard 1 resumed');
		assert.equal(ok.shards[0]!.resumes, 1);
		await command(1).callback(5_000);
	});

	test('an invalidated session: identified again (a new session), degraded meanwhile, then ok', async () => {
		const identifies = fake.identifyCount(0);
		const lastReady = (await status()).shards[0]!.lastReady;
		const inFlight = command(0);
		fake.invalidateSession(0);
		await inFlight.callback(5_000);
		const fresh = await untilStatus((s) => s.status === 'ok' && s.shards[0]!.lastReady !== lastReady, 'a new session on shard 0', 20_000);
		assert.equal(fake.identifyCount(0), identifies + 1);
		assert.ok(Date.parse(fresh.shards[0]!.lastReady!) > Date.parse(lastReady!));
		assert.ok(
			observed.some((s) => s.status === 'degraded' && s.shards[0]!.state !== 'ready'),
			'degraded was seen while it re-identified',
		);
		await command(0).callback(5_000);
	});

	test('no interaction was answered twice; every one was answered', async () => {
		for (const ix of interactions) {
			const callbacks = fake.requests.filter((r) => r.method === 'POST' && r.path === `/interactions/${ix.id}/${ix.token}/callback`);
			assert.equal(callbacks.length, 1, `interaction ${ix.id}: ${callbacks.length} callbacks`);
			assert.equal(callbacks[0]!.status, 204, 'accepted by Discord (in time, first answer)');
		}
		assert.equal(interactions.length, 6);
		const seen = new Set(observed.map((s) => s.status));
		assert.deepEqual([...seen].sort(), ['degraded', 'ok', 'starting']);
	});
});
