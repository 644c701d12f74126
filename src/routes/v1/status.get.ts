import type { Route } from '@sapphire/plugin-api';
import { ApiRoute } from '../../lib/api/route.ts';
import { sendJson } from '../../lib/api/json-response.ts';
import { Status } from '../../lib/api/schemas.ts';
import { currentStatus } from '../../lib/operations/status.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class StatusRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Live bot and shard status',
				description: 'For the website status page. In API-only mode (no Discord token) the status is `degraded` with no shards.',
				tags: ['Service'],
				database: true,
				responses: { 200: { description: 'The status now.', schema: Status } },
			},
		});
	}

	async run(_request: HttpRequest, response: HttpResponse) {
		sendJson(response, 200, await currentStatus());
	}
}
