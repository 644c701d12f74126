import { performance } from 'node:perf_hooks';
import { container, Listener, LogLevel } from '@sapphire/framework';
import { dispatchRequest } from '../../lib/framework/http-dispatch.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';
import { methodLabel, routeLabel } from '../../lib/operations/metrics.ts';

/**
 * Replaces plugin-api's request listener (a piece of the same name): it listens to Node's server itself rather than
 * to plugin-api's event emitter, counts the request, closes the connection after each answer while shutting down, and routes in one step
 * (src/lib/framework/http-dispatch.ts; the seam is described in src/lib/framework/README.md).
 */
export class PluginServerRequest extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: container.server.server, event: 'request' });
	}

	run(request: HttpRequest, response: HttpResponse) {
		const { server, metrics, logger } = this.container;
		metrics.observeHttp(request, response);
		// The access log (LOG_LEVEL=debug): one line when the response ends; nothing is attached at other levels.
		if (logger.has(LogLevel.Debug)) {
			request.receivedAt ??= performance.now();
			response.once('close', logAccess);
		}
		// Shutting down (the listening socket is closed, src/index.ts, shutdown): a request that still arrives on a
		// kept-alive connection is served like the ones in flight, with `Connection: close`, so the client takes its next
		// request elsewhere (in a rolling restart, to another instance) instead of receiving an error for this one.
		if (!server.server.listening) response.setHeader('Connection', 'close');
		return dispatchRequest(request, response);
	}
}

/**
 * `HTTP GET /v1/stats 200 1.8 ms`: the method, the route template (the same labels as the metrics: never the raw
 * URL, so no query string, path parameter or body), the status (`aborted` when the client left first) and the time
 * to the response's end. One function for every response (`this` is the response), not a closure per request.
 */
function logAccess(this: HttpResponse & { req: HttpRequest }): void {
	const request = this.req;
	const status = this.writableFinished ? String(this.statusCode) : 'aborted';
	const ms = performance.now() - (request.receivedAt ?? performance.now());
	container.logger.debug(`HTTP ${methodLabel(request.method)} ${routeLabel(request)} ${status} ${ms.toFixed(1)} ms`);
}
