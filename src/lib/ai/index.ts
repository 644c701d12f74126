import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { CAREFUL_ADDENDUM, HAVEN_SYSTEM_PROMPT } from './prompts.ts';
import { sanitizeReply } from './sanitize.ts';

export { CAREFUL_ADDENDUM, FALLBACK_REPLY, HAVEN_SYSTEM_PROMPT, fallbackFor } from './prompts.ts';
export { NUMBER_PLACEHOLDER, sanitizeReply } from './sanitize.ts';

export type AiFailure = 'not_configured' | 'disabled' | 'timeout' | 'rate_limited' | 'failed';

const MESSAGES: Record<AiFailure, string> = {
	not_configured: 'AI is not configured',
	disabled: 'AI is turned off',
	timeout: 'AI request timed out',
	rate_limited: 'AI is rate limited',
	failed: 'AI request failed',
};

/** Always carries a generic message: the provider's error text never leaves this module. */
export class AiError extends Error {
	readonly kind: AiFailure;
	/** HTTP status from the provider, when there was one (safe to log). */
	readonly status: number | undefined;
	constructor(kind: AiFailure, status?: number) {
		super(MESSAGES[kind]);
		this.name = 'AiError';
		this.kind = kind;
		this.status = status;
	}
}

export interface ChatTurn {
	role: 'user' | 'assistant';
	content: string;
}

export interface AiOptions {
	apiKey?: string;
	baseURL?: string;
	model: string;
	/** Overall deadline of one completion, retry and queueing included. Default 20000. */
	timeoutMs?: number;
	/** Default 'omni-moderation-latest'. */
	moderationModel?: string;
	/** Completions in flight at once. Default 4. */
	maxConcurrent?: number;
	/** Completions allowed to wait for a slot; beyond that, 'rate_limited'. Default 32. */
	maxQueue?: number;
	/** Told of every provider call when it ends, for metrics (src/lib/operations/metrics.ts). Never sees text. */
	observe?: (event: AiEvent) => void;
	/**
	 * The owners' run-time switch (src/lib/operations/ai-switch.ts), asked before every call: off ends the call as
	 * `disabled` before the provider; a model replaces `model`. `peek` is its last answer, for `configured`.
	 */
	runtime?: { runtime(): Promise<AiRuntime>; peek(): { enabled: boolean } };
}

/** What the run-time switch says for one call. */
export interface AiRuntime {
	enabled: boolean;
	/** Replaces the configured model; null keeps it. */
	model: string | null;
}

/** One finished provider call: which operation, how it ended, how long it took (queueing and the retry included). */
export interface AiEvent {
	operation: 'complete' | 'moderate';
	outcome: 'ok' | Exclude<AiFailure, 'not_configured' | 'disabled'>;
	seconds: number;
}

export interface CompleteOptions {
	/** Task instructions, added after Haven's own system prompt (which always applies). */
	system?: string;
	/** Crisis screening found risk: append CAREFUL_ADDENDUM. */
	careful?: boolean;
	timeoutMs?: number;
	maxTokens?: number;
	signal?: AbortSignal;
	/** Hashed user id, sent as the provider's safety identifier. */
	user?: string;
}

export interface ModerationScores {
	selfHarm: number;
	selfHarmIntent: number;
	selfHarmInstructions: number;
}

export interface Ai {
	/** A key is set and (as far as last known) the owners have not turned AI off. Every call still checks. */
	readonly configured: boolean;
	complete(turns: ChatTurn[], opts?: CompleteOptions): Promise<string>;
	moderate(text: string, opts?: { timeoutMs?: number }): Promise<ModerationScores | null>;
}

export function buildSystemPrompt(opts: Pick<CompleteOptions, 'system' | 'careful'> = {}): string {
	const parts = [HAVEN_SYSTEM_PROMPT];
	if (opts.system?.trim()) parts.push(opts.system.trim());
	if (opts.careful) parts.push(CAREFUL_ADDENDUM);
	return parts.join('\n\n');
}

