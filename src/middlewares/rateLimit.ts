import type { Socket } from 'node:net';
import type { Middleware } from '@sapphire/plugin-api';
import { ApiMiddleware } from '../lib/api/middleware.ts';
import type { HttpRequest, HttpResponse } from '../lib/framework/http-request.ts';
import { clientIp, proxyTrust, rateLimitKey, type ProxyTrust } from '../lib/api/client-ip.ts';
import { HttpError } from '../lib/api/http-error.ts';
import { FixedWindowLimiter, rateLimitHeaders, SharedWindowLimiter, tightest, type Limiter, type RateDecision } from '../lib/api/rate-limit.ts';
import { isApiRoute, type RouteLimit } from '../lib/api/route.ts';

const MINUTE = 60_000;

/**
 * Per client address (see `clientIp`): every request counts against RATE_LIMIT_PER_MINUTE, and a route with a
 * `limit` also against its own (RATE_LIMIT_CHAT_PER_MINUTE, RATE_LIMIT_FEEDBACK_PER_MINUTE). Every response carries
 * the RateLimit-* headers of the limit closest to running out; a 429 adds Retry-After. With REDIS_URL the windows are
 * counted in the shared store, so the limits hold for the whole fleet (src/lib/api/rate-limit.ts, SharedWindowLimiter);
 * without it, in this instance's memory.
 */
export class RateLimitMiddleware extends ApiMiddleware {
	readonly #trust: ProxyTrust;
	readonly #all: Limiter;
	readonly #routes: Record<RouteLimit, Limiter>;
	/** Without proxy trust the key depends only on the connection: worked out once per keep-alive socket. */
	readonly #socketKeys = new WeakMap<Socket, string>();

	constructor(context: Middleware.LoaderContext) {
		super(context, { position: 12 });
		const { rateLimits, trustProxy } = this.container.config.api;
		this.#trust = proxyTrust(trustProxy);
		const store = this.container.sharedStore;
		const limiter = (name: string, limit: number): Limiter =>
			store ? new SharedWindowLimiter(store, `http:${name}`, limit, MINUTE) : new FixedWindowLimiter(limit, MINUTE);
		this.#all = limiter('all', rateLimits.perMinute);
		this.#routes = {
			chat: limiter('chat', rateLimits.chatPerMinute),
			feedback: limiter('feedback', rateLimits.feedbackPerMinute),
		};
	}

	/** Synchronous with the in-memory limits; waits for the shared store's answers with REDIS_URL. */
	override run(request: HttpRequest, response: HttpResponse) {
		const key = this.#key(request);
		const limit = isApiRoute(request.route) ? request.route.doc.limit : undefined;
		const all = this.#all.take(key);
		if (all instanceof Promise) return all.then((decision) => this.#route(decision, key, limit, request, response));
		return this.#route(all, key, limit, request, response);
	}

	/** The route's own limit, counted only when the overall one allowed the request. */
	#route(all: RateDecision, key: string, limit: RouteLimit | undefined, request: HttpRequest, response: HttpResponse) {
		if (!limit || !all.allowed) return this.#answer(all, true, limit, request, response);
		const own = this.#routes[limit].take(key);
		if (own instanceof Promise) return own.then((decision) => this.#answer(tightest([all, decision]), false, limit, request, response));
		return this.#answer(tightest([all, own]), false, limit, request, response);
	}

	#answer(decision: RateDecision, overall: boolean, limit: RouteLimit | undefined, request: HttpRequest, response: HttpResponse): void {
		const refusedByAll = overall && !decision.allowed;
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
