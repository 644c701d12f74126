import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Config } from '../core/config.ts';

/**
 * Limits of Node's HTTP server against clients that are slow on purpose or many (all from `config.api.http`):
 * - the headers must arrive within HTTP_HEADERS_TIMEOUT_MS (10 s) and the whole request, body included, within
 *   HTTP_REQUEST_TIMEOUT_MS (30 s); past either, the client gets 408 and the connection is closed
 *   (src/listeners/api/httpClientError.ts). Node only looks every `connectionsCheckingInterval` (30 s by default,
 *   which would double the deadline), so it looks at least every second here;
 * - an idle kept-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS (5 s);
 * - at most HTTP_MAX_CONNECTIONS connections at once: Node drops the ones past it as they arrive.
 * An error answered while the request body is still arriving also closes the connection (`bodyStillArriving`).
 */
export function httpServerOptions(http: Config['api']['http']): ServerOptions {
	return {
		headersTimeout: http.headersTimeoutMs,
		requestTimeout: http.requestTimeoutMs,
		keepAliveTimeout: http.keepAliveTimeoutMs,
		connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(http.headersTimeoutMs / 4))),
	};
}

export function limitConnections(server: Server, http: Config['api']['http']): void {
	server.maxConnections = http.maxConnections;
}

/**
 * Whether the request announced a body that has not been read to its end. Answering an error then (401, 413, 415,
 * 429 ...) must close the connection: otherwise Node keeps reading, and throwing away, whatever the client goes on
 * sending, as slowly as it likes, to keep the connection for its next request.
 */
export function bodyStillArriving(request: IncomingMessage | undefined): boolean {
	if (!request || request.complete) return false;
	const length = request.headers['content-length'];
	return request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}
