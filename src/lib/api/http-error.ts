import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable, outageReporter } from '../db/outage.ts';

/** An error whose message is safe to show the client, with its HTTP status. */
export class HttpError extends Error {
	readonly status: number;
	readonly headers: Record<string, string>;
	constructor(status: number, message: string, headers: Record<string, string> = {}) {
		super(message);
		this.name = 'HttpError';
		this.status = status;
		this.headers = headers;
	}
}

/** Writes `{ "error": message }` with the status; error responses are never cached. */
export function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	if (response.writableEnded) return;
	if (response.headersSent) {
		response.end();
		return;
	}
	const body = JSON.stringify({ error: message });
	response.writeHead(status, {
		...headers,
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(body),
		'Cache-Control': 'no-store',
	});
	response.end(body);
}

const noteOutage = outageReporter();

/**
 * The one funnel for route and middleware failures: an HttpError answers with its own status and message; the
 * database being unreachable (or restarting, or overloaded) is a 503 with Retry-After, logged at most every few
 * seconds; anything else is logged with an id (never the request body) and answered with a generic 500 that carries
 * the same id.
 */
export function sendFailure(response: ServerResponse, error: unknown, log: (message: string) => void): void {
	if (error instanceof HttpError) {
		sendError(response, error.status, error.message, error.headers);
		return;
	}
	if (isDatabaseUnavailable(error)) {
		noteOutage('an HTTP request', error, log);
		sendError(response, 503, DATABASE_UNAVAILABLE, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
		return;
	}
	const id = randomUUID();
	const name = error instanceof Error ? error.name : typeof error;
	const message = error instanceof Error ? error.message.split('\n')[0] : '';
	log(`Request failed (error id ${id}): ${name}: ${message}`);
	sendError(response, 500, `Internal server error (error id ${id})`);
}
