import { container, Listener } from '@sapphire/framework';
import { sendError } from '../../lib/api/http-error.ts';
import { dispatchRequest } from '../../lib/framework/http-dispatch.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

/**
 * Replaces plugin-api's request listener (a piece of the same name): it listens to Node's server itself rather than
 * to plugin-api's event emitter, counts the request, refuses new requests while shutting down, and routes in one step
 * (src/lib/framework/http-dispatch.ts; the seam is described in src/lib/framework/README.md).
 */
export class PluginServerRequest extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: container.server.server, event: 'request' });
	}

	run(request: HttpRequest, response: HttpResponse) {
		const { server, metrics } = this.container;
		metrics.observeHttp(request, response);
		// Shutting down (the listening socket is closed): a new request on a kept-alive connection is refused, and the
		// connection closed, while the requests already in flight finish (src/index.ts, shutdown).
		if (!server.server.listening) {
			sendError(response, 503, 'Haven is shutting down; try again shortly', { Connection: 'close', 'Retry-After': '5' });
			return;
		}
		return dispatchRequest(request, response);
	}
}
