import type { Middleware } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../lib/api/middleware.ts';
import type { z } from 'zod';
import type { HttpRequest } from '../lib/framework/http-request.ts';
import { readJsonBody, validate } from '../lib/api/body.ts';
import { isApiRoute } from '../lib/api/route.ts';
import { MAX_BODY_BYTES } from '../lib/api/schemas.ts';

/**
 * Replaces plugin-api's `body` middleware (a piece of the same name, see src/lib/framework/README.md), which only
 * compares Content-Length with a 50 MB default: chunked bodies pass unchecked. Validates the query and reads and
 * validates the JSON body of routes that declare them, so a route only ever sees valid input.
 */
export class BodyMiddleware extends ApiMiddleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 20 });
	}

	// Not async itself: a route without input (most GETs) passes without a promise.
	override run(request: HttpRequest) {
		const route = request.route;
		if (!isApiRoute(route)) return;
		const { body, query } = route.doc;
		if (query) request.input = { query: validate(query, request.query, 'query') };
		if (body) return this.#readBody(request, body);
	}

	async #readBody(request: HttpRequest, schema: z.ZodType) {
		request.input = { ...request.input, body: validate(schema, await readJsonBody(request, MAX_BODY_BYTES), 'body') };
	}
}
