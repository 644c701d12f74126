/**
 * The optional bot-list integration (INTEGRATION_TOKEN, INTEGRATION_BASE_URL). When the token is set, Haven sends
 *
 *   POST <INTEGRATION_BASE_URL>/bots/<CLIENT_ID>/stats
 *   Authorization: <INTEGRATION_TOKEN>
 *   Content-Type: application/json
 *
 *   { "server_count": <servers the bot is in>, "shard_count": <shards it runs> }
 *
 * once the bot is ready, then every 30 minutes. Nothing else is sent: no names, no user data. An empty token
 * disables it. Each post has a 10 s timeout; a failure is logged (without the token) and the next period tries
 * again. Posts never overlap, and `stop()` cancels the timer and aborts a post in flight.
 */

export const INTEGRATION_INTERVAL_MS = 30 * 60_000;

export interface IntegrationCounts {
	server_count: number;
	shard_count: number;
}

export interface IntegrationOptions {
	baseUrl: string;
	token: string;
	clientId: string;
	counts: () => IntegrationCounts;
	log: { info(message: string): void; warn(message: string): void; debug(message: string): void };
	intervalMs?: number;
	timeoutMs?: number;
	fetch?: typeof fetch;
	/**
	 * Runs a post unless another instance of the fleet is posting or just did (src/lib/fleet: `runFleetJob`);
	 * resolves undefined when it skipped. Unset: every post is sent.
	 */
	exclusive?: (post: () => Promise<boolean>) => Promise<boolean | undefined>;
}

export interface Integration {
	/** Post now (resolves true when accepted with a 2xx). */
	post(): Promise<boolean>;
	/** Post now, then every interval. Idempotent. */
	start(): void;
	stop(): Promise<void>;
}

export function integrationUrl(baseUrl: string, clientId: string): string {
	return `${baseUrl.replace(/\/+$/, '')}/bots/${encodeURIComponent(clientId)}/stats`;
}

export function createIntegration({
	baseUrl,
	token,
	clientId,
	counts,
	log,
	intervalMs = INTEGRATION_INTERVAL_MS,
	timeoutMs = 10_000,
	...rest
}: IntegrationOptions): Integration {
	const doFetch = rest.fetch ?? fetch;
	const url = integrationUrl(baseUrl, clientId);
	const where = new URL(url).origin;
	let timer: NodeJS.Timeout | undefined;
	let inFlight: Promise<boolean> | undefined;
	let stopped = false;
	const abort = new AbortController();

	async function postOnce(): Promise<boolean> {
		const body = JSON.stringify(counts());
		try {
			const response = await doFetch(url, {
				method: 'POST',
				headers: { authorization: token, 'content-type': 'application/json' },
				body,
				signal: AbortSignal.any([abort.signal, AbortSignal.timeout(timeoutMs)]),
			});
			await response.body?.cancel();
			if (!response.ok) {
				log.warn(`Bot-list integration: ${where} answered ${response.status} to the stats post`);
				return false;
			}
			log.debug(`Bot-list integration: posted ${body} to ${where}`);
			return true;
		} catch (error) {
			if (!stopped) log.warn(`Bot-list integration: could not post the stats to ${where} (${(error as Error)?.name ?? 'error'})`);
			return false;
		}
	}

	const exclusive = rest.exclusive;
	const post = () =>
		(inFlight ??= (
			exclusive
				? exclusive(postOnce).then(
						(posted) => posted ?? false,
						() => false,
					)
				: postOnce()
		).finally(() => (inFlight = undefined)));

	return {
		post,
		start() {
			if (timer || stopped) return;
			void post();
			timer = setInterval(() => void post(), intervalMs);
			timer.unref();
		},
		async stop() {
			stopped = true;
			clearInterval(timer);
			timer = undefined;
			abort.abort();
			await inFlight;
		},
	};
}
