/**
 * System log lines for LOG_CHANNEL_ID (gateway, guild join/leave, startup). Lines are built by the
 * callers from counts and ids only, never from user content (server names included: they are user-chosen text).
 *
 * Rate limited: at most one message every `intervalMs` (default 2 s), a small queue behind it (default 20 lines),
 * lines beyond it are dropped and counted, and the count is reported with the next message. Lines waiting together
 * are joined into one message (up to Discord's 2,000 characters). A failed send is logged once per kind of failure
 * and never retried or thrown. `stop()` cancels the timer and drops what is left.
 */

export interface LogChannelOptions {
	send(content: string): Promise<void>;
	log: { warn(message: string): void };
	intervalMs?: number;
	maxQueue?: number;
	now?: () => number;
}

export interface LogChannel {
	post(line: string): void;
	/** Lines dropped so far because the queue was full. */
	readonly dropped: number;
	/** Resolves once every queued line has been sent (or given up on); for tests and shutdown. */
	idle(): Promise<void>;
	stop(): void;
}

const MAX_CONTENT = 2_000;

export function createLogChannel({ send, log, intervalMs = 2_000, maxQueue = 20, now = Date.now }: LogChannelOptions): LogChannel {
	const queue: string[] = [];
	let dropped = 0;
	let unreported = 0;
	let lastSentAt = -Infinity;
	let timer: NodeJS.Timeout | undefined;
	let sending: Promise<void> | undefined;
	let stopped = false;
	const warned = new Set<string>();
	let idleWaiters: (() => void)[] = [];

	const settle = () => {
		if (queue.length || timer || sending) return;
		const waiters = idleWaiters;
		idleWaiters = [];
		for (const wake of waiters) wake();
	};

	const schedule = () => {
		if (stopped || timer || sending || !queue.length) return settle();
		const wait = Math.max(0, lastSentAt + intervalMs - now());
		timer = setTimeout(flush, wait);
		timer.unref();
	};

	function takeBatch(): string {
		let content = unreported ? `(${unreported} earlier log line${unreported === 1 ? '' : 's'} dropped: too many at once)` : '';
		unreported = 0;
		while (queue.length) {
			const next = queue[0]!.slice(0, MAX_CONTENT);
			const joined = content ? `${content}\n${next}` : next;
			if (joined.length > MAX_CONTENT) break;
			content = joined;
			queue.shift();
		}
		return content;
	}

	function flush(): void {
		timer = undefined;
		if (stopped || !queue.length) return settle();
		const content = takeBatch();
		lastSentAt = now();
		sending = send(content)
			.catch((error: unknown) => {
				const kind =
					(error as { code?: unknown; status?: unknown })?.code ??
					(error as { status?: unknown })?.status ??
					(error as Error)?.name ??
					'error';
				if (!warned.has(String(kind))) {
					warned.add(String(kind));
					log.warn(
						`LOG_CHANNEL_ID: could not post a system log line (${String(kind)}); check that the channel exists and Haven may send messages there`,
					);
				}
			})
			.finally(() => {
				sending = undefined;
				schedule();
			});
	}

	return {
		post(line) {
			if (stopped) return;
			if (queue.length >= maxQueue) {
				dropped++;
				unreported++;
				return;
			}
			queue.push(line);
			schedule();
		},
		get dropped() {
			return dropped;
		},
		idle() {
			if (!queue.length && !timer && !sending) return Promise.resolve();
			return new Promise((resolve) => idleWaiters.push(resolve));
		},
		stop() {
			stopped = true;
			clearTimeout(timer);
			timer = undefined;
			queue.length = 0;
			settle();
		},
	};
}
