import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CAREFUL_ADDENDUM, HAVEN_SYSTEM_PROMPT } from '../../src/lib/ai/index.ts';
import { MAX_BODY_BYTES } from '../../src/lib/api/schemas.ts';
import { approveFeedback, listFeedback, rejectFeedback } from '../../src/lib/feedback/store.ts';
import { renderCrisisReply } from '../../src/lib/crisis/resources.ts';
import { screen } from '../../src/lib/crisis/screen.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { FAKE_SECRET, startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { documentedResponse, request, schemaProblems, type Reply, type Send } from './support.ts';

const run = promisify(execFile);
const TOKEN = 'test-api-token-0123456789';
const KEY = 'a'.repeat(64);
const WEBSITE = 'https://haven.test';
const CRISIS = 'I want to kill myself tonight';

let fake: FakeOpenAi;
let haven: TestHaven;
let env: Record<string, string | undefined>;
let doc: any;
const seen: { method: string; path: string; status: number }[] = [];

/** A request whose answer must be documented: its status listed for the operation, its body valid against the schema. */
async function call(method: string, path: string, send: Send = {}): Promise<Reply> {
	const reply = await request(haven.url, method, path, send);
	assert.notEqual(reply.status, 500, `${method} ${path} answered 500: ${reply.text}`);
	assert.match(String(reply.headers['content-type']), /^application\/json; charset=utf-8$/);
	assert.equal(typeof reply.json, 'object', `${method} ${path}: not JSON: ${reply.text}`);
	if (reply.status >= 400) assert.deepEqual(Object.keys(reply.json), ['error']);
	const template = path.split('?')[0]!;
	const documented = documentedResponse(doc, method, template, reply.status);
	assert.ok(documented, `${method} ${template} answered ${reply.status}, which the OpenAPI document does not list`);
	assert.deepEqual(schemaProblems(documented.schema ?? {}, reply.json, doc), [], `${method} ${path} ${reply.status}: ${reply.text}`);
	seen.push({ method, path: template, status: reply.status });
	return reply;
}

const sql = (query: string, params: unknown[] = []) => haven.db.orm.em.getConnection().execute(query, params);
const stats = async () => (await call('GET', '/v1/stats')).json as Record<string, number>;

/** The same database for the CLI: the URL, or for the embedded server the Unix socket it listens on. */
function cliDatabaseUrl(): string {
	if (env.DATABASE_URL) return env.DATABASE_URL;
	const config = haven.db.orm.config;
	return `postgresql://${config.get('user')}@${encodeURIComponent(String(config.get('host')))}:${config.get('port')}/${config.get('dbName')}`;
}

async function cli(...args: string[]): Promise<any> {
	const { stdout } = await run(process.execPath, ['src/cli/haven.ts', 'feedback', ...args, '--json'], {
		env: { ...process.env, ...env, DATABASE_URL: cliDatabaseUrl() } as NodeJS.ProcessEnv,
		cwd: new URL('../../', import.meta.url),
	});
	return JSON.parse(stdout);
}

before(async () => {
	fake = await startFakeOpenAi();
	env = testEnv({
		API_TOKEN: TOKEN,
		OPENAI_API_KEY: 'sk-fake',
		OPENAI_BASE_URL: fake.url,
		OPENAI_TIMEOUT_MS: '600',
		ENCRYPTION_KEY: KEY,
		WEBSITE_URL: WEBSITE,
		STATS_CACHE_MS: '0',
		RATE_LIMIT_PER_MINUTE: '100000',
		RATE_LIMIT_CHAT_PER_MINUTE: '100000',
		RATE_LIMIT_FEEDBACK_PER_MINUTE: '100000',
	});
	haven = await startTestHaven(env);
	doc = (await request(haven.url, 'GET', '/openapi.json')).json;
	// Servers: two present, one gone; counted before the first stats read caches the number.
	await sql(
		`insert into guilds (id, joined_at, updated_at, left_at) values ('100000000000000001', now(), now(), null), ('100000000000000002', now(), now(), null), ('100000000000000003', now(), now(), now())`,
	);
});

after(async () => {
	await haven?.stop();
	await fake?.close();
	await dropDatabase(env?.DATABASE_URL);
});

