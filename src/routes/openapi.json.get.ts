import type { Route } from '@sapphire/plugin-api';
import { buildOpenApiDocument } from '../lib/api/openapi.ts';
import { ApiRoute } from '../lib/api/route.ts';
import { sendJson } from '../lib/api/json-response.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';

/** The OpenAPI 3.1 document, generated from the loaded route pieces and their zod schemas. */
export class OpenApiRoute extends ApiRoute {
	#document: unknown;

	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'This OpenAPI document',
				tags: ['Service'],
				responses: { 200: { description: 'OpenAPI 3.1 document.', mediaType: 'application/json' } },
			},
		});
	}

	run(_request: HttpRequest, response: HttpResponse) {
		const { stores, version, config } = this.container;
		this.#document ??= buildOpenApiDocument(stores.get('routes').values(), { version, serverUrl: config.status.botApiUrl });
		sendJson(response, 200, this.#document, { 'Cache-Control': 'no-cache' });
	}
}
