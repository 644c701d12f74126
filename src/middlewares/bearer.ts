import type { Middleware } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../lib/api/middleware.ts';
import type { HttpRequest } from '../lib/framework/http-request.ts';
import { requireBearer } from '../lib/api/auth.ts';
import { isApiRoute } from '../lib/api/route.ts';

/**
 * Routes whose doc says `auth: true` need `Authorization: Bearer <API_TOKEN>` (after the rate limit, before the body);
 * `auth: 'metrics'` needs METRICS_TOKEN, or API_TOKEN when METRICS_TOKEN is unset.
 */
export class BearerMiddleware extends ApiMiddleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 15 });
	}

	override run(request: HttpRequest) {
		if (!isApiRoute(request.route)) return;
		const { auth } = request.route.doc;
		if (!auth) return;
		const { token, metricsToken } = this.container.config.api;
		if (auth === 'metrics') requireBearer(request.headers.authorization, metricsToken ?? token, 'METRICS_TOKEN or API_TOKEN');
		else requireBearer(request.headers.authorization, token);
	}
}
