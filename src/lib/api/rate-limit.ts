/**
 * Fixed-window rate limits without timers. A client's window opens with its first request and lasts `windowMs`;
 * up to `limit` requests pass in it, the rest get 429 until it ends, and the next request opens a new window.
 * (So a client can send at most 2 x limit requests across a window boundary, and never more than that in any
 * `windowMs` span.) Expired windows are swept lazily, at most once a window length, during normal calls: nothing
 * keeps the process alive and nothing needs stopping (an interval timer would hold the process open at shutdown).
 *
 * The table is bounded (`maxKeys`, 50,000 windows by default, a few MB): behind TRUST_PROXY a client can name a new
 * address in `X-Forwarded-For` with every request. When it is full, a new address first makes room by a sweep (at most
 * once a second); failing that, it shares one overflow window with every other address that did not fit, until
 * windows end and free room. So a flood of made-up addresses costs bounded memory and gets one limit between them.
 */

import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { consume, type SharedStore } from '../core/shared-store.ts';

export const DEFAULT_MAX_KEYS = 50_000;
const OVERFLOW_KEY = '\0overflow';
const FULL_SWEEP_EVERY_MS = 1_000;

export interface RateDecision {
	allowed: boolean;
	limit: number;
	remaining: number;
	/** Milliseconds until the window ends (a fresh quota). */
	resetMs: number;
}

interface Window {
	count: number;
	endsAt: number;
}

export class FixedWindowLimiter {
	readonly limit: number;
	readonly windowMs: number;
	readonly #windows = new Map<string, Window>();
	readonly #now: () => number;
	readonly #maxKeys: number;
	#nextSweep: number;
	#nextFullSweep = 0;

	constructor(limit: number, windowMs: number, now: () => number = Date.now, maxKeys = DEFAULT_MAX_KEYS) {
		this.limit = limit;
		this.windowMs = windowMs;
		this.#now = now;
		this.#maxKeys = maxKeys;
		this.#nextSweep = now() + windowMs;
	}

	/** Counts one request for `key` and says whether it may pass. */
	take(key: string): RateDecision {
		const now = this.#now();
		if (now >= this.#nextSweep) this.sweep(now);
		if (!this.#windows.has(key) && this.#windows.size >= this.#maxKeys) {
			if (now >= this.#nextFullSweep) {
				this.#nextFullSweep = now + FULL_SWEEP_EVERY_MS;
				this.sweep(now);
			}
			if (this.#windows.size >= this.#maxKeys) key = OVERFLOW_KEY;
		}
		let window = this.#windows.get(key);
		if (!window || now >= window.endsAt) {
			window = { count: 0, endsAt: now + this.windowMs };
			this.#windows.set(key, window);
		}
		const allowed = window.count < this.limit;
		if (allowed) window.count++;
		return { allowed, limit: this.limit, remaining: this.limit - window.count, resetMs: window.endsAt - now };
	}

	/** Forgets windows that have ended. */
	sweep(now = this.#now()): void {
		for (const [key, window] of this.#windows) if (now >= window.endsAt) this.#windows.delete(key);
		this.#nextSweep = now + this.windowMs;
	}

	get size(): number {
		return this.#windows.size;
	}
}

/** A limit as the middleware sees it: in memory (answers at once) or in the shared store (answers later). */
export interface Limiter {
	readonly limit: number;
	take(key: string): RateDecision | Promise<RateDecision>;
}

/**
 * The same fixed windows, counted in the shared store (REDIS_URL) so that every instance of a fleet counts against one
 * window per client: a window opens with the client's first request to any instance and lasts `windowMs` (whole
 * seconds). When the store is unavailable or fails (src/lib/core/shared-store.ts), the request is counted in this
 * instance's own `FixedWindowLimiter` instead: never an error for the client, one instance's count for a while.
 */
export class SharedWindowLimiter implements Limiter {
	readonly limit: number;
	readonly windowMs: number;
	readonly #store: SharedStore;
	readonly #shared: RateLimiterRedis;
	readonly fallback: FixedWindowLimiter;

	constructor(store: SharedStore, name: string, limit: number, windowMs: number) {
		this.limit = limit;
		this.windowMs = windowMs;
		this.#store = store;
		this.#shared = store.limiter(name, limit, windowMs);
		this.fallback = new FixedWindowLimiter(limit, windowMs);
	}

	take(key: string): RateDecision | Promise<RateDecision> {
		if (!this.#store.available()) return this.fallback.take(key);
		return consume(this.#store, this.#shared, key).then((use) =>
			use
				? { allowed: use.allowed, limit: this.limit, remaining: this.limit - use.consumed, resetMs: Math.max(0, use.msBeforeNext) }
				: this.fallback.take(key),
		);
	}
}

/** The decision to report in the RateLimit-* headers when several limits apply: the one closest to running out. */
export function tightest(decisions: RateDecision[]): RateDecision {
	return decisions.reduce((a, b) => {
		if (a.allowed !== b.allowed) return a.allowed ? b : a;
		if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b;
		return a.resetMs >= b.resetMs ? a : b;
	});
}

/** Headers for a decision; seconds, rounded up, never 0 while a window is open. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
	const reset = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
	const headers: Record<string, string> = {
		'RateLimit-Limit': String(decision.limit),
		'RateLimit-Remaining': String(Math.max(0, decision.remaining)),
		'RateLimit-Reset': reset,
	};
	if (!decision.allowed) headers['Retry-After'] = reset;
	return headers;
}
