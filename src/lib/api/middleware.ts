import { Middleware } from '@sapphire/plugin-api';
import type { HttpRequest, HttpResponse } from '../framework/http-request.ts';

/**
 * The base of every middleware piece: it receives what Haven's server really makes, HttpRequest and node's
 * ServerResponse (plugin-api's Middleware is typed with its ApiRequest and ApiResponse, which Haven does not build).
 * A middleware piece that does not extend it is refused at start (src/lib/framework/setup.ts, `requireHavenBases`).
 */
export abstract class ApiMiddleware extends Middleware {
	abstract override run(request: HttpRequest, response: HttpResponse): unknown;
}
