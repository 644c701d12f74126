// SIGTERM to `haven serve` under load: the requests in flight finish (slow AI replies and feedback writes), new
// connections are refused at once, a new request on a kept-alive connection is still served (never a 5xx) and the
// connection closed after it, and the process exits 0 soon after the last answer.
import assert from 'node:assert/strict';
import { chmodSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseConfig } from '../../src/lib/core/config.ts';
import { Feedback, openDatabase } from '../../src/lib/db/index.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { killChildren, scrape, serveHaven, total, until, type HavenProcess } from './support.ts';

const TOKEN = 'sigterm-token-0123456789';
/** Each AI reply takes this long; Haven runs 4 at a time, so 9 chats take 3 rounds: within the 5 s grace. */
const SLOW_MS = 1000;
let openai: FakeOpenAi;
let env: Record<string, string | undefined>;
let haven: HavenProcess & { url: string };

before(async () => {
	openai = await startFakeOpenAi();
	openai.mode = 'stall';
	openai.stallMs = SLOW_MS;
	env = testEnv({
		API_TOKEN: TOKEN,
		OPENAI_API_KEY: 'sk-fake',
		OPENAI_BASE_URL: openai.url,
		OPENAI_TIMEOUT_MS: '10000',
		RATE_LIMIT_PER_MINUTE: '100000',
		RATE_LIMIT_CHAT_PER_MINUTE: '100000',
		RATE_LIMIT_FEEDBACK_PER_MINUTE: '100000',
		PURGE_INTERVAL_MS: '0',
		LOG_LEVEL: 'info',
	});
	chmodSync(env.DATA_DIR!, 0o711);
	haven = await serveHaven(env);
});

after(async () => {
	killChildren();
	await openai?.close();
	await dropDatabase(env?.DATABASE_URL);
	if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

function post(path: string, body: unknown, agent: false = false): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
	const url = new URL(path, haven.url);
	const data = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = http.request(
			url,
			{
				method: 'POST',
				agent,
				headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
			},
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (chunk) => (text += chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
			},
		);
		req.on('error', reject);
		req.end(data);
	});
}

/**
 * A raw kept-alive connection with one slow chat in flight. `sendSecond` writes a feedback on the same connection
 * while the chat is still being served (so it arrives during the shutdown, and is read once the chat is answered);
 * it says whether the chat was still unanswered then. `done` resolves with everything the server sent.
 */
const KEPT_ALIVE_FEEDBACK = 'sent on a kept-alive connection during the shutdown';
function keptAlive(url: string): { sendSecond(): boolean; done: Promise<string> } {
	const { port } = new URL(url);
	const request = (path: string, payload: unknown) => {
		const body = JSON.stringify(payload);
		return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
	};
	const socket = net.connect(Number(port), '127.0.0.1');
	let text = '';
	socket.on('data', (chunk) => (text += chunk.toString('utf8')));
	socket.on('error', () => undefined);
	const done = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
	socket.write(request('/v1/chat', { message: 'first on a kept-alive connection' }));
	return {
		sendSecond() {
			const chatPending = text === '';
			socket.write(request('/v1/feedback', { userId: '123456789012345678', message: KEPT_ALIVE_FEEDBACK }));
			return chatPending;
		},
		done,
	};
}

