// Records every request it receives and answers with a configurable status and delay.
// For testing outgoing calls: status heartbeats, bot-list integrations.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
	method: string;
	path: string;
	/** Path plus query string. */
	url: string;
	headers: IncomingHttpHeaders;
	/** Parsed JSON when the body is JSON, else the raw text (undefined when empty). */
	body: any;
	rawBody: string;
	at: number;
}

export interface CaptureServer {
	/** http://127.0.0.1:PORT (no trailing slash) */
	readonly url: string;
	readonly requests: CapturedRequest[];
	/** Status (and optional JSON body) for later requests, answered after delayMs. */
	setResponse(status: number, delayMs?: number, body?: unknown): void;
	/** Resolves with the requests once at least n have arrived; rejects after timeoutMs. */
	waitForRequests(n: number, timeoutMs?: number): Promise<CapturedRequest[]>;
	close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
	const requests: CapturedRequest[] = [];
	const waiters = new Set<() => void>();
	const timers = new Set<NodeJS.Timeout>();
	let response = { status: 200, delayMs: 0, body: { ok: true } as unknown };

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks).toString('utf8');
			let body: any = rawBody === '' ? undefined : rawBody;
			try {
				if (rawBody) body = JSON.parse(rawBody);
			} catch {
				// not JSON: keep the text
			}
			const url = req.url ?? '/';
			requests.push({ method: req.method ?? '', path: url.split('?')[0]!, url, headers: req.headers, body, rawBody, at: Date.now() });
			for (const wake of waiters) wake();

			const { status, delayMs, body: answer } = response;
			const reply = () => {
				if (res.destroyed) return;
				const text = answer === undefined ? '' : JSON.stringify(answer);
				res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
				res.end(text);
			};
			if (delayMs <= 0) return reply();
			const timer = setTimeout(() => {
				timers.delete(timer);
				reply();
			}, delayMs);
			timers.add(timer);
			res.on('close', () => {
				clearTimeout(timer);
				timers.delete(timer);
			});
		});
	});

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		setResponse(status, delayMs = 0, body = { ok: true }) {
			response = { status, delayMs, body };
		},
		waitForRequests(n, timeoutMs = 5000) {
			if (requests.length >= n) return Promise.resolve(requests.slice());
			return new Promise((resolve, reject) => {
				const done = () => {
					clearTimeout(timer);
					waiters.delete(check);
				};
				const check = () => {
					if (requests.length < n) return;
					done();
					resolve(requests.slice());
				};
				const timer = setTimeout(() => {
					done();
					reject(new Error(`expected ${n} request(s) within ${timeoutMs} ms, got ${requests.length}`));
				}, timeoutMs);
				waiters.add(check);
			});
		},
		close() {
			for (const timer of timers) clearTimeout(timer);
			timers.clear();
			return new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}
