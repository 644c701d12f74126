import type { Middleware } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../lib/api/middleware.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';

/**
 * Replaces plugin-api's `headers` middleware (a piece of the same name, see src/lib/framework/README.md), which ends
 * unknown paths and wrong methods with an empty body before our JSON error listeners can answer. Sets CORS for the
 * website's origin and security headers for an API behind a TLS proxy; answers CORS preflights. Responses are not
 * cached unless a route says otherwise.
 */
export class HeadersMiddleware extends ApiMiddleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { name: 'headers', position: 10 });
	}

	override run(request: HttpRequest, response: HttpResponse) {
		response.setHeader('Access-Control-Allow-Origin', this.container.config.api.corsOrigin);
		response.setHeader('Vary', 'Origin');
		response.setHeader('Access-Control-Expose-Headers', 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset');
		response.setHeader('X-Content-Type-Options', 'nosniff');
		response.setHeader('X-Frame-Options', 'DENY');
		response.setHeader('Referrer-Policy', 'no-referrer');
		response.setHeader('Cross-Origin-Resource-Policy', 'same-site');
		// JSON loads nothing; `/docs` sets its own policy for its page.
		response.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
		response.setHeader('Strict-Transport-Security', 'max-age=31536000');
		response.setHeader('Cache-Control', 'no-store');
		if (request.method === 'OPTIONS' && request.routerNode) {
			response.setHeader('Access-Control-Allow-Methods', [...request.routerNode.methods()].join(', '));
			response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
			response.setHeader('Access-Control-Max-Age', '600');
			response.writeHead(204).end();
		}
	}
}
