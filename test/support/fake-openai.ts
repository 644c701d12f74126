// A stand-in for the OpenAI API on loopback, good enough for the real `openai` SDK:
// POST /v1/chat/completions and POST /v1/moderations, with failures on demand.
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'answer' | 'fail' | 'stall' | 'rate_limit' | 'garbage';
/** What 'garbage' sends with its 200: unparsable JSON, JSON of the wrong shape, or a completion with empty content. */
export type GarbageKind = 'invalid_json' | 'wrong_shape' | 'empty_content';

/** Put into every error body; tests assert it never comes out of Haven. */
export const FAKE_SECRET = 'SECRET-provider-detail sk-live-0000 internal-host:8443';

export interface FakeRequest {
	path: string;
	body: any;
	authorization: string | undefined;
	headers: IncomingHttpHeaders;
	at: number;
}

export interface ModerationScoresInput {
	selfHarm?: number;
	selfHarmIntent?: number;
	selfHarmInstructions?: number;
}

export interface FakeOpenAi {
	/** Base URL for the SDK, e.g. http://127.0.0.1:PORT/v1 */
	readonly url: string;
	mode: FakeMode;
	/** Behaviours used one per request (either endpoint) before falling back to `mode`. */
	queue: FakeMode[];
	reply: string | ((body: any) => string);
	/** How long 'stall' holds a request before answering; Infinity holds it until the client leaves or close(). */
	stallMs: number;
	/** `retry-after` header of a 429 (seconds); undefined sends none. */
	retryAfter: string | undefined;
	garbage: GarbageKind;
	moderation: ModerationScoresInput;
	readonly requests: FakeRequest[];
	/** Back to defaults; forgets recorded requests. */
	reset(): void;
	close(): Promise<void>;
}

const MODERATION_CATEGORIES = [
	'harassment',
	'harassment/threatening',
	'hate',
	'hate/threatening',
	'illicit',
	'illicit/violent',
	'self-harm',
	'self-harm/intent',
	'self-harm/instructions',
	'sexual',
	'sexual/minors',
	'violence',
	'violence/graphic',
];

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

function completion(model: string, content: string) {
	return {
		id: `chatcmpl-fake-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

function moderationResult(model: string, input: ModerationScoresInput) {
	const scores: Record<string, number> = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, 0.0001]));
	scores['self-harm'] = input.selfHarm ?? 0.0001;
	scores['self-harm/intent'] = input.selfHarmIntent ?? 0.0001;
	scores['self-harm/instructions'] = input.selfHarmInstructions ?? 0.0001;
	return {
		id: `modr-fake-${Date.now()}`,
		model,
		results: [
			{
				flagged: Object.values(scores).some((s) => s >= 0.5),
				categories: Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, scores[c]! >= 0.5])),
				category_scores: scores,
				category_applied_input_types: Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, ['text']])),
			},
		],
	};
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
	const stallTimers = new Set<NodeJS.Timeout>();

	function respond(path: string, body: any, mode: FakeMode, res: http.ServerResponse): void {
		switch (mode) {
			case 'fail':
				return send(res, 500, { error: { message: FAKE_SECRET, type: 'server_error', param: null, code: null } });
			case 'rate_limit':
				return send(
					res,
					429,
					{ error: { message: `Rate limit reached. ${FAKE_SECRET}`, type: 'requests', param: null, code: 'rate_limit_exceeded' } },
					fake.retryAfter === undefined ? {} : { 'retry-after': fake.retryAfter },
				);
			case 'garbage':
				if (fake.garbage === 'invalid_json') return send(res, 200, '{"choices": [{"message": {"content": "half');
				if (fake.garbage === 'wrong_shape') return send(res, 200, { hello: 'world', choices: 'nope' });
				return send(res, 200, path.endsWith('/moderations') ? { results: [] } : completion(body?.model ?? '', ''));
			case 'stall': {
				if (!Number.isFinite(fake.stallMs)) return; // hold until the client aborts or close() destroys the socket
				const timer = setTimeout(() => {
					stallTimers.delete(timer);
					if (!res.destroyed) respond(path, body, 'answer', res);
				}, fake.stallMs);
				stallTimers.add(timer);
				res.on('close', () => {
					clearTimeout(timer);
					stallTimers.delete(timer);
				});
				return;
			}
			case 'answer':
				if (path.endsWith('/moderations')) return send(res, 200, moderationResult(body?.model ?? '', fake.moderation));
				return send(res, 200, completion(body?.model ?? '', typeof fake.reply === 'function' ? fake.reply(body) : fake.reply));
		}
	}

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const path = (req.url ?? '/').split('?')[0]!;
			if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/moderations')) {
				return send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
			}
			let body: any;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				return send(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } });
			}
			const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
			fake.requests.push({ path, body, authorization, headers: req.headers, at: Date.now() });
			respond(path, body, fake.queue.shift() ?? fake.mode, res);
		});
	});

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	const defaults = () => ({
		mode: 'answer' as FakeMode,
		queue: [] as FakeMode[],
		reply: 'I hear you. That sounds like a lot to carry.' as FakeOpenAi['reply'],
		stallMs: Infinity,
		retryAfter: '1' as string | undefined,
		garbage: 'invalid_json' as GarbageKind,
		moderation: {} as ModerationScoresInput,
	});

	const fake: FakeOpenAi = {
		url: `http://127.0.0.1:${port}/v1`,
		...defaults(),
		requests: [],
		reset() {
			Object.assign(fake, defaults());
			fake.requests.length = 0;
		},
		close() {
			for (const timer of stallTimers) clearTimeout(timer);
			stallTimers.clear();
			return new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections(); // stalled requests would otherwise keep close() waiting
			});
		},
	};
	return fake;
}