describe('OpenAPI document', () => {
	test('is a valid OpenAPI 3.1 document with every endpoint, the bearer scheme and the build version', async () => {
		const validator = new Validator();
		const result = await validator.validate(structuredClone(doc));
		assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
		assert.equal(doc.openapi, '3.1.0');
		assert.deepEqual(Object.keys(doc.paths).sort(), [
			'/docs',
			'/healthz',
			'/openapi.json',
			'/v1/chat',
			'/v1/feedback',
			'/v1/stats',
			'/v1/status',
			'/v1/testimonials',
		]);
		assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: 'The API_TOKEN of the server.' });
		for (const path of ['/v1/chat', '/v1/feedback']) {
			const op = doc.paths[path].post;
			assert.deepEqual(op.security, [{ bearerAuth: [] }]);
			for (const status of ['400', '401', '413', '415', '429', '503']) assert.ok(op.responses[status], `${path} documents ${status}`);
			assert.equal(op.responses['400'].content['application/json'].schema.$ref, '#/components/schemas/Error');
		}
		assert.ok(doc.paths['/v1/chat'].post.responses['502']);
		assert.ok(doc.paths['/v1/chat'].post.responses['200']);
		assert.ok(doc.paths['/v1/feedback'].post.responses['202']);
		for (const path of ['/healthz', '/v1/stats', '/v1/status', '/v1/testimonials']) {
			assert.equal(doc.paths[path].get.security, undefined);
			assert.ok(doc.paths[path].get.responses['429'].headers['Retry-After']);
		}
		const status = (await call('GET', '/v1/status')).json;
		assert.equal(doc.info.version, status.version);
	});
});

describe('GET endpoints', () => {
	test('/healthz answers ok with security headers and rate-limit headers', async () => {
		const reply = await call('GET', '/healthz');
		assert.equal(reply.status, 200);
		assert.deepEqual(reply.json, { status: 'ok' });
		assert.equal(reply.headers['x-content-type-options'], 'nosniff');
		assert.equal(reply.headers['cache-control'], 'no-store');
		assert.match(String(reply.headers['content-security-policy']), /default-src 'none'/);
		assert.equal(reply.headers['access-control-allow-origin'], WEBSITE);
		assert.equal(reply.headers['ratelimit-limit'], '100000');
		assert.ok(Number(reply.headers['ratelimit-remaining']) > 0);
		assert.ok(Number(reply.headers['ratelimit-reset']) >= 1 && Number(reply.headers['ratelimit-reset']) <= 60);
	});

	test('/v1/stats counts from the counters and the servers not left', async () => {
		const before = await stats();
		assert.deepEqual(before, { users: 0, guilds: 2, conversations: 0, moodCheckIns: 0, crisisEvents: 0 });
		await sql(`insert into users (id, created_at, updated_at) select (200000000000000000 + g)::text, now(), now() from generate_series(1, 3) g`);
		await sql(
			`insert into mood_check_ins (user_id, mood, intensity, created_at) select '200000000000000001', 'calm', 3, now() from generate_series(1, 4)`,
		);
		// Deleting rows never lowers a lifetime total.
		await sql(`delete from mood_check_ins where id = (select min(id) from mood_check_ins)`);
		assert.deepEqual(await stats(), { users: 3, guilds: 2, conversations: 0, moodCheckIns: 4, crisisEvents: 0 });
	});

	test('/v1/status reports API-only mode truthfully', async () => {
		const started = Date.now();
		const reply = await call('GET', '/v1/status');
		assert.equal(reply.status, 200);
		const body = reply.json;
		assert.equal(body.status, 'degraded');
		assert.equal(body.shardCount, 0);
		assert.deepEqual(body.shards, []);
		assert.equal(body.guilds, 2);
		assert.ok(Math.abs(Date.parse(body.generatedAt) - started) < 5_000);
		assert.ok(Date.parse(body.startedAt) <= Date.parse(body.generatedAt));
		assert.ok(Number.isInteger(body.uptimeSeconds) && body.uptimeSeconds >= 0);
		assert.equal(typeof body.version, 'string');
		assert.ok(body.version.length > 0);
	});

	test('/v1/testimonials validates limit', async () => {
		assert.deepEqual((await call('GET', '/v1/testimonials')).json, []);
		for (const limit of ['0', '101', 'abc', '1.5', '-3']) {
			const reply = await call('GET', `/v1/testimonials?limit=${limit}`);
			assert.equal(reply.status, 400, limit);
			assert.match(reply.json.error, /limit/);
		}
		assert.equal((await call('GET', '/v1/testimonials?limit=100')).status, 200);
	});
});

