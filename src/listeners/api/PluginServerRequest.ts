import { container, Listener } from '@sapphire/framework';
import { RouterRoot, ServerEvent, type ApiRequest, type ApiResponse, type MethodName } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/http-error.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

/**
 * Replaces plugin-api's request listener (a piece of the same name): the same routing and middlewares, but it listens
 * to Node's server itself rather than to plugin-api's event emitter, and a found route runs right here instead of
 * through two more events (RouterFound, MiddlewareSuccess). Each of those hops cost a tenth or more of the throughput
 * of a small GET (bench/http.ts). Unknown paths, wrong methods and every error still go through the JSON listeners
 * (404, 405, the one error funnel).
 */
export class PluginServerRequest extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: container.server.server, event: 'request' });
	}

	async run(request: HttpRequest, response: HttpResponse) {
		const { server, metrics } = this.container;
		metrics.observeHttp(request, response);
		// Shutting down (the listening socket is closed): a new request on a kept-alive connection is refused, and the
		// connection closed, while the requests already in flight finish (src/index.ts, shutdown).
		if (!server.server.listening) {
			sendError(response, 503, 'Haven is shutting down; try again shortly', { Connection: 'close', 'Retry-After': '5' });
			return;
		}
		const url = request.url ?? '/';
		const mark = url.indexOf('?');
		const parts = RouterRoot.normalize(mark === -1 ? url : url.slice(0, mark));
		if (mark !== -1) request.query = Object.fromEntries(new URLSearchParams(url.slice(mark + 1)));
		const branch = server.routes.router.find(parts);
		const node = branch?.node ?? null;
		const route = node?.get((request.method ?? 'GET') as MethodName) ?? null;
		if (node) request.params = node.extractParameters(parts);
		request.routerNode = node;
		request.route = route;

		const [apiRequest, apiResponse] = asPluginApi(request, response);
		try {
			// As MiddlewareStore#run, but a synchronous middleware is not awaited (one microtask less each).
			for (const middleware of server.middlewares.sortedMiddlewares) {
				if (response.writableEnded) break;
				if (!middleware.enabled) continue;
				const result = middleware.run(apiRequest, apiResponse);
				if (result instanceof Promise) await result;
			}
		} catch (error) {
			emit(ServerEvent.MiddlewareError, error as Error, request, response);
			return;
		}
		if (response.writableEnded) return;
		if (branch === null) emit(ServerEvent.RouterBranchNotFound, request, response);
		else if (route === null) emit(ServerEvent.RouterBranchMethodNotAllowed, request, response, branch);
		else {
			try {
				const result = route.run(apiRequest, apiResponse);
				if (result instanceof Promise) await result;
			} catch (error) {
				emit(ServerEvent.RouteError, error as Error, request, response);
			}
		}
	}
}

// plugin-api types pieces and events with its own request and response classes; Haven's server makes HttpRequest and
// node's ServerResponse (src/lib/framework/http-request.ts), which is all our pieces use.
const asPluginApi = (request: HttpRequest, response: HttpResponse) => [request, response] as unknown as [ApiRequest, ApiResponse];

/** Hands a failure to its JSON listener. */
function emit(event: ServerEvent, ...args: unknown[]): void {
	(container.server as unknown as { emit(event: ServerEvent, ...args: unknown[]): boolean }).emit(event, ...args);
}
