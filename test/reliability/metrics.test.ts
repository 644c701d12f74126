// GET /metrics over real HTTP: protected by METRICS_TOKEN (or API_TOKEN), Prometheus text from a registry of this
// Haven's own; request counts and latencies by route template and status, rate-limit rejections, interactions by
// command and outcome, crisis screens by level (no content), AI calls by outcome, database pool and reachability,
// shard and bot status, prom-client's default process metrics. A restart starts from a fresh registry and nothing
// lands in prom-client's global one.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Command, container } from '@sapphire/framework';
import { MessageFlags } from 'discord.js';
import { register as globalRegistry } from 'prom-client';
import { HavenCommand } from '../../src/lib/discord/command.ts';
import { safetyOutcomes } from '../../src/lib/safety/flows.ts';
import { slash, startBotWorld, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { has, parseMetrics, scrape, total, type Sample } from './support.ts';

const API_TOKEN = 'api-token-for-metrics-0123';
const METRICS_TOKEN = 'metrics-token-0123456789';
const CRISIS = 'I want to kill myself tonight';
const FEEDBACK_TEXT = 'a private note about the metrics test';
let nextUser = 1;
const someone = () => snowflakeAt(1_480_000_000_000, nextUser++);

let openai: FakeOpenAi;
let world: BotWorld;

class SlowFailure extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, { name: 'metrics-boom', description: 'Fails', category: 'Test', access: 'everyone', cooldownSeconds: 0, options: [] });
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		throw new Error('a failure for the metrics test');
	}
}

before(async () => {
	openai = await startFakeOpenAi();
	world = await startBotWorld({
		env: {
			API_TOKEN,
			METRICS_TOKEN,
			OPENAI_API_KEY: 'sk-fake',
			OPENAI_BASE_URL: openai.url,
			OPENAI_TIMEOUT_MS: '1000',
			TRUST_PROXY: '1',
			RATE_LIMIT_PER_MINUTE: '40',
			RATE_LIMIT_FEEDBACK_PER_MINUTE: '2',
		},
	});
	await container.stores.loadPiece({ store: 'commands', name: 'metrics-boom', piece: SlowFailure });
});

after(async () => {
	await world?.close();
	await openai?.close();
});

const url = (path: string) => `${world.haven.url}${path}`;
/** Requests from distinct client addresses (TRUST_PROXY=1), so the per-address limit only bites where meant to. */
let nextIp = 1;
const fresh = () => ({ 'x-forwarded-for': `198.51.100.${nextIp++}` });
const metrics = () => scrape(world.haven.url, METRICS_TOKEN);