/** At most `max` holders at once, a FIFO of at most `maxQueue` waiters, fail fast beyond that. */
function createLimiter(max: number, maxQueue: number) {
	let active = 0;
	const waiters: Array<() => void> = [];
	const release = () => {
		const next = waiters.shift();
		if (next)
			next(); // hand the slot over directly
		else active--;
	};
	return async function acquire(signal: AbortSignal): Promise<() => void> {
		if (signal.aborted) throw new AiError('timeout');
		if (active < max) {
			active++;
		} else {
			if (waiters.length >= maxQueue) throw new AiError('rate_limited');
			await new Promise<void>((resolve, reject) => {
				const grant = () => {
					signal.removeEventListener('abort', onAbort);
					resolve();
				};
				const onAbort = () => {
					waiters.splice(waiters.indexOf(grant), 1);
					reject(new AiError('timeout'));
				};
				waiters.push(grant);
				signal.addEventListener('abort', onAbort, { once: true });
			});
		}
		let released = false;
		return () => {
			if (released) return;
			released = true;
			release();
		};
	};
}

function classify(err: unknown, signal: AbortSignal): AiError {
	if (err instanceof AiError) return err;
	const status = err instanceof APIError && typeof err.status === 'number' ? err.status : undefined;
	if (signal.aborted || err instanceof APIUserAbortError || err instanceof APIConnectionTimeoutError) {
		return new AiError('timeout');
	}
	if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return new AiError('timeout');
	return new AiError(status === 429 ? 'rate_limited' : 'failed', status);
}

/** How long to wait before the one retry, or undefined when the error is not worth retrying. */
function retryDelay(err: unknown, timeoutMs: number): number | undefined {
	if (!(err instanceof APIError)) return undefined;
	const status = err.status;
	const transient = status === undefined ? !(err instanceof APIUserAbortError) : status === 429 || status >= 500;
	if (!transient || err instanceof APIConnectionTimeoutError) return undefined;
	const afterMs = err.headers?.get('retry-after-ms');
	const after = err.headers?.get('retry-after');
	let wait = Math.min(500, timeoutMs / 10);
	if (afterMs) wait = Number(afterMs);
	else if (after) wait = /^\d+(\.\d+)?$/.test(after.trim()) ? Number(after) * 1000 : Date.parse(after) - Date.now();
	// An unreadable retry-after means we cannot know when to retry: give up rather than guess.
	return Number.isFinite(wait) ? Math.max(0, wait) : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		const onAbort = () => {
			clearTimeout(timer);
			reject(new AiError('timeout'));
		};
		const timer = setTimeout(() => {
			signal.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal.addEventListener('abort', onAbort, { once: true });
	});
}

function deadlineSignal(timeoutMs: number, caller?: AbortSignal): AbortSignal {
	const timeout = AbortSignal.timeout(timeoutMs);
	return caller ? AbortSignal.any([timeout, caller]) : timeout;
}

function score(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : undefined;
}

