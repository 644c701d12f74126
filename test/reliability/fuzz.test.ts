// A seeded, bounded fuzzer (fast-check) against the running HTTP API: random and malformed JSON, wrong types, huge and
// deeply nested bodies, chunked bodies, Unicode edge cases, header injection at the wire level, bad and missing
// tokens, method and path noise. Every answer must be a 4xx that matches the case (or the 2xx of valid input), as
// JSON `{ "error": ... }`; never a 5xx; the service keeps answering; memory stays bounded (the RSS delta is printed).
// Runs without ENCRYPTION_KEY on purpose: text then reaches PostgreSQL as is, the harsher case.
import assert from 'node:assert/strict';
import { chmodSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { killChildren, parseMetrics, serveHaven, total, type HavenProcess } from './support.ts';

const SEED = 20_261_122;
const TOKEN = 'fuzz-api-token-0123456789';
const MAX_BODY = 16 * 1024;
const MAX_MESSAGE = 2000;

let openai: FakeOpenAi;
/** `haven serve` in a child process: the process under test, whose memory is measured and which must stay up. */
let haven: HavenProcess & { url: string };
let env: Record<string, string | undefined>;
let rssBefore = 0;
const tally = { cases: 0, byStatus: new Map<number, number>(), serverErrors: [] as string[], cutOff: 0 };

before(async () => {
	openai = await startFakeOpenAi();
	env = testEnv({
		API_TOKEN: TOKEN,
		OPENAI_API_KEY: 'sk-fuzz',
		OPENAI_BASE_URL: openai.url,
		OPENAI_TIMEOUT_MS: '2000',
		STATS_CACHE_MS: '1000',
		RATE_LIMIT_PER_MINUTE: '1000000',
		RATE_LIMIT_CHAT_PER_MINUTE: '1000000',
		RATE_LIMIT_FEEDBACK_PER_MINUTE: '1000000',
		LOG_LEVEL: 'info',
	});
	// As root, the embedded PostgreSQL runs as `postgres`, which must pass through DATA_DIR (mkdtemp makes it 0700).
	chmodSync(env.DATA_DIR!, 0o711);
	haven = await serveHaven(env);
	rssBefore = await serverRss();
});

after(async () => {
	if (haven && haven.child.exitCode === null) {
		haven.child.kill('SIGTERM');
		await haven.exited;
	}
	killChildren();
	await openai?.close();
	await dropDatabase(env?.DATABASE_URL);
	if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

/** The server's resident memory, from its own /metrics. */
async function serverRss(): Promise<number> {
	const response = await fetch(`${haven.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
	return total(parseMetrics(await response.text()), 'process_resident_memory_bytes');
}

/** Large buffers are shown by size and start in counterexamples, not byte by byte. */
function shown(buffer: Buffer): Buffer {
	return Object.assign(buffer, {
		[fc.toStringMethod]: () =>
			`<${buffer.length} bytes: ${JSON.stringify(buffer.subarray(0, 60).toString('latin1'))}${buffer.length > 60 ? '...' : ''}>`,
	});
}

// ---------------------------------------------------------------------------------------------------------------------
// Sending

interface Answer {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: string;
}

interface Case {
	method: string;
	path: string;
	headers?: Record<string, string>;
	body?: Buffer;
	/** Send the body chunked, in pieces of this size. */
	chunked?: number;
}

/** One request on a fresh connection; a connection error after the answer arrived is not a failure (413 closes). */
function send(c: Case): Promise<Answer> {
	const { hostname, port } = new URL(haven.url);
	const headers: Record<string, string> = { ...c.headers };
	if (c.body && !c.chunked) headers['content-length'] = String(c.body.length);
	// At most ~500 pieces: more writes than the kernel's iovec limit fail on the client side (EINVAL).
	const piece = c.body && c.chunked ? Math.max(c.chunked, Math.ceil(c.body.length / 500)) : 0;
	return new Promise((resolve, reject) => {
		let answered = false;
		const req = http.request({ host: hostname, port, path: c.path, method: c.method, headers, agent: false }, (res) => {
			answered = true;
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
			res.on('error', reject);
		});
		req.setTimeout(15_000, () => req.destroy(new Error(`no answer within 15 s: ${c.method} ${c.path}`)));
		req.on('error', (error) => {
			if (!answered) reject(error);
		});
		if (c.body && piece) {
			for (let at = 0; at < c.body.length; at += piece) req.write(c.body.subarray(at, at + piece));
			req.end();
		} else req.end(c.body);
	});
}

/**
 * Raw bytes on a socket, for what an HTTP client refuses to send; reads until the server closes (the requests say
 * `Connection: close`; the socket is not half-closed, which would abort a request still being answered).
 */
function sendRaw(bytes: Buffer): Promise<Answer | undefined> {
	return new Promise((resolve, reject) => {
		const { port } = new URL(haven.url);
		const socket = net.connect(Number(port), '127.0.0.1');
		const chunks: Buffer[] = [];
		socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
		socket.on('data', (chunk) => chunks.push(chunk));
		socket.on('error', (error) => (chunks.length ? undefined : reject(error)));
		socket.on('close', () => {
			const text = Buffer.concat(chunks).toString('latin1');
			if (!text) return resolve(undefined);
			const head = text.slice(0, text.indexOf('\r\n\r\n'));
			const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
			const headers: http.IncomingHttpHeaders = {};
			for (const line of head.split('\r\n').slice(1)) {
				const colon = line.indexOf(':');
				headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
			}
			const length = Number(headers['content-length'] ?? -1);
			const rest = Buffer.from(text.slice(head.length + 4), 'latin1');
			resolve({ status, headers, body: (length >= 0 ? rest.subarray(0, length) : rest).toString('utf8') });
		});
		socket.write(bytes);
	});
}

/** The checks every answer gets: no 5xx; an error is JSON `{ error: string }` and not cacheable. */
function checkAnswer(c: { method: string; path: string }, answer: Answer, expected?: number | number[]): void {
	tally.cases++;
	tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
	const what = `${c.method} ${c.path.slice(0, 120)} -> ${answer.status} ${answer.body.slice(0, 200)}`;
	if (answer.status >= 500) tally.serverErrors.push(what);
	assert.ok(answer.status >= 200 && answer.status < 500, what);
	if (expected !== undefined) assert.ok((Array.isArray(expected) ? expected : [expected]).includes(answer.status), `expected ${expected}: ${what}`);
	if (answer.status >= 400) {
		assert.match(String(answer.headers['content-type']), /^application\/json; charset=utf-8$/, what);
		if (c.method !== 'HEAD') {
			const body = JSON.parse(answer.body) as Record<string, unknown>;
			assert.deepEqual(Object.keys(body), ['error'], what);
			assert.equal(typeof body.error, 'string', what);
		}
		assert.equal(answer.headers['cache-control'], 'no-store', what);
	}
}

// ---------------------------------------------------------------------------------------------------------------------
// The oracle: what the API must answer, from the documented rules (written independently of the schemas)

const SNOWFLAKE = /^[1-9]\d{16,19}$/;

function decodeJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
	let text: string;
	try {
		text = new TextDecoder('utf-8', { fatal: true }).decode(body);
	} catch {
		return { ok: false };
	}
	if (!text.trim()) return { ok: false };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

/** Lengths are counted in code points (as zod 4 does; a lone surrogate counts as one). */
function validMessage(value: unknown, min: number): boolean {
	if (typeof value !== 'string') return false;
	const length = [...value.trim()].length;
	return length >= min && length <= MAX_MESSAGE;
}

function expectedFor(route: 'chat' | 'feedback', body: Buffer): number {
	if (body.length > MAX_BODY) return 413;
	const decoded = decodeJson(body);
	if (!decoded.ok) return 400;
	const value = decoded.value;
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return 400;
	const record = value as Record<string, unknown>;
	if (route === 'chat') return validMessage(record.message, 1) ? 200 : 400;
	const userId = record.userId;
	const idOk = typeof userId === 'string' && SNOWFLAKE.test(userId) && BigInt(userId) <= 2n ** 64n - 1n;
	const messageOk = validMessage(record.message, 3) && !(record.message as string).includes('\u0000');
	return idOk && messageOk ? 202 : 400;
}

// ---------------------------------------------------------------------------------------------------------------------
// Generators

const unicodeEdge = fc.constantFrom(
	'',
	' ',
	'\u0000',
	'\u200b\u200d\ufeff',
	'\ud83d\ude00',
	'\ud800',
	'\udfff',
	'e\u0301',
	'\u202e\u2066',
	'ﷺ',
	'𝕳𝖆𝖛𝖊𝖓',
	'\r\n',
	'<script>alert(1)</script>',
	"'; drop table feedback; --",
	'@everyone <@123456789012345678>',
	'%00%0d%0a',
	'\\u0000',
);
const text = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 60 }),
	fc.string({ unit: 'grapheme', maxLength: 60 }),
	fc.array(unicodeEdge, { maxLength: 6 }).map((parts) => parts.join('')),
	fc.tuple(fc.constantFrom('a', ' ', 'é', '\u{1F600}'), fc.integer({ min: 1990, max: 2010 })).map(([unit, n]) => unit.repeat(n)),
	fc.string({ unit: 'grapheme-ascii', minLength: 3, maxLength: 40 }),
);
const snowflakeish = fc.oneof(
	fc.bigInt({ min: 10n ** 16n, max: 2n ** 64n + 5n }).map(String),
	fc.constantFrom(
		'0',
		'012345678901234567',
		'18446744073709551615',
		'18446744073709551616',
		'99999999999999999999',
		'１２３４５６７８９０１２３４５６７８',
	),
	fc.string({ unit: 'grapheme-ascii', maxLength: 22 }),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
	text,
	snowflakeish,
	fc.integer(),
	fc.double(),
	fc.boolean(),
	fc.constant(null),
	fc.jsonValue({ maxDepth: 3 }),
);
const objectBody = fc
	.record({ message: anyValue, userId: anyValue, extra: anyValue }, { requiredKeys: [] })
	.map((value) => shown(Buffer.from(JSON.stringify(value))));
const validFeedback = fc
	.record({ userId: fc.bigInt({ min: 10n ** 16n, max: 2n ** 63n }).map(String), message: text })
	.map((value) => shown(Buffer.from(JSON.stringify(value))));
const jsonBody = fc.jsonValue({ maxDepth: 5 }).map((value) => shown(Buffer.from(JSON.stringify(value) ?? 'null')));
const brokenJson = fc.oneof(
	fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((value) => Buffer.from(value, 'latin1')),
	fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes)),
	fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([value, cut]) => {
		const full = JSON.stringify({ message: value });
		return Buffer.from(full.slice(0, cut % Math.max(1, full.length)));
	}),
	fc
		.constantFrom(
			'{"message": "a", "message": 5}',
			'\ufeff{"message":"bom"}',
			'{"message":"\\ud800"}',
			'{"__proto__":{"message":"x"}}',
			'{"message":"x"}garbage',
			'{"message":"x",}',
			"{'message':'x'}",
			'NaN',
			'[]',
			'""',
		)
		.map((value) => Buffer.from(value)),
	fc.constantFrom(
		Buffer.from([0xc0, 0xaf]),
		Buffer.from([0xed, 0xa0, 0x80]),
		Buffer.from([0xff, 0xfe, 0x7b, 0x00]),
		Buffer.from('{"message":"\xe9"}', 'latin1'),
	),
);
const anyBody = fc.oneof(
	{ weight: 3, arbitrary: objectBody },
	{ weight: 2, arbitrary: validFeedback },
	{ weight: 2, arbitrary: jsonBody },
	{ weight: 3, arbitrary: brokenJson },
);

const json = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

// ---------------------------------------------------------------------------------------------------------------------

describe('fuzzing the HTTP API', () => {
	test('JSON bodies of every shape to POST /v1/chat and /v1/feedback: the documented status, or 400/413', async () => {
		await fc.assert(
			fc.asyncProperty(fc.constantFrom('chat' as const, 'feedback' as const), anyBody, fc.boolean(), async (route, body, chunked) => {
				const c = { method: 'POST', path: `/v1/${route}`, headers: json, body, chunked: chunked ? 7 : undefined };
				checkAnswer(c, await send(c), expectedFor(route, body));
			}),
			{ seed: SEED, numRuns: 1200 },
		);
	});

	test('tokens, content types and encodings: 401 before 415 before the body', async () => {
		const authorization = fc.oneof(
			fc.constant(undefined),
			fc.constant(`Bearer ${TOKEN}`),
			fc.constant(`bearer \t${TOKEN} `),
			fc.constant(`Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`),
			fc.constant(`Bearer ${TOKEN}x`),
			fc.constant(`Bearer ${TOKEN.slice(1)}`),
			fc.constant(`Bearer ${TOKEN} ${TOKEN}`),
			fc.constant('Bearer'),
			fc.constant(`Bearer ${'A'.repeat(8000)}`),
			fc.string({ unit: 'grapheme-ascii', maxLength: 50 }).map((value) => value.replace(/[\r\n]/g, '')),
		);
		const contentType = fc.oneof(
			fc.constant(undefined),
			fc.constantFrom(
				'application/json',
				'application/json; charset=utf-8',
				'APPLICATION/JSON',
				'application/vnd.haven+json',
				'application/json;charset=latin1',
			),
			fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'json', ''),
			fc.string({ unit: 'grapheme-ascii', maxLength: 30 }).map((value) => value.replace(/[\r\n]/g, '')),
		);
		const encoding = fc.constantFrom(undefined, 'identity', 'gzip', 'br', 'IDENTITY');
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('chat' as const, 'feedback' as const),
				authorization,
				contentType,
				encoding,
				async (route, auth, type, enc) => {
					const headers: Record<string, string> = {};
					if (auth !== undefined) headers.authorization = auth;
					if (type !== undefined) headers['content-type'] = type;
					if (enc !== undefined) headers['content-encoding'] = enc;
					const body = Buffer.from(JSON.stringify({ userId: '123456789012345678', message: 'fuzzed but fine' }));
					const c = { method: 'POST', path: `/v1/${route}`, headers, body };
					const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth ?? '');
					const media = (type ?? '').split(';', 1)[0]!.trim().toLowerCase();
					const isJson = media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
					const expected =
						match?.[1] !== TOKEN
							? 401
							: !isJson || (enc !== undefined && enc.toLowerCase() !== 'identity')
								? 415
								: route === 'chat'
									? 200
									: 202;
					const answer = await send(c);
					checkAnswer(c, answer, expected);
					if (expected === 401) assert.equal(answer.headers['www-authenticate'], 'Bearer realm="haven"');
				},
			),
			{ seed: SEED + 1, numRuns: 500 },
		);
	});

	test('sizes around the cap, huge and deeply nested bodies, announced or chunked: 413 past 16 KiB, else 400 or 2xx', async () => {
		const sized = fc.oneof(
			fc.integer({ min: MAX_BODY - 64, max: MAX_BODY + 64 }).map((size) => {
				const filler = Math.max(0, size - JSON.stringify({ message: '' }).length);
				return shown(Buffer.from(JSON.stringify({ message: 'x'.repeat(filler) })));
			}),
			fc.integer({ min: MAX_BODY + 1, max: 2 * 1024 * 1024 }).map((size) => shown(Buffer.alloc(size, 0x20))),
			fc.integer({ min: 100, max: 9000 }).map((depth) => shown(Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`))),
			fc.integer({ min: 100, max: 5000 }).map((depth) => shown(Buffer.from(`{"message":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`))),
			fc
				.integer({ min: 1, max: 2000 })
				.map((n) =>
					shown(Buffer.from(JSON.stringify({ message: 'ok', userId: '123456789012345678', more: Array.from({ length: n }, (_, i) => i) }))),
				),
		);
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('chat' as const, 'feedback' as const),
				sized,
				fc.constantFrom(undefined, 1, 100, 4096),
				async (route, body, chunked) => {
					const c = { method: 'POST', path: `/v1/${route}`, headers: json, body, chunked };
					const expected = expectedFor(route, body);
					const answer = await send(c).catch((error: NodeJS.ErrnoException) => {
						// Past the cap the server answers 413 and closes while a large body is still being written: the client
						// may see the closed connection (EPIPE/ECONNRESET) before it reads the 413. That is the cap working.
						if (expected === 413 && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) return undefined;
						throw error;
					});
					if (answer) checkAnswer(c, answer, expected);
					else tally.cutOff++;
				},
			),
			{ seed: SEED + 2, numRuns: 200 },
		);
	});

	test('method and path noise: 404 or 405 as JSON, never a 5xx', async () => {
		const method = fc.constantFrom(
			'GET',
			'HEAD',
			'POST',
			'PUT',
			'PATCH',
			'DELETE',
			'OPTIONS',
			'TRACE',
			'PROPFIND',
			'SEARCH',
			'M-SEARCH',
			'PURGE',
		);
		const segment = fc.oneof(
			fc.constantFrom(
				'v1',
				'v2',
				'chat',
				'feedback',
				'stats',
				'status',
				'testimonials',
				'healthz',
				'docs',
				'openapi.json',
				'metrics',
				'..',
				'.',
				'',
				'%2e%2e',
				'%2F',
				'%00',
				'%ff',
				'~',
				'swagger-ui.css',
				'init.js',
				'[file]',
				'%5Bfile%5D',
			),
			fc.webSegment(),
			fc.string({ unit: 'grapheme', maxLength: 12 }).map((value) => encodeURIComponent(value)),
		);
		const path = fc
			.tuple(fc.array(segment, { maxLength: 6 }), fc.option(fc.webQueryParameters(), { nil: undefined }), fc.boolean())
			.map(([segments, query, slash]) => `/${segments.join('/')}${slash ? '/' : ''}${query ? `?${query}` : ''}`);
		await fc.assert(
			fc.asyncProperty(method, path, fc.option(jsonBody, { nil: undefined }), async (verb, target, body) => {
				const c = {
					method: verb,
					path: target,
					headers: { ...json, origin: 'https://evil.example' },
					body: verb === 'GET' || verb === 'HEAD' ? undefined : body,
				};
				checkAnswer(c, await send(c), [200, 202, 204, 400, 401, 404, 405, 413, 415]);
			}),
			{ seed: SEED + 3, numRuns: 600 },
		);
	});

	test('query strings of GET /v1/testimonials: 200 for a whole limit from 1 to 100, else 400', async () => {
		const limit = fc.oneof(
			fc.integer({ min: -5, max: 120 }).map(String),
			fc.constantFrom('', ' 5 ', '0x10', '1e1', '1.5', 'NaN', 'Infinity', '-0', '١٠', '10%00', '%'),
			fc.string({ maxLength: 8 }),
		);
		await fc.assert(
			fc.asyncProperty(limit, fc.webQueryParameters(), async (value, noise) => {
				const params = new URLSearchParams(noise);
				params.delete('limit');
				params.append('limit', value);
				const c = { method: 'GET', path: `/v1/testimonials?${params}` };
				const n = Number(value);
				checkAnswer(c, await send(c), Number.isInteger(n) && n >= 1 && n <= 100 ? 200 : 400);
			}),
			{ seed: SEED + 4, numRuns: 300 },
		);
	});

	test('header injection and broken framing on the wire: JSON 4xx from the parser, never a 5xx', async () => {
		const valid = JSON.stringify({ message: 'hello there' });
		const injection = fc.constantFrom(
			`Authorization: Bearer ${TOKEN}\r\nX-Injected: yes`,
			`Authorization: Bearer ${TOKEN}\nX-Bare-LF: yes`,
			`Authorization: Bearer ${TOKEN}\rX-Bare-CR: yes`,
			`Authorization: Bearer ${TOKEN}\u0000`,
			`Authorization: Bearer ${TOKEN}\r\n continued-by-obs-fold`,
			`Authorization : Bearer ${TOKEN}`,
			`Bad Header: x`,
			`X-Long: ${'a'.repeat(20_000)}`,
			`Content-Length: 5\r\nContent-Length: 6`,
			`Transfer-Encoding: chunked\r\nContent-Length: ${valid.length}`,
			`Transfer-Encoding: gzip, chunked`,
			`Host: a\r\nHost: b`,
			`X-Forwarded-For: 1.2.3.4\r\nX-Forwarded-For: <script>`,
			`Authorization: Bearer ${TOKEN}\u00e9`,
			``,
		);
		const requestLine = fc.constantFrom(
			'POST /v1/chat HTTP/1.1',
			'POST /v1/chat HTTP/1.0',
			'POST /v1/chat HTTP/2.0',
			'POST  /v1/chat HTTP/1.1',
			'POST /v1/chat\tHTTP/1.1',
			'POST http://evil.example/v1/chat HTTP/1.1',
			'POST * HTTP/1.1',
			`POST /v1/chat?${'q'.repeat(20_000)} HTTP/1.1`,
			'P0ST /v1/chat HTTP/1.1',
			'POST /v1/ch\u0000at HTTP/1.1',
			'POST /v1/chat',
			'GET /v1/../../etc/passwd HTTP/1.1',
		);
		const framing = fc.constantFrom('length', 'chunked', 'bad-chunk', 'none');
		await fc.assert(
			fc.asyncProperty(requestLine, injection, framing, async (line, header, frame) => {
				let head = `${line}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n`;
				if (header) head += `${header}\r\n`;
				let body = '';
				if (frame === 'length') head += `Content-Length: ${valid.length}\r\n`;
				if (frame === 'chunked') {
					head += 'Transfer-Encoding: chunked\r\n';
					body = `${valid.length.toString(16)}\r\n${valid}\r\n0\r\n\r\n`;
				}
				if (frame === 'bad-chunk') {
					head += 'Transfer-Encoding: chunked\r\n';
					body = `zz\r\n${valid}\r\n0\r\n\r\n`;
				}
				if (frame === 'length') body = valid;
				const answer = await sendRaw(Buffer.from(`${head}\r\n${body}`, 'latin1'));
				assert.ok(answer, `no answer at all to ${JSON.stringify(`${head}${body}`).slice(0, 200)}`);
				checkAnswer({ method: 'RAW', path: line }, answer, [200, 400, 401, 404, 405, 413, 415, 431]);
			}),
			{ seed: SEED + 5, numRuns: 400 },
		);
	});

	test('the service is still up, memory is bounded, and no 5xx was seen', async (t: TestContext) => {
		assert.equal(haven.child.exitCode, null, 'the server process is still running');
		const health = await send({ method: 'GET', path: '/healthz' });
		assert.equal(health.status, 200);
		const stats = await send({ method: 'GET', path: '/v1/stats' });
		assert.equal(stats.status, 200);
		const rssAfter = await serverRss();
		const deltaMb = (rssAfter - rssBefore) / 2 ** 20;
		t.diagnostic(
			`fuzz cases: ${tally.cases + tally.cutOff}; 5xx seen: ${tally.serverErrors.length}; statuses: ${JSON.stringify(Object.fromEntries([...tally.byStatus].sort(([a], [b]) => a - b)))}; oversized uploads cut off before the 413 was read: ${tally.cutOff}`,
		);
		t.diagnostic(`server RSS: ${(rssBefore / 2 ** 20).toFixed(0)} MB -> ${(rssAfter / 2 ** 20).toFixed(0)} MB (delta ${deltaMb.toFixed(0)} MB)`);
		assert.doesNotMatch(haven.output(), /\b(ERROR|Error)\b/, 'nothing failed inside the server');
		assert.deepEqual(tally.serverErrors, []);
		assert.ok(tally.cases >= 2500, `ran ${tally.cases} cases`);
		assert.ok(deltaMb < 150, `RSS grew by ${deltaMb.toFixed(0)} MB`);
	});
});
