import { Route } from '@sapphire/plugin-api';
import type { z } from 'zod';
import type { HttpRequest, HttpResponse } from '../framework/http-request.ts';

/** Named per-route rate limits, on top of the limit every request counts against (see `rate-limit.ts`). */
export type RouteLimit = 'chat' | 'feedback';

export interface ResponseDoc {
	description: string;
	/** JSON body schema; omit for a response without a JSON body. */
	schema?: z.ZodType;
	/** Media type when the body is not JSON (e.g. `text/html`). */
	mediaType?: string;
	headers?: Record<string, { description: string; schema: { type: 'integer' | 'string' } }>;
}

/**
 * What a route is, declared once on the piece: the middlewares enforce it (bearer auth, rate limit, body and query
 * validation) and `/openapi.json` documents it. Error responses that follow from it (400/401/413/415/429/503) are
 * documented automatically; `responses` holds the success and any route-specific errors.
 */
export interface RouteDoc<Body = unknown, Query = unknown> {
	summary: string;
	description?: string;
	tags?: string[];
	/**
	 * Requires `Authorization: Bearer <token>`: `true` is API_TOKEN; `'metrics'` is METRICS_TOKEN, or API_TOKEN when
	 * that is unset (see `bearerToken`).
	 */
	auth?: boolean | 'metrics';
	/** Needs the database: answers 503 with Retry-After while it is unavailable (documented automatically). */
	database?: boolean;
	limit?: RouteLimit;
	body?: z.ZodType<Body>;
	query?: z.ZodObject & z.ZodType<Query>;
	responses: Record<number, ResponseDoc>;
	/** Left out of the OpenAPI document (e.g. static files of `/docs`). */
	hidden?: boolean;
}

export interface ApiRouteOptions<Body, Query> extends Route.Options {
	doc: RouteDoc<Body, Query>;
}

/** A route piece with a `RouteDoc`. `this.body(request)` and `this.query(request)` return the validated input. */
export abstract class ApiRoute<Body = never, Query = never> extends Route<ApiRouteOptions<Body, Query>> {
	get doc(): RouteDoc<Body, Query> {
		return this.options.doc;
	}

	abstract override run(request: HttpRequest, response: HttpResponse): unknown;

	protected body(request: HttpRequest): Body {
		return request.input?.body as Body;
	}

	protected query(request: HttpRequest): Query {
		return request.input?.query as Query;
	}
}

export function isApiRoute(route: unknown): route is ApiRoute<unknown, unknown> {
	return route instanceof ApiRoute;
}
