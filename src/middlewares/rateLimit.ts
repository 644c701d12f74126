import type { Socket } from 'node:net';
import type { Middleware } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../lib/api/middleware.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';
import { clientIp, proxyTrust, rateLimitKey, type ProxyTrust } from '../lib/api/client-ip.ts';
import { HttpError } from '../lib/api/http-error.ts';
import { FixedWindowLimiter, rateLimitHeaders, tightest } from '../lib/api/rate-limit.ts';
import { isApiRoute, type RouteLimit } from '../lib/api/route.ts';

const MINUTE = 60_000;

/**
 * Per client address (see `clientIp`): every request counts against RATE_LIMIT_PER_MINUTE, and a route with a
 * `limit` also against its own (RATE_LIMIT_CHAT_PER_MINUTE, RATE_LIMIT_FEEDBACK_PER_MINUTE). Every response carries
 * the RateLimit-* headers of the limit closest to running out; a 429 adds Retry-After.
 */
export class RateLimitMiddleware extends ApiMiddleware {
	readonly #trust: ProxyTrust;
	readonly #all: FixedWindowLimiter;
	readonly #routes: Record<RouteLimit, FixedWindowLimiter>;
	/** Without proxy trust the key depends only on the connection: worked out once per keep-alive socket. */
	readonly #socketKeys = new WeakMap<Socket, string>();

	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 12 });
		const { rateLimits, trustProxy } = this.container.config.api;
		this.#trust = proxyTrust(trustProxy);
		this.#all = new FixedWindowLimiter(rateLimits.perMinute, MINUTE);
		this.#routes = {
			chat: new FixedWindowLimiter(rateLimits.chatPerMinute, MINUTE),
			feedback: new FixedWindowLimiter(rateLimits.feedbackPerMinute, MINUTE),
		};
	}

	override run(request: HttpRequest, response: HttpResponse) {
		const key = this.#key(request);
		let decision = this.#all.take(key);
		const limit = isApiRoute(request.route) ? request.route.doc.limit : undefined;
		const refusedByAll = !decision.allowed;
		if (limit && decision.allowed) decision = tightest([decision, this.#routes[limit].take(key)]);
		const headers = rateLimitHeaders(decision);
		for (const name in headers) response.setHeader(name, headers[name]!);
		if (!decision.allowed) {
			this.container.metrics.rateLimited(request, refusedByAll || !limit ? 'all' : limit);
			throw new HttpError(429, `Too many requests: try again in ${headers['Retry-After']} seconds`);
		}
	}

	#key(request: HttpRequest): string {
		if (this.#trust) return rateLimitKey(clientIp(request.socket.remoteAddress, request.headers['x-forwarded-for'], this.#trust));
		let key = this.#socketKeys.get(request.socket);
		if (key === undefined) this.#socketKeys.set(request.socket, (key = rateLimitKey(clientIp(request.socket.remoteAddress, undefined, false))));
		return key;
	}
}