describe('POST /v1/chat', () => {
	test("answers one message with Haven's prompt and counts the conversation", async () => {
		fake.reset();
		const before = await stats();
		const reply = await call('POST', '/v1/chat', { token: TOKEN, body: { message: '  I had a rough day at work  ' } });
		assert.equal(reply.status, 200);
		assert.deepEqual(reply.json, { reply: 'I hear you. That sounds like a lot to carry.' });
		const [sent] = fake.requests;
		assert.equal(sent?.body.messages[0].role, 'system');
		assert.ok(sent?.body.messages[0].content.startsWith(HAVEN_SYSTEM_PROMPT));
		assert.ok(!sent?.body.messages[0].content.includes(CAREFUL_ADDENDUM));
		assert.deepEqual(sent?.body.messages.slice(1), [{ role: 'user', content: 'I had a rough day at work' }]);
		assert.equal((await stats()).conversations, before.conversations + 1);
	});

	test('400 for a missing, non-string, blank or too long message, or a body that is not an object', async () => {
		const cases: [unknown, RegExp][] = [
			[{}, /message is required/],
			[{ text: 'hi' }, /message is required/],
			[{ message: 42 }, /message must be a string/],
			[{ message: null }, /message must be a string/],
			[{ message: '   \n\t ' }, /must not be blank/],
			[{ message: 'x'.repeat(2001) }, /at most 2000/],
			[[{ message: 'hi' }], /JSON object/],
			['"hi"', /JSON object/],
			['null', /JSON object/],
		];
		for (const [body, error] of cases) {
			const reply = await call('POST', '/v1/chat', {
				token: TOKEN,
				body: body as string | object,
				headers: { 'content-type': 'application/json' },
			});
			assert.equal(reply.status, 400, JSON.stringify(body));
			assert.match(reply.json.error, error);
		}
		assert.equal((await call('POST', '/v1/chat', { token: TOKEN, body: { message: 'x'.repeat(2000) } })).status, 200);
	});

	test('401 without a valid bearer token', async () => {
		for (const headers of [
			{},
			{ authorization: `Bearer ${TOKEN}x` },
			{ authorization: `Basic ${TOKEN}` },
			{ authorization: 'Bearer' },
			{ authorization: `bearer ${TOKEN.slice(0, -1)}` },
		] as Record<string, string>[]) {
			const reply = await call('POST', '/v1/chat', { body: { message: 'hi' }, headers: { 'content-type': 'application/json', ...headers } });
			assert.equal(reply.status, 401, JSON.stringify(headers));
			assert.equal(reply.headers['www-authenticate'], 'Bearer realm="haven"');
		}
		// The scheme is case-insensitive.
		assert.equal(
			(
				await call('POST', '/v1/chat', {
					body: { message: 'hi' },
					headers: { 'content-type': 'application/json', authorization: `bearer ${TOKEN}` },
				})
			).status,
			200,
		);
	});

	test('502 when the provider fails or stalls, without its error text', async () => {
		const before = await stats();
		for (const mode of ['fail', 'rate_limit', 'garbage'] as const) {
			fake.reset();
			fake.mode = mode;
			const reply = await call('POST', '/v1/chat', { token: TOKEN, body: { message: 'hello' } });
			assert.equal(reply.status, 502, mode);
			assert.ok(!reply.text.includes('SECRET') && !reply.text.includes(FAKE_SECRET), reply.text);
		}
		fake.reset();
		fake.mode = 'stall';
		const started = Date.now();
		const reply = await call('POST', '/v1/chat', { token: TOKEN, body: { message: 'hello' } });
		assert.equal(reply.status, 502);
		assert.ok(Date.now() - started < 3_000, 'bounded by OPENAI_TIMEOUT_MS');
		fake.reset();
		assert.equal((await stats()).conversations, before.conversations, 'unanswered messages are not conversations');
	});

	test('a crisis message gets the resources first, then a careful AI reply, and is counted', async () => {
		fake.reset();
		const before = await stats();
		const reply = await call('POST', '/v1/chat', { token: TOKEN, body: { message: CRISIS } });
		assert.equal(reply.status, 200);
		const resources = renderCrisisReply(screen(CRISIS), null);
		assert.ok(reply.json.reply.startsWith(resources), reply.json.reply);
		assert.ok(reply.json.reply.endsWith('I hear you. That sounds like a lot to carry.'));
		assert.ok(fake.requests[0]?.body.messages[0].content.includes(CAREFUL_ADDENDUM));
		const after = await stats();
		assert.equal(after.crisisEvents, before.crisisEvents + 1);
		assert.equal(after.conversations, before.conversations + 1);
		const rows = await sql(`select trigger, guild_id, user_id, details, level from crisis_events order by id desc limit 1`);
		assert.deepEqual(rows[0], { trigger: 'api', guild_id: null, user_id: null, details: null, level: screen(CRISIS).level });
	});

	test('a crisis message still gets 200 with the resources when the provider fails', async () => {
		for (const mode of ['fail', 'stall'] as const) {
			fake.reset();
			fake.mode = mode;
			const before = await stats();
			const reply = await call('POST', '/v1/chat', { token: TOKEN, body: { message: CRISIS } });
			assert.equal(reply.status, 200, mode);
			assert.equal(reply.json.reply, renderCrisisReply(screen(CRISIS), null));
			assert.equal((await stats()).crisisEvents, before.crisisEvents + 1);
		}
		fake.reset();
	});
});

