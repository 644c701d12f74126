import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_HTTP_HEADERS_TIMEOUT_MS, DEFAULT_HTTP_REQUEST_TIMEOUT_MS, parseConfig } from '../../src/lib/core/config.ts';
import { httpServerOptions } from '../../src/lib/api/server-limits.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';

/**
 * Clients that send slowly on purpose, or open many connections, cannot hold Haven's HTTP server: the timeouts are
 * shortened through the configuration so that the test runs in seconds; the defaults are checked separately.
 */

const TOKEN = 'slow-clients-test-token-0123456789abcdef';
const REQUEST_TIMEOUT_MS = 1_500;
const HEADERS_TIMEOUT_MS = 1_000;
let haven: TestHaven;
let env: Record<string, string | undefined>;
const sockets: Socket[] = [];

before(async () => {
	env = testEnv({
		API_TOKEN: TOKEN,
		HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
		HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
		HTTP_MAX_CONNECTIONS: '4',
	});
	haven = await startTestHaven(env);
});

after(async () => {
	for (const socket of sockets) socket.destroy();
	await haven?.stop();
	await dropDatabase(env.DATABASE_URL);
});

interface Connection {
	socket: Socket;
	/** Everything received so far. */
	received: () => string;
	/** Resolves when the server closes the connection, with the milliseconds since it was opened. */
	closed: Promise<number>;
}

async function open(): Promise<Connection> {
	const { port } = new URL(haven.url);
	const socket = connect(Number(port), '127.0.0.1');
	sockets.push(socket);
	const opened = Date.now();
	let data = '';
	socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
	socket.on('error', () => undefined); // a reset after the server closes is expected
	const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
	await new Promise<void>((resolve) => socket.once('connect', resolve));
	return { socket, received: () => data, closed };
}

/** Writes `text` a few bytes at a time until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
	let at = 0;
	const timer = setInterval(() => {
		if (socket.destroyed || at >= text.length) return clearInterval(timer);
		socket.write(text.slice(at, at + 2));
		at += 2;
	}, everyMs);
	socket.on('close', () => clearInterval(timer));
}

const within = (ms: number, limit: number, what: string) => assert.ok(ms <= limit, `${what} took ${ms} ms, over ${limit} ms`);

describe('slow clients', () => {
	test('defaults: headers within 10 s, the whole request within 30 s, checked at least every second', () => {
		const options = httpServerOptions(parseConfig({}).api.http);
		assert.equal(options.headersTimeout, DEFAULT_HTTP_HEADERS_TIMEOUT_MS);
		assert.equal(options.requestTimeout, DEFAULT_HTTP_REQUEST_TIMEOUT_MS);
		assert.ok(options.requestTimeout! <= 30_000 && options.headersTimeout! <= options.requestTimeout!);
		assert.ok(options.connectionsCheckingInterval! <= 1_000);
		assert.equal(parseConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '20000' }).api.http.headersTimeoutMs, 20_000);
	});

	test('a body trickled byte by byte is cut off with 408 within the request timeout', async () => {
		const { socket, received, closed } = await open();
		const body = JSON.stringify({ message: 'hello there, how are you doing today? '.repeat(5) });
		socket.write(
			`POST /v1/chat HTTP/1.1\r\nHost: haven\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
				`Content-Length: ${body.length}\r\n\r\n`,
		);
		trickle(socket, body, 100); // would take about 10 s to finish
		const ms = await closed;
		within(ms, REQUEST_TIMEOUT_MS + 1_000, 'closing a trickled body');
		assert.ok(ms >= REQUEST_TIMEOUT_MS - 100, `closed after ${ms} ms, before the timeout`);
		assert.match(received(), /^HTTP\/1\.1 408 /);
		assert.match(received(), /"error":"Request timed out"/);
	});

	test('headers trickled byte by byte are cut off with 408 within the headers timeout', async () => {
		const { socket, received, closed } = await open();
		trickle(socket, `GET /healthz HTTP/1.1\r\nHost: haven\r\n${'X-Padding: slow-client\r\n'.repeat(20)}\r\n`, 100);
		const ms = await closed;
		within(ms, HEADERS_TIMEOUT_MS + 1_000, 'closing trickled headers');
		assert.match(received(), /^HTTP\/1\.1 408 /);
	});

	test('a 401 answered while the body is still arriving closes the connection', async () => {
		const { socket, received, closed } = await open();
		socket.write(
			'POST /v1/chat HTTP/1.1\r\nHost: haven\r\nAuthorization: Bearer wrong-token\r\nContent-Type: application/json\r\n' +
				'Content-Length: 100000\r\n\r\n{"message":"',
		);
		const ms = await closed;
		within(ms, 500, 'closing after the 401');
		assert.match(received(), /^HTTP\/1\.1 401 /);
		assert.match(received(), /\r\nConnection: close\r\n/i);
	});

	test('a 415 and a 413 to a body still arriving close the connection too; a 401 to a GET keeps it', async () => {
		const wrongType = await open();
		wrongType.socket.write(
			`POST /v1/chat HTTP/1.1\r\nHost: haven\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: text/plain\r\nContent-Length: 5000\r\n\r\nabc`,
		);
		within(await wrongType.closed, 500, 'closing after the 415');
		assert.match(wrongType.received(), /^HTTP\/1\.1 415 /);

		const tooLarge = await open();
		tooLarge.socket.write(
			`POST /v1/chat HTTP/1.1\r\nHost: haven\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 999999\r\n\r\n{`,
		);
		within(await tooLarge.closed, 500, 'closing after the 413');
		assert.match(tooLarge.received(), /^HTTP\/1\.1 413 /);

		const get = await open();
		get.socket.write('GET /metrics HTTP/1.1\r\nHost: haven\r\n\r\n');
		const deadline = Date.now() + 2_000;
		while (!get.received().includes('\r\n\r\n') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
		assert.match(get.received(), /^HTTP\/1\.1 401 /);
		assert.doesNotMatch(get.received(), /Connection: close/i);
		assert.equal(get.socket.destroyed, false, 'no body was announced: the connection stays open for the next request');
		get.socket.destroy();
	});

	test('connections past HTTP_MAX_CONNECTIONS are dropped at once', async () => {
		const held = await Promise.all([open(), open(), open(), open()]);
		const extra = await open();
		within(await extra.closed, 1_000, 'dropping the connection over the limit');
		assert.equal(extra.received(), '');
		for (const { socket } of held) socket.destroy();
		await Promise.all(held.map(({ closed }) => closed));
		// Below the limit again: served.
		const again = await open();
		again.socket.write('GET /healthz HTTP/1.1\r\nHost: haven\r\nConnection: close\r\n\r\n');
		await again.closed;
		assert.match(again.received(), /^HTTP\/1\.1 200 /);
	});
});
