import { Middleware, type ApiRequest } from '@sapphire/plugin-api';
import { requireBearer } from '../lib/api/auth.ts';
import { isApiRoute } from '../lib/api/route.ts';

/** Routes whose doc says `auth: true` need `Authorization: Bearer <API_TOKEN>` (after the rate limit, before the body). */
export class BearerMiddleware extends Middleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 15 });
	}

	override run(request: ApiRequest) {
		if (isApiRoute(request.route) && request.route.doc.auth) requireBearer(request.headers.authorization, this.container.config.api.token);
	}
}
