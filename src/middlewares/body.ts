import { Middleware, type ApiRequest } from '@sapphire/plugin-api';
import { readJsonBody, validate } from '../lib/api/body.ts';
import { isApiRoute, setInput } from '../lib/api/route.ts';
import { MAX_BODY_BYTES } from '../lib/api/schemas.ts';

/**
 * Replaces plugin-api's `body` middleware, which only compares Content-Length with a 50 MB default (chunked bodies
 * pass unchecked, DESIGN.md §3 trap 2). Validates the query and reads and validates the JSON body of routes that
 * declare them, so a route only ever sees valid input.
 */
export class BodyMiddleware extends Middleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 20 });
	}

	override async run(request: ApiRequest) {
		const route = request.route;
		if (!isApiRoute(route) || (!route.doc.body && !route.doc.query)) return;
		const query = route.doc.query ? validate(route.doc.query, request.query, 'query') : undefined;
		const body = route.doc.body ? validate(route.doc.body, await readJsonBody(request, MAX_BODY_BYTES), 'body') : undefined;
		setInput(request, { body, query });
	}
}
