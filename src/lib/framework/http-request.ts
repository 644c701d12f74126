import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Route, RouterNode } from '@sapphire/plugin-api';

/**
 * The request object of Haven's HTTP server, given to plugin-api through `api.server` (setup.ts, `sapphireOptions`).
 * It carries what routing and the middlewares fill in, and nothing else: plugin-api's own ApiRequest adds body
 * helpers we do not use (our `body` middleware reads and validates bodies) and builds a WeakMap and a WeakSet entry
 * per request, which cost about a fifth of the throughput of a small GET. Routes and middlewares are typed with it
 * (ApiRoute, ApiMiddleware), and a piece that is not is refused at start (setup.ts, `requireHavenBases`).
 */
export class HttpRequest extends IncomingMessage {
	/** The query string; one value per name (the last wins). */
	query: Record<string, string | string[]> = {};
	params: Record<string, string> = {};
	routerNode?: RouterNode | null = null;
	/** The route found, always an ApiRoute (`isApiRoute` narrows it); typed as plugin-api's so that pieces override its methods. */
	route?: Route | null = null;
	/** `performance.now()` when the request arrived (for the latency metric). */
	receivedAt?: number = undefined;
	/** What the `body` middleware validated, for the route to read (see `ApiRoute#body`). */
	input?: { body?: unknown; query?: unknown } = undefined;
}

/** The response object: node's own (plugin-api's ApiResponse adds helpers we do not use). */
export type HttpResponse = ServerResponse;
