import type { Route } from '@sapphire/plugin-api';
import { ApiRoute } from '../../lib/api/route.ts';
import { sendJson } from '../../lib/api/json-response.ts';
import { Stats } from '../../lib/api/schemas.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class StatsRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Community totals',
				description:
					'`users`, `conversations`, `moodCheckIns` and `crisisEvents` are lifetime totals kept by counters (the cost of this call does not grow with the data); `guilds` is the number of servers Haven is in now.',
				tags: ['Community'],
				database: true,
				responses: { 200: { description: 'The totals.', schema: Stats } },
			},
		});
	}

	run(_request: HttpRequest, response: HttpResponse) {
		// Cached (the usual case): answered at once, without a promise.
		const { stats } = this.container;
		const cached = stats.peek();
		if (cached) sendJson(response, 200, cached);
		else return stats.read().then((body) => sendJson(response, 200, body));
	}
}
