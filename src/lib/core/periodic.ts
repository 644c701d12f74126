/**
 * A job run every `intervalMs` and on demand, one pass at a time: a tick while a pass runs shares that pass. The timer
 * does not keep the process alive; `stop` ends it and waits for the pass under way, which can read `stopped` to end
 * early.
 */
export interface Periodic<T> {
	readonly running: boolean;
	readonly stopped: boolean;
	start(): void;
	stop(): Promise<void>;
	/** One pass at `at` (default: the clock). Concurrent calls share the pass in progress. */
	tick(at?: Date): Promise<T>;
}

export function periodic<T>(
	pass: (at: Date) => Promise<T>,
	options: { intervalMs: number; now?: () => Date; onError: (error: unknown) => void },
): Periodic<T> {
	const now = options.now ?? (() => new Date());
	let timer: NodeJS.Timeout | undefined;
	let current: Promise<T> | undefined;
	let stopped = false;

	function tick(at: Date = now()): Promise<T> {
		current ??= pass(at).finally(() => {
			current = undefined;
		});
		return current;
	}

	return {
		get running() {
			return timer !== undefined;
		},
		get stopped() {
			return stopped;
		},
		start() {
			if (timer || stopped) return;
			timer = setInterval(() => {
				tick().catch(options.onError);
			}, options.intervalMs);
			timer.unref();
		},
		async stop() {
			stopped = true;
			clearInterval(timer);
			timer = undefined;
			await current?.catch(() => undefined);
		},
		tick,
	};
}
