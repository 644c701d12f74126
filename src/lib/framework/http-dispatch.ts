import { container } from '@sapphire/framework';
import { RouterRoot, ServerEvent, type MethodName } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../api/middleware.ts';
import { isApiRoute } from '../api/route.ts';
import type { HttpRequest, HttpResponse } from './http-request.ts';

/**
 * What plugin-api's own request listener does (its piece PluginServerRequest), done in one step: the same routing
 * and middlewares, but a found route runs right here instead of through two more events (RouterFound, then
 * MiddlewareSuccess, whose listeners Haven does not load: setup.ts, `dropUnusedApiPieces`). Each of those hops cost a
 * tenth or more of the throughput of a small GET (bench/http.ts). Unknown paths, wrong methods and every error still
 * go to plugin-api's events, where Haven's JSON listeners answer them (src/listeners/api).
 *
 * Every route is an ApiRoute and every middleware an ApiMiddleware (refused at start otherwise: setup.ts,
 * `requireHavenBases`), so they are run with Haven's own request and response types, without casts.
 */
export async function dispatchRequest(request: HttpRequest, response: HttpResponse): Promise<void> {
	const { server } = container;
	const url = request.url ?? '/';
	const mark = url.indexOf('?');
	const parts = RouterRoot.normalize(mark === -1 ? url : url.slice(0, mark));
	if (mark !== -1) request.query = Object.fromEntries(new URLSearchParams(url.slice(mark + 1)));
	const branch = server.routes.router.find(parts);
	const node = branch?.node ?? null;
	const found = node?.get((request.method ?? 'GET') as MethodName) ?? null;
	const route = isApiRoute(found) ? found : null;
	if (node) request.params = node.extractParameters(parts);
	request.routerNode = node;
	request.route = route;

	try {
		// As MiddlewareStore#run, but a synchronous middleware is not awaited (one microtask less each).
		for (const middleware of server.middlewares.sortedMiddlewares) {
			if (response.writableEnded) break;
			if (!middleware.enabled || !(middleware instanceof ApiMiddleware)) continue;
			const result = middleware.run(request, response);
			if (result instanceof Promise) await result;
		}
	} catch (error) {
		emit(ServerEvent.MiddlewareError, error, request, response);
		return;
	}
	if (response.writableEnded) return;
	if (branch === null) emit(ServerEvent.RouterBranchNotFound, request, response);
	else if (route === null) emit(ServerEvent.RouterBranchMethodNotAllowed, request, response, branch);
	else {
		try {
			const result = route.run(request, response);
			if (result instanceof Promise) await result;
		} catch (error) {
			emit(ServerEvent.RouteError, error, request, response);
		}
	}
}

/**
 * Hands a failure to its listener. plugin-api's Server types its events with ApiRequest and ApiResponse; the objects
 * are Haven's (see http-request.ts), and so are the listeners that receive them (src/listeners/api).
 */
function emit(event: ServerEvent, ...args: unknown[]): void {
	(container.server as unknown as { emit(event: ServerEvent, ...args: unknown[]): boolean }).emit(event, ...args);
}
