import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` until it returns something other than `undefined` or `false`, and returns that; throws once
 * `timeoutMs` has passed (naming `what`, and the last error `check` threw, if any). For effects with no event to
 * wait on: a row written by a listener, a scheduler's next run, a log line.
 */
export async function waitFor<T>(
	check: () => Promise<T | undefined | false> | T | undefined | false,
	{ timeoutMs = 5_000, everyMs = 20, what = 'a condition' }: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined && value !== false) return value as T;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() >= deadline) {
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
		}
		await sleep(everyMs);
	}
}