describe('POST /v1/feedback and the review queue', () => {
	const USER = '123456789012345678';

	test('400 for a bad userId or message; 401 without the token', async () => {
		const cases: [object, RegExp][] = [
			[{ message: 'thank you' }, /userId is required/],
			[{ userId: 123456789012345680, message: 'thank you' }, /userId must be a string/],
			[{ userId: '1234', message: 'thank you' }, /Discord user ID/],
			[{ userId: 'abcdefghijklmnopqr', message: 'thank you' }, /Discord user ID/],
			[{ userId: '012345678901234567', message: 'thank you' }, /Discord user ID/],
			[{ userId: '123456789012345678901', message: 'thank you' }, /Discord user ID/],
			[{ userId: '18446744073709551616', message: 'thank you' }, /Discord user ID/],
			[{ userId: USER }, /message is required/],
			[{ userId: USER, message: '  hi  ' }, /at least 3/],
			[{ userId: USER, message: 'x'.repeat(2001) }, /at most 2000/],
		];
		for (const [body, error] of cases) {
			const reply = await call('POST', '/v1/feedback', { token: TOKEN, body });
			assert.equal(reply.status, 400, JSON.stringify(body));
			assert.match(reply.json.error, error);
		}
		assert.equal((await call('POST', '/v1/feedback', { body: { userId: USER, message: 'thank you' } })).status, 401);
		assert.equal((await call('POST', '/v1/feedback', { token: 'nope', body: { userId: USER, message: 'thank you' } })).status, 401);
		assert.equal((await call('POST', '/v1/feedback', { token: TOKEN, body: { userId: '18446744073709551615', message: 'max id' } })).status, 202);
		await sql(`delete from feedback`);
	});

	test('202 stores it encrypted in the queue; the CLI approves it as public and it becomes a testimonial', async () => {
		const message = 'Haven helped me through a hard week. Thank you!';
		const reply = await call('POST', '/v1/feedback', { token: TOKEN, body: { userId: USER, message: `  ${message}  ` } });
		assert.equal(reply.status, 202);
		assert.deepEqual(reply.json, { status: 'received' });

		const [row] = await sql(`select id, message, status, public, featured, source from feedback`);
		assert.ok(row.message.startsWith('hv2:'), 'encrypted at rest');
		assert.ok(!row.message.includes('hard week'));
		assert.deepEqual(
			{ ...row, message: undefined, id: undefined },
			{ id: undefined, message: undefined, status: 'queued', public: false, featured: false, source: 'api' },
		);

		const queue = await cli('list');
		assert.equal(queue.length, 1);
		assert.equal(queue[0].message, message);
		assert.equal(queue[0].status, 'queued');
		assert.deepEqual((await call('GET', '/v1/testimonials')).json, [], 'queued feedback is not public');

		const approved = await cli('approve', String(row.id), '--public');
		assert.equal(approved.status, 'approved');
		assert.equal(approved.public, true);
		const testimonials = (await call('GET', '/v1/testimonials')).json;
		assert.deepEqual(
			testimonials.map((t: any) => ({ message: t.message, featured: t.featured })),
			[{ message, featured: false }],
		);
		assert.ok(Math.abs(Date.parse(testimonials[0].createdAt) - Date.now()) < 60_000);
	});

	test('private approvals and rejections never show; featured come first, then newest', async () => {
		const em = () => haven.db.orm.em.fork();
		const post = async (message: string) => {
			assert.equal((await call('POST', '/v1/feedback', { token: TOKEN, body: { userId: USER, message } })).status, 202);
			const [row] = await sql(`select id from feedback order by id desc limit 1`);
			return Number(row.id);
		};
		const privateId = await post('Approved but private');
		const rejectedId = await post('Rejected one');
		const older = await post('Older public one');
		const newer = await post('Newer public one');
		await approveFeedback(em(), privateId);
		await approveFeedback(em(), older, { public: true, featured: true });
		await approveFeedback(em(), newer, { public: true });
		const messages = async (query = '') => (await call('GET', `/v1/testimonials${query}`)).json.map((t: any) => t.message);
		const first = 'Haven helped me through a hard week. Thank you!';
		assert.deepEqual(await messages(), ['Older public one', 'Newer public one', first]);
		assert.deepEqual(await messages('?limit=1'), ['Older public one']);

		// The CLI's other subcommands, side by side (each run is a whole process).
		const [rejected, unfeatured, refused, missing] = await Promise.allSettled([
			cli('reject', String(rejectedId)),
			cli('feature', String(older), '--off'),
			cli('feature', String(privateId)),
			cli('approve', '999999'),
		]);
		assert.equal(rejected.status === 'fulfilled' && rejected.value.status, 'rejected');
		assert.equal(unfeatured.status === 'fulfilled' && unfeatured.value.featured, false);
		assert.match(String(refused.status === 'rejected' && refused.reason), /not approved and public/);
		assert.match(String(missing.status === 'rejected' && missing.reason), /No feedback with id 999999/);
		assert.deepEqual(await messages(), ['Newer public one', 'Older public one', first]);

		await rejectFeedback(em(), newer);
		assert.deepEqual(await messages(), ['Older public one', first]);
		assert.deepEqual((await listFeedback(em(), 'rejected')).map((f) => f.message).sort(), ['Newer public one', 'Rejected one']);
	});
});

