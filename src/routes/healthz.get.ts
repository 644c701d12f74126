import type { Route } from '@sapphire/plugin-api';
import { ApiRoute } from '../lib/api/route.ts';
import { sendJson } from '../lib/api/json-response.ts';
import { Health } from '../lib/api/schemas.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';

/** Liveness: answers without touching the database, so a database outage does not restart the process. */
export class HealthRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Liveness check',
				description: 'Answers while the process serves HTTP, without touching the database.',
				tags: ['Service'],
				responses: { 200: { description: 'The process is alive.', schema: Health } },
			},
		});
	}

	run(_request: HttpRequest, response: HttpResponse) {
		sendJson(response, 200, { status: 'ok' });
	}
}
