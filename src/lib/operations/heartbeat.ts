import type { StatusBody } from '../api/schemas.ts';

/**
 * The status heartbeat, so a status page sees Haven is up: when SERVICE_STATUS_API_KEY is set, POST
 * `{ apiKey, status, version, uptimeSeconds, guilds, shardCount, timestamp }` to STATUS_API_URL shortly after start
 * and then every interval. Each attempt is bounded by a timeout; a failed beat is retried a few times with growing
 * pauses (network errors, timeouts, 408, 429 and 5xx; other statuses are not worth repeating). The next beat is
 * scheduled only when the current one is done, so beats never overlap. Failures are logged without the key and
 * never throw. `stop()` cancels the timer, aborts a beat in flight and waits for it.
 */

export const HEARTBEAT_INTERVAL_MS = 5 * 60_000;

export interface HeartbeatOptions {
	url: string;
	apiKey: string;
	status: () => Promise<StatusBody>;
	log: { info(message: string): void; warn(message: string): void };
	intervalMs?: number;
	/** Delay of the first beat. Default min(5 s, intervalMs). */
	firstDelayMs?: number;
	/** Per attempt. Default 10 s. */
	timeoutMs?: number;
	/** Pauses before each retry; default 2 s, 10 s, 30 s (so a beat is over well before the next one). */
	retryDelaysMs?: readonly number[];
	fetch?: typeof fetch;
}

export interface Heartbeat {
	/** One beat now, retries included (resolves true when delivered). */
	beat(): Promise<boolean>;
	stop(): Promise<void>;
}

export function heartbeatBody(apiKey: string, status: StatusBody, now = new Date()) {
	return {
		apiKey,
		status: status.status,
		version: status.version,
		uptimeSeconds: status.uptimeSeconds,
		guilds: status.guilds,
		shardCount: status.shardCount,
		timestamp: now.toISOString(),
	};
}

/** For logs: where, without credentials or query. */
function describe(url: string): string {
	try {
		const { origin, pathname } = new URL(url);
		return origin + pathname;
	} catch {
		return 'STATUS_API_URL';
	}
}

const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
	const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
	const timeoutMs = options.timeoutMs ?? 10_000;
	const retryDelays = options.retryDelaysMs ?? [2_000, 10_000, 30_000];
	const send = options.fetch ?? fetch;
	const target = describe(options.url);
	const stopping = new AbortController();
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<boolean> | undefined;
	let failing = false;

	const pause = (ms: number) =>
		new Promise<void>((resolve) => {
			const done = () => {
				clearTimeout(wake);
				stopping.signal.removeEventListener('abort', done);
				resolve();
			};
			const wake = setTimeout(done, ms);
			stopping.signal.addEventListener('abort', done, { once: true });
		});

	async function attempt(): Promise<{ ok: boolean; retry: boolean; reason: string }> {
		try {
			const body = JSON.stringify(heartbeatBody(options.apiKey, await options.status()));
			const response = await send(options.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'user-agent': 'haven-heartbeat' },
				body,
				signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping.signal]),
				redirect: 'error',
			});
			await response.body?.cancel().catch(() => undefined);
			if (response.ok) return { ok: true, retry: false, reason: '' };
			return { ok: false, retry: RETRYABLE(response.status), reason: `HTTP ${response.status}` };
		} catch (error) {
			const name = error instanceof Error ? error.name : '';
			return { ok: false, retry: true, reason: name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'network error' };
		}
	}

	async function beat(): Promise<boolean> {
		for (let tries = 0; !stopping.signal.aborted; tries++) {
			const result = await attempt();
			if (result.ok) {
				if (failing) options.log.info(`Status heartbeat to ${target} delivered again`);
				failing = false;
				return true;
			}
			if (stopping.signal.aborted) return false;
			const last = !result.retry || tries >= retryDelays.length;
			options.log.warn(`Status heartbeat to ${target} failed (${result.reason}, attempt ${tries + 1})${last ? '' : '; retrying'}`);
			if (last) break;
			await pause(retryDelays[tries]!);
		}
		failing = true;
		return false;
	}

	const once = () => (running ??= beat().finally(() => (running = undefined)));
	const schedule = (ms: number) => {
		if (stopping.signal.aborted) return;
		timer = setTimeout(() => void once().then(() => schedule(intervalMs)), ms);
		timer.unref();
	};
	schedule(options.firstDelayMs ?? Math.min(5_000, intervalMs));

	return {
		beat: once,
		async stop() {
			stopping.abort();
			clearTimeout(timer);
			await running?.catch(() => undefined);
		},
	};
}
