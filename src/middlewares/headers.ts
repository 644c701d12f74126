import { Middleware, type ApiRequest, type ApiResponse } from '@sapphire/plugin-api';

/**
 * Replaces plugin-api's `headers` middleware, which ends unknown paths and wrong methods with an empty body
 * before our JSON error listeners can answer. Sets CORS for the website's origin and security headers for an
 * API behind a TLS proxy; answers CORS preflights.
 */
export class HeadersMiddleware extends Middleware {
	constructor(context: Middleware.LoaderContext) {
		super(context, { name: 'headers', position: 10 });
	}

	override run(request: ApiRequest, response: ApiResponse) {
		response.setHeader('Access-Control-Allow-Origin', this.container.config.api.corsOrigin);
		response.setHeader('Vary', 'Origin');
		response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
		response.setHeader('Access-Control-Max-Age', '600');
		response.setHeader('X-Content-Type-Options', 'nosniff');
		response.setHeader('X-Frame-Options', 'DENY');
		response.setHeader('Referrer-Policy', 'no-referrer');
		response.setHeader('Cross-Origin-Resource-Policy', 'same-site');
		if (request.method === 'OPTIONS' && request.routerNode) {
			response.setHeader('Access-Control-Allow-Methods', [...request.routerNode.methods()].join(', '));
			response.writeHead(204).end();
		}
	}
}
