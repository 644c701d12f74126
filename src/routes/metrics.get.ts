import type { Route } from '@sapphire/plugin-api';
import { ApiRoute } from '../lib/api/route.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';

/**
 * Prometheus metrics (src/lib/operations/metrics.ts; README "Metrics"). For operators, not part of the public API: left out of
 * the OpenAPI document. Needs `Authorization: Bearer <METRICS_TOKEN>` (API_TOKEN when METRICS_TOKEN is unset); with
 * neither configured it answers 503, like the other protected routes. It counts against the per-address rate limit.
 */
export class MetricsRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Prometheus metrics',
				hidden: true,
				auth: 'metrics',
				responses: { 200: { description: 'Prometheus text exposition format 0.0.4.', mediaType: 'text/plain' } },
			},
		});
	}

	async run(_request: HttpRequest, response: HttpResponse) {
		const { metrics } = this.container;
		const body = await metrics.text();
		response.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
		response.end(body);
	}
}