describe('hostile and malformed requests', () => {
	test('404 and 405 are JSON', async () => {
		for (const path of ['/nope', '/v1', '/v1/stats/extra', '/v2/stats', '/docs/../package.json', '/docs/index.html']) {
			const reply = await request(haven.url, 'GET', path);
			assert.equal(reply.status, 404, path);
			assert.deepEqual(reply.json, { error: 'Not found' });
		}
		const reply = await request(haven.url, 'DELETE', '/v1/stats');
		assert.equal(reply.status, 405);
		assert.match(reply.json.error, /not allowed/);
		assert.equal(reply.headers.allow, 'GET');
		assert.equal((await request(haven.url, 'GET', '/v1/chat')).status, 405);
	});

	test('415 unless the body is JSON', async () => {
		for (const headers of [
			{ 'content-type': 'text/plain' },
			{ 'content-type': 'application/x-www-form-urlencoded' },
			{},
			{ 'content-type': 'application/json', 'content-encoding': 'gzip' },
		] as Record<string, string>[]) {
			const reply = await call('POST', '/v1/chat', { token: TOKEN, body: '{"message":"hi"}', headers });
			assert.equal(reply.status, 415, JSON.stringify(headers));
		}
		assert.equal(
			(
				await call('POST', '/v1/chat', {
					token: TOKEN,
					body: '{"message":"hi"}',
					headers: { 'content-type': 'application/json; charset=UTF-8' },
				})
			).status,
			200,
		);
	});

	test('400 for malformed JSON or bytes that are not UTF-8', async () => {
		for (const body of ['{"message":', '{message: "hi"}', '', '{"message":"hi"}}', '\u0000']) {
			const reply = await call('POST', '/v1/chat', { token: TOKEN, body, headers: { 'content-type': 'application/json' } });
			assert.equal(reply.status, 400, JSON.stringify(body));
		}
		const latin1 = Buffer.from('{"message":"caf\u00e9"}', 'latin1');
		const reply = await call('POST', '/v1/chat', { token: TOKEN, body: latin1, headers: { 'content-type': 'application/json' } });
		assert.equal(reply.status, 400);
		assert.match(reply.json.error, /UTF-8/);
		const utf8 = Buffer.from('{"message":"caf\u00e9 \ud83d\ude42"}', 'utf8');
		assert.equal((await call('POST', '/v1/chat', { token: TOKEN, body: utf8, headers: { 'content-type': 'application/json' } })).status, 200);
	});

	test(`413 over ${MAX_BODY_BYTES} bytes, announced or chunked; at the limit is fine`, async () => {
		const padded = (size: number) => {
			const base = '{"message":"hi"}';
			return base.slice(0, -1) + ' '.repeat(size - base.length) + '}';
		};
		assert.equal(Buffer.byteLength(padded(MAX_BODY_BYTES)), MAX_BODY_BYTES);
		assert.equal(
			(await call('POST', '/v1/chat', { token: TOKEN, body: padded(MAX_BODY_BYTES), headers: { 'content-type': 'application/json' } })).status,
			200,
		);
		const big = padded(MAX_BODY_BYTES + 1);
		const announced = await call('POST', '/v1/chat', { token: TOKEN, body: big, headers: { 'content-type': 'application/json' } });
		assert.equal(announced.status, 413);
		const chunked = await call('POST', '/v1/chat', {
			token: TOKEN,
			body: padded(4 * MAX_BODY_BYTES),
			chunked: 1024,
			headers: { 'content-type': 'application/json' },
		});
		assert.equal(chunked.status, 413);
		assert.equal(chunked.headers.connection, 'close');
		// A chunked body under the limit is read normally.
		assert.equal(
			(await call('POST', '/v1/chat', { token: TOKEN, body: padded(4000), chunked: 100, headers: { 'content-type': 'application/json' } }))
				.status,
			200,
		);
	});

	test('the order of checks: auth before content type before body', async () => {
		assert.equal((await call('POST', '/v1/chat', { body: 'x', headers: { 'content-type': 'text/plain' } })).status, 401);
		assert.equal((await call('POST', '/v1/chat', { token: TOKEN, body: 'x', headers: { 'content-type': 'text/plain' } })).status, 415);
	});

	test('requests the HTTP parser refuses get a JSON error too', async () => {
		const raw = (text: string) =>
			new Promise<string>((resolve, reject) => {
				const { port } = new URL(haven.url);
				const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
				let answer = '';
				socket.on('data', (chunk) => (answer += chunk));
				socket.on('close', () => resolve(answer));
				socket.on('error', reject);
			});
		for (const text of [
			'GARBAGE\r\n\r\n',
			'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
		]) {
			const answer = await raw(text);
			assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
			assert.match(answer, /\r\n\r\n\{"error":"Malformed HTTP request"\}$/);
		}
		const huge = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
		assert.match(huge, /^HTTP\/1\.1 431 /);
		assert.match(huge, /"error":"Request headers are too large"/);
	});

	test('an internal failure is a generic 500 with an error id, never the cause', async () => {
		await sql('alter table stat_counters rename to stat_counters_away');
		try {
			const reply = await request(haven.url, 'GET', '/v1/stats');
			assert.equal(reply.status, 500);
			assert.match(reply.json.error, /^Internal server error \(error id [0-9a-f-]{36}\)$/);
			assert.equal(reply.headers['cache-control'], 'no-store');
			assert.ok(documentedResponse(doc, 'GET', '/v1/stats', 500));
		} finally {
			await sql('alter table stat_counters_away rename to stat_counters');
		}
		assert.equal((await call('GET', '/v1/stats')).status, 200);
	});

	test('CORS preflight for the website', async () => {
		const reply = await request(haven.url, 'OPTIONS', '/v1/chat', { headers: { origin: WEBSITE, 'access-control-request-method': 'POST' } });
		assert.equal(reply.status, 204);
		assert.equal(reply.headers['access-control-allow-origin'], WEBSITE);
		assert.match(String(reply.headers['access-control-allow-headers']), /Authorization/);
		assert.match(String(reply.headers['access-control-allow-methods']), /POST/);
		assert.match(String(reply.headers['access-control-expose-headers']), /Retry-After/);
		assert.equal(reply.headers['access-control-max-age'], '600');
	});

	test('every documented success was seen', () => {
		for (const [method, path, status] of [
			['GET', '/healthz', 200],
			['GET', '/v1/stats', 200],
			['GET', '/v1/status', 200],
			['GET', '/v1/testimonials', 200],
			['POST', '/v1/chat', 200],
			['POST', '/v1/feedback', 202],
			['POST', '/v1/chat', 502],
		] as const) {
			assert.ok(
				seen.some((s) => s.method === method && s.path === path && s.status === status),
				`${method} ${path} ${status}`,
			);
		}
	});
});