test('SIGTERM under load: in-flight requests finish, new connections are refused, no 5xx, exit 0', async (t) => {
	// Feedback writers keep going through the signal; each write is either accepted (202, and then stored) or refused.
	const accepted: string[] = [];
	const outcomes = new Map<string, number>();
	let writing = true;
	let n = 0;
	// Feedback requests the writers have sent and not yet had answered, and the most there were since `feedbackPeak`
	// was last reset: an upper bound on those the server is serving.
	let feedbackInFlight = 0;
	// Held while the slow chats are counted, so that every request the server is serving then is a chat or the scrape.
	let paused = false;
	const writer = async () => {
		while (writing) {
			if (paused) {
				await sleep(10);
				continue;
			}
			const message = `written around shutdown ${n++}`;
			feedbackInFlight++;
			const outcome = await post('/v1/feedback', { userId: '123456789012345678', message }).then(
				(reply) => String(reply.status),
				(error: NodeJS.ErrnoException) => error.code ?? 'error',
			);
			feedbackInFlight--;
			outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
			if (outcome === '202') accepted.push(message);
			else await sleep(20); // pacing after a refusal, not a wait for anything
		}
	};
	const writers = Array.from({ length: 4 }, writer);
	t.after(() => (writing = false)); // a failed wait must not leave the writers running and the file never ending
	await until(() => accepted.length >= 20, 'feedback flowing', 10_000);
	// A kept-alive connection with a slow request of its own in flight, and 8 more slow chats.
	const onKeptAlive = keptAlive(haven.url);
	const chats = Array.from({ length: 8 }, (_, i) => post('/v1/chat', { message: `slow question ${i}` }));
	await until(() => openai.requests.length >= 4, 'the first chats to reach the AI provider', 10_000);
	// The rest are received and wait for a slot. With the writers held and their last requests answered, the server
	// serves just the 9 chats and the scrape.
	paused = true;
	await until(() => feedbackInFlight === 0, 'the feedback writes in flight to be answered', 10_000);
	await until(
		async () => total(await scrape(haven.url, TOKEN), 'haven_http_requests_in_flight') - 1 >= 9,
		'the 9 slow chats to be received',
		10_000,
	);
	paused = false;

	const signalledAt = performance.now();
	haven.child.kill('SIGTERM');
	await until(
		async () => {
			try {
				await fetch(`${haven.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
				return false;
			} catch (error) {
				return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
			}
		},
		'new connections to be refused',
		5_000,
	);
	// Draining: a request arrives on the kept-alive connection whose slow chat is still in flight.
	const secondDuringDrain = onKeptAlive.sendSecond();

	const answered = await Promise.all(chats);
	assert.deepEqual(
		answered.map((a) => a.status),
		Array(8).fill(200),
		'every in-flight chat finished',
	);
	assert.ok(answered.every((a) => typeof a.body.reply === 'string' && a.body.reply.length > 0));
	writing = false;
	await Promise.all(writers);
	const refusals = [...outcomes.keys()].filter((outcome) => outcome !== '202');
	// Refused at the connection (the client retries elsewhere), never answered with an error.
	for (const outcome of refusals) assert.match(outcome, /^(ECONNREFUSED|ECONNRESET)$/, `outcomes: ${JSON.stringify([...outcomes])}`);
	assert.ok(outcomes.has('ECONNREFUSED'), 'new connections were refused');
	// On the kept-alive connection: the slow chat answered 200; the feedback that arrived during the shutdown is served
	// too (202, and stored: checked below) with `Connection: close`, and the connection closed.
	const exchange = await onKeptAlive.done;
	const responses = exchange.split(/(?=HTTP\/1\.1 )/);
	assert.match(responses[0]!, /^HTTP\/1\.1 200 OK/);
	const again = responses[1];
	if (secondDuringDrain) assert.ok(again !== undefined, `the request that arrived during the drain was answered: ${exchange}`);
	if (again !== undefined) {
		assert.match(again, /^HTTP\/1\.1 202 /);
		assert.match(again, /\r\nConnection: close\r\n/i);
		accepted.push(KEPT_ALIVE_FEEDBACK);
	}

	assert.equal(await haven.exited, 0, haven.output());
	const seconds = (performance.now() - signalledAt) / 1000;
	assert.match(haven.output(), /Haven stopped/);
	assert.ok(seconds < 10, `exited ${seconds.toFixed(1)} s after SIGTERM`);
	t.diagnostic(
		`9 slow chats in flight finished; feedback outcomes ${JSON.stringify(Object.fromEntries(outcomes))}; kept-alive second request: ${again === undefined ? 'connection closed first' : '202 and closed'}; exit 0 after ${seconds.toFixed(1)} s`,
	);
	assert.doesNotMatch(haven.output(), /ERROR/);

	// Every accepted write is stored.
	const db = await openDatabase(parseConfig({ ...env, LOG_LEVEL: 'error' }), { info: () => undefined, warn: () => undefined });
	try {
		const stored = new Set((await db.orm.em.fork().find(Feedback, {})).map((row) => row.message));
		for (const message of accepted) assert.ok(stored.has(message), `202 but lost: ${message}`);
	} finally {
		await db.close();
	}
});