export function createAi(options: AiOptions): Ai {
	const defaultTimeout = options.timeoutMs ?? 20_000;
	const moderationModel = options.moderationModel ?? 'omni-moderation-latest';
	const client = options.apiKey
		? new OpenAI({
				apiKey: options.apiKey,
				baseURL: options.baseURL || undefined,
				timeout: defaultTimeout,
				maxRetries: 0, // we retry ourselves, at most once and only within the deadline
				logLevel: 'off', // OPENAI_LOG=debug would otherwise log users' messages
			})
		: undefined;
	const acquire = createLimiter(options.maxConcurrent ?? 4, options.maxQueue ?? 32);

	const observe = options.observe;
	const report = (operation: AiEvent['operation'], outcome: AiEvent['outcome'], started: number) => {
		try {
			observe?.({ operation, outcome, seconds: (performance.now() - started) / 1000 });
		} catch {
			// an observer never changes an answer
		}
	};

	/** The switch's answer for this call; without a switch (or when it fails), on with the configured model. */
	async function runtimeNow(): Promise<AiRuntime> {
		try {
			return (await options.runtime?.runtime()) ?? { enabled: true, model: null };
		} catch {
			return { enabled: true, model: null };
		}
	}

	async function complete(turns: ChatTurn[], opts: CompleteOptions = {}): Promise<string> {
		if (!client) throw new AiError('not_configured');
		const runtime = await runtimeNow();
		if (!runtime.enabled) throw new AiError('disabled');
		const model = runtime.model ?? options.model;
		if (!observe) return completeOnce(turns, opts, model);
		const started = performance.now();
		try {
			const reply = await completeOnce(turns, opts, model);
			report('complete', 'ok', started);
			return reply;
		} catch (err) {
			const kind = err instanceof AiError ? err.kind : 'failed';
			report('complete', kind === 'not_configured' || kind === 'disabled' ? 'failed' : kind, started);
			throw err;
		}
	}

	async function completeOnce(turns: ChatTurn[], opts: CompleteOptions, model: string): Promise<string> {
		if (!client) throw new AiError('not_configured');
		const timeoutMs = opts.timeoutMs ?? defaultTimeout;
		const deadline = Date.now() + timeoutMs;
		const signal = deadlineSignal(timeoutMs, opts.signal);
		const release = await acquire(signal);
		try {
			const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
				model,
				messages: [{ role: 'system', content: buildSystemPrompt(opts) }, ...turns.map((t) => ({ role: t.role, content: t.content }))],
			};
			if (opts.maxTokens) body.max_completion_tokens = opts.maxTokens;
			if (opts.user) body.safety_identifier = opts.user;

			for (let attempt = 0; ; attempt++) {
				try {
					const res = await client.chat.completions.create(body, {
						signal,
						timeout: Math.max(1, deadline - Date.now()),
						maxRetries: 0,
					});
					const content: unknown = res?.choices?.[0]?.message?.content;
					const reply = typeof content === 'string' ? sanitizeReply(content) : '';
					if (!reply) throw new AiError('failed');
					return reply;
				} catch (err) {
					const failure = classify(err, signal);
					const wait = attempt === 0 && failure.kind !== 'timeout' ? retryDelay(err, timeoutMs) : undefined;
					// Retry only when the second attempt would still get at least half of the budget.
					if (wait === undefined || deadline - Date.now() - wait < timeoutMs / 2) throw failure;
					await sleep(wait, signal);
				}
			}
		} finally {
			release();
		}
	}

	async function moderate(text: string, opts: { timeoutMs?: number } = {}): Promise<ModerationScores | null> {
		if (!client || !text.trim()) return null;
		if (!(await runtimeNow()).enabled) return null;
		const timeoutMs = opts.timeoutMs ?? 3000;
		const started = performance.now();
		const signal = deadlineSignal(timeoutMs);
		try {
			const res = await client.moderations.create({ model: moderationModel, input: text }, { signal, timeout: timeoutMs, maxRetries: 0 });
			const scores: Record<string, unknown> | undefined = res?.results?.[0]?.category_scores as never;
			const selfHarm = score(scores?.['self-harm']);
			const selfHarmIntent = score(scores?.['self-harm/intent']);
			const selfHarmInstructions = score(scores?.['self-harm/instructions']);
			if (selfHarm === undefined || selfHarmIntent === undefined || selfHarmInstructions === undefined) {
				report('moderate', 'failed', started);
				return null;
			}
			report('moderate', 'ok', started);
			return { selfHarm, selfHarmIntent, selfHarmInstructions };
		} catch (err) {
			const kind = classify(err, signal).kind;
			report('moderate', kind === 'not_configured' || kind === 'disabled' ? 'failed' : kind, started);
			return null;
		}
	}

	return {
		get configured() {
			return client !== undefined && (options.runtime?.peek().enabled ?? true);
		},
		complete,
		moderate,
	};
}
