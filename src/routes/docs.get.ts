import type { Route } from '@sapphire/plugin-api';
import { DOCS_PAGE, docsCsp } from '../lib/api/docs.ts';
import { ApiRoute } from '../lib/api/route.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';

export class DocsRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Interactive API reference',
				description: 'Swagger UI, served by Haven itself, reading `/openapi.json`.',
				tags: ['Service'],
				responses: { 200: { description: 'An HTML page.', mediaType: 'text/html' } },
			},
		});
	}

	run(_request: HttpRequest, response: HttpResponse) {
		const botApi = this.container.config.status.botApiUrl;
		response.writeHead(200, {
			'Content-Type': 'text/html; charset=utf-8',
			'Content-Length': Buffer.byteLength(DOCS_PAGE),
			'Content-Security-Policy': docsCsp(botApi ? new URL(botApi).origin : undefined),
			'Cache-Control': 'no-cache',
		});
		response.end(DOCS_PAGE);
	}
}
