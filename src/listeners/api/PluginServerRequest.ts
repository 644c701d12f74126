import { Listener } from '@sapphire/framework';
import { RouterRoot, ServerEvent, type ApiRequest, type ApiResponse, type MethodName } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/errors.ts';

/**
 * Replaces plugin-api's request listener: the same routing and middlewares, but a found route runs right here instead
 * of through two more events (RouterFound, MiddlewareSuccess), which cost a third of the throughput. Unknown paths,
 * wrong methods and every error still go through the JSON listeners (404, 405, the one error funnel).
 */
export class PluginServerRequest extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.Request });
	}

	async run(request: ApiRequest, response: ApiResponse) {
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
		request.query = mark === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(mark + 1)));
		const branch = server.routes.router.find(parts);
		const node = branch?.node ?? null;
		const route = node?.get((request.method ?? 'GET') as MethodName) ?? null;
		if (node) request.params = node.extractParameters(parts);
		request.routerNode = node;
		request.route = route;

		try {
			// As MiddlewareStore#run, but a synchronous middleware is not awaited (one microtask less each).
			for (const middleware of server.middlewares.sortedMiddlewares) {
				if (response.writableEnded) break;
				if (!middleware.enabled) continue;
				const result = middleware.run(request, response);
				if (result instanceof Promise) await result;
			}
		} catch (error) {
			server.emit(ServerEvent.MiddlewareError, error as Error, request, response);
			return;
		}
		if (response.writableEnded) return;
		if (branch === null) server.emit(ServerEvent.RouterBranchNotFound, request, response);
		else if (route === null) server.emit(ServerEvent.RouterBranchMethodNotAllowed, request, response, branch);
		else {
			try {
				await route.run(request, response);
			} catch (error) {
				server.emit(ServerEvent.RouteError, error as Error, request, response);
			}
		}
	}
}
