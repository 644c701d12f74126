import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * The store a fleet of Haven instances shares for its limits (REDIS_URL: Valkey or Redis): HTTP rate limits
 * (src/middlewares/rateLimit.ts) and command cooldowns (src/preconditions/Cooldown.ts). Without REDIS_URL there is none
 * and every limit stays in the instance's memory.
 *
 * An outage of the store never reaches a user as an error: every limit falls back to the instance's own in-memory
 * limiter while the store is not connected, and for `PAUSE_MS` after a command failed or took longer than
 * `COMMAND_TIMEOUT_MS` (a stalled server). So during an outage each instance enforces each limit on its own (a client
 * spreading its requests over N instances gets up to N times the limit), and the shared counts resume when the store
 * answers again. Starting never waits for the store: an instance whose store is down starts, and limits in memory.
 */

/** A command to the store that takes longer than this fails, and the limit is decided in memory. */
export const COMMAND_TIMEOUT_MS = 500;
/** After a failed command, the store is left alone this long (requests do not each wait for a timeout). */
export const PAUSE_MS = 5_000;
const CONNECT_TIMEOUT_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 5_000;

export interface SharedStoreLog {
	info(message: string): void;
	warn(message: string): void;
}

export class SharedStore {
	readonly client: Redis;
	/** Prepended to every key (REDIS_KEY_PREFIX), so several Havens (or test runs) can share one server. */
	readonly prefix: string;
	readonly #log: SharedStoreLog;
	readonly #now: () => number;
	#pausedUntil = 0;
	/** Whether the last thing heard was a failure (logged once per outage, not once per reconnection attempt). */
	#down = false;

	constructor(url: string, prefix: string, log: SharedStoreLog, now: () => number = Date.now) {
		this.prefix = prefix;
		this.#log = log;
		this.#now = now;
		this.client = new Redis(url, {
			connectTimeout: CONNECT_TIMEOUT_MS,
			commandTimeout: COMMAND_TIMEOUT_MS,
			// Fail at once while disconnected rather than queue: the caller decides in memory instead of waiting.
			enableOfflineQueue: false,
			maxRetriesPerRequest: 0,
			retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
		});
		this.client.on('ready', () => this.answered());
		this.client.on('error', (error: Error) => this.#wentDown(error));
	}

	/** The store is connected and has not failed in the last `PAUSE_MS`. */
	available(): boolean {
		return this.client.status === 'ready' && this.#now() >= this.#pausedUntil;
	}

	/** A command failed (or timed out): decide in memory for a while. */
	failed(error: unknown): void {
		this.#pausedUntil = this.#now() + PAUSE_MS;
		this.#wentDown(error);
	}

	/** The store answered (or connected): after an outage, say that the limits are shared again. */
	answered(): void {
		if (!this.#down) return;
		this.#down = false;
		this.#log.info('Shared store (REDIS_URL) is back: rate limits and cooldowns are shared by the fleet again');
	}

	/** A fixed-window counter in the store: `points` uses per window of `durationMs` (whole seconds), per key. */
	limiter(name: string, points: number, durationMs: number): RateLimiterRedis {
		return new RateLimiterRedis({
			storeClient: this.client,
			keyPrefix: `${this.prefix}${name}`,
			points,
			duration: Math.max(1, Math.ceil(durationMs / 1000)),
			rejectIfRedisNotReady: true,
		});
	}

	/** Says goodbye to the server when connected, then drops the connection; never throws, never waits long. */
	async close(): Promise<void> {
		if (this.client.status === 'ready') {
			await Promise.race([
				this.client.quit().catch(() => undefined),
				new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS).unref()),
			]);
		}
		this.client.disconnect();
	}

	#wentDown(error: unknown): void {
		if (this.#down) return;
		this.#down = true;
		const reason = error instanceof Error ? error.message : String(error);
		this.#log.warn(
			`Shared store (REDIS_URL) unavailable (${reason}): rate limits and cooldowns are kept in this instance's memory until it answers again`,
		);
	}
}

export interface SharedUse {
	allowed: boolean;
	/** Uses counted in the window, this one included (refused uses count too). */
	consumed: number;
	/** Milliseconds until the window ends. */
	msBeforeNext: number;
}

/**
 * Counts one use of `key` in the store: allowed or refused, or `undefined` when the store failed (the store is then
 * paused, and the caller decides in memory).
 */
export async function consume(store: SharedStore, limiter: RateLimiterRedis, key: string): Promise<SharedUse | undefined> {
	try {
		const res = await limiter.consume(key);
		store.answered();
		return { allowed: true, consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext };
	} catch (rejection) {
		if (rejection instanceof RateLimiterRes) {
			store.answered();
			return { allowed: false, consumed: rejection.consumedPoints, msBeforeNext: rejection.msBeforeNext };
		}
		store.failed(rejection);
		return undefined;
	}
}