describe('GET /metrics', () => {
	test('needs METRICS_TOKEN when it is set (API_TOKEN is not enough); answers Prometheus text', async () => {
		const none = await fetch(url('/metrics'), { headers: fresh() });
		assert.equal(none.status, 401);
		assert.deepEqual(await none.json(), { error: 'Missing bearer token' });
		const api = await fetch(url('/metrics'), { headers: { ...fresh(), authorization: `Bearer ${API_TOKEN}` } });
		assert.equal(api.status, 401);
		const ok = await fetch(url('/metrics'), { headers: { ...fresh(), authorization: `Bearer ${METRICS_TOKEN}` } });
		assert.equal(ok.status, 200);
		assert.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
		assert.equal(ok.headers.get('cache-control'), 'no-store');
		const samples = parseMetrics(await ok.text());
		assert.equal(total(samples, 'haven_build_info', { version: 'v0.3.0' }), 1);
		assert.ok(total(samples, 'process_resident_memory_bytes') > 0);
		const doc = (await (await fetch(url('/openapi.json'), { headers: fresh() })).json()) as { paths: Record<string, unknown> };
		assert.equal(doc.paths['/metrics'], undefined, 'operator endpoint, not part of the public API document');
	});

	test('HTTP requests by method, route template and status; never a raw path', async () => {
		await fetch(url('/v1/testimonials?limit=5'), { headers: fresh() });
		await fetch(url('/v1/testimonials?limit=500'), { headers: fresh() });
		await fetch(url('/docs/swagger-ui.css'), { headers: fresh() });
		await fetch(url('/v1/feedback/123456789012345678/secret-path'), { headers: fresh() });
		await fetch(url('/v1/stats'), { method: 'DELETE', headers: fresh() });
		const accepted = await fetch(url('/v1/feedback'), {
			method: 'POST',
			headers: { ...fresh(), authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
			body: JSON.stringify({ userId: someone(), message: FEEDBACK_TEXT }),
		});
		assert.equal(accepted.status, 202);
		// A request the HTTP parser refuses never reaches a route: counted as "unparsed".
		const socket = net.connect(Number(new URL(world.haven.url).port), '127.0.0.1');
		socket.end('GET /v1/stats HTTP/1.1\r\nBad Header: x\r\n\r\n');
		socket.resume();
		await once(socket, 'close');

		const samples = await metrics();
		assert.equal(total(samples, 'haven_http_requests_total', { method: 'GET', route: '/v1/testimonials', status: '200' }), 1);
		assert.equal(total(samples, 'haven_http_requests_total', { method: 'GET', route: '/v1/testimonials', status: '400' }), 1);
		assert.equal(total(samples, 'haven_http_requests_total', { method: 'GET', route: '/docs/{file}', status: '200' }), 1);
		assert.equal(total(samples, 'haven_http_requests_total', { method: 'POST', route: '/v1/feedback', status: '202' }), 1);
		assert.ok(total(samples, 'haven_http_requests_total', { route: 'unmatched', status: '404' }) >= 1);
		assert.equal(total(samples, 'haven_http_requests_total', { method: 'DELETE', route: 'unmatched', status: '405' }), 1);
		assert.equal(total(samples, 'haven_http_requests_total', { route: 'unparsed', status: '400' }), 1);
		assert.equal(total(samples, 'haven_http_request_duration_seconds_count', { route: '/v1/feedback', status: '202' }), 1);
		assert.equal(total(samples, 'haven_http_request_duration_seconds_bucket', { route: '/v1/feedback', status: '202', le: '+Inf' }), 1);
		const routes = new Set(samples.filter((s) => s.name === 'haven_http_requests_total').map((s) => s.labels.route));
		for (const route of routes) assert.match(route!, /^(unmatched|unparsed|\/[a-z0-9./{}-]*)$/, `route label ${route}`);
		assert.ok(![...routes].some((route) => route!.includes('123456789012345678')), 'no ids from raw URLs');
		assert.equal(total(samples, 'haven_http_requests_in_flight'), 1, 'the scrape itself');
	});

	test('rate-limit rejections by route and by the limit that refused', async () => {
		const headers = { ...fresh(), authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' };
		const statuses: number[] = [];
		for (let i = 0; i < 3; i++) {
			const body = JSON.stringify({ userId: someone(), message: `feedback number ${i}` });
			statuses.push((await fetch(url('/v1/feedback'), { method: 'POST', headers, body })).status);
		}
		assert.deepEqual(statuses, [202, 202, 429]);
		const flood = fresh();
		for (let i = 0; i < 41; i++) await (await fetch(url('/healthz'), { headers: flood })).text();
		const samples = await metrics();
		assert.equal(total(samples, 'haven_http_rate_limited_total', { route: '/v1/feedback', limit: 'feedback' }), 1);
		assert.equal(total(samples, 'haven_http_rate_limited_total', { route: '/healthz', limit: 'all' }), 1);
		assert.equal(total(samples, 'haven_http_requests_total', { route: '/healthz', status: '429' }), 1);
	});

	test('interactions by command, type and outcome, with latency', async () => {
		const user = someone();
		await slash(world.fake, { name: 'about', userId: user });
		await slash(world.fake, { name: 'ping', userId: user });
		await slash(world.fake, { name: 'ping', userId: user }); // within the cooldown: denied
		const logError = container.logger.error;
		container.logger.error = () => undefined; // the failure is the point here
		try {
			const failing = world.fake.sendSlashCommand({ name: 'metrics-boom', userId: user });
			await failing.edit();
		} finally {
			container.logger.error = logError;
		}
		const samples = await metrics();
		assert.equal(total(samples, 'haven_interactions_total', { command: 'about', type: 'chat_input', outcome: 'success' }), 1);
		assert.equal(total(samples, 'haven_interactions_total', { command: 'ping', outcome: 'success' }), 1);
		assert.equal(total(samples, 'haven_interactions_total', { command: 'ping', outcome: 'denied' }), 1);
		assert.equal(total(samples, 'haven_interactions_total', { command: 'metrics-boom', outcome: 'error' }), 1);
		assert.equal(total(samples, 'haven_interaction_duration_seconds_count', { command: 'about', outcome: 'success' }), 1);
		assert.equal(total(samples, 'haven_interaction_duration_seconds_count', { command: 'metrics-boom', outcome: 'error' }), 1);
	});

	test('crisis screens by level and surface, AI calls by outcome; no content anywhere', async () => {
		const chat = (message: string) =>
			fetch(url('/v1/chat'), {
				method: 'POST',
				headers: { ...fresh(), authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
				body: JSON.stringify({ message }),
			});
		assert.equal((await chat('I had a nice walk today')).status, 200);
		assert.equal((await chat(CRISIS)).status, 200);
		openai.mode = 'fail';
		assert.equal((await chat('a plain question for a failing provider')).status, 502);
		openai.mode = 'rate_limit';
		openai.retryAfter = '60';
		assert.equal((await chat('a plain question for a busy provider')).status, 502);
		openai.reset();

		const user = someone();
		const done = once(safetyOutcomes, 'message');
		world.fake.sendMessage({ authorId: user, dm: true, content: CRISIS });
		await done;
		const command = once(safetyOutcomes, 'command');
		await slash(world.fake, { name: 'crisis', userId: someone(), options: { message: CRISIS } });
		await command;

		const response = await fetch(url('/metrics'), { headers: { ...fresh(), authorization: `Bearer ${METRICS_TOKEN}` } });
		const text = await response.text();
		const samples = parseMetrics(text);
		assert.equal(total(samples, 'haven_crisis_screens_total', { surface: 'api', level: 'none' }), 3);
		const apiCrisis = samples.filter((s) => s.name === 'haven_crisis_screens_total' && s.labels.surface === 'api' && s.labels.level !== 'none');
		assert.equal(
			apiCrisis.reduce((sum, s) => sum + s.value, 0),
			1,
		);
		assert.match(apiCrisis[0]!.labels.level!, /^(concern|high|imminent)$/);
		for (const surface of ['message', 'command']) {
			assert.ok(
				samples.some((s) => s.name === 'haven_crisis_screens_total' && s.labels.surface === surface && s.labels.level !== 'none'),
				surface,
			);
		}
		assert.ok(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'ok' }) >= 2);
		assert.equal(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'failed' }), 1);
		assert.equal(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'rate_limited' }), 1);
		assert.ok(total(samples, 'haven_ai_request_duration_seconds_count', { operation: 'complete' }) >= 4);
		for (const secret of [CRISIS, 'kill', FEEDBACK_TEXT, user, 'nice walk']) assert.ok(!text.includes(secret), `metrics leak "${secret}"`);
	});

	test('database pool and reachability, shards and bot status, read at scrape time', async () => {
		const samples: Sample[] = await metrics();
		assert.equal(total(samples, 'haven_db_up'), 1);
		assert.equal(total(samples, 'haven_db_pool_max_connections'), 10);
		assert.ok(has(samples, 'haven_db_pool_connections', { state: 'idle' }));
		assert.ok(has(samples, 'haven_db_pool_waiting'));
		assert.equal(total(samples, 'haven_shard_ready', { shard: '0' }), 1);
		assert.equal(total(samples, 'haven_shard_state', { shard: '0', state: 'ready' }), 1);
		assert.equal(total(samples, 'haven_shard_guilds', { shard: '0' }), 2);
		assert.equal(total(samples, 'haven_bot_status', { status: 'ok' }), 1);
		assert.equal(total(samples, 'haven_bot_status', { status: 'degraded' }), 0);
		assert.ok(has(samples, 'nodejs_eventloop_lag_p99_seconds'));
		assert.ok(has(samples, 'nodejs_heap_size_used_bytes'));
		assert.ok(total(samples, 'process_cpu_seconds_total') > 0);
		assert.ok(total(samples, 'process_start_time_seconds') > 1_600_000_000);
	});

	test("a restart starts a fresh registry; prom-client's global registry stays empty", async () => {
		const before = await metrics();
		assert.ok(total(before, 'haven_http_requests_total', { route: '/v1/testimonials' }) > 0);
		await world.restart({ METRICS_TOKEN: undefined });
		const after = await scrape(world.haven.url, API_TOKEN);
		assert.equal(total(after, 'haven_http_requests_total', { route: '/v1/testimonials' }), 0);
		assert.ok(total(after, 'process_resident_memory_bytes') > 0, 'process metrics in the new registry too');
		assert.equal(globalRegistry.getMetricsAsArray().length, 0);

		await world.restart({ METRICS_TOKEN: undefined, API_TOKEN: undefined });
		const disabled = await fetch(url('/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
		assert.equal(disabled.status, 503);
		assert.deepEqual(await disabled.json(), { error: 'This endpoint is disabled: the server has no METRICS_TOKEN or API_TOKEN configured' });
	});
});
