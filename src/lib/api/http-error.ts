import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, isDatabaseUnavailable, outageReporter } from '../db/outage.ts';
import { bodyStillArriving } from './server-limits.ts';

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

/**
 * Writes `{ "error": message }` with the status; error responses are never cached. An error answered before the
 * request body has arrived whole also closes the connection, so the rest of the body is never waited for.
 */
export function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	if (response.writableEnded) return;
	if (response.headersSent) {
		response.end();
		return;
	}
	const body = JSON.stringify({ error: message });
	response.writeHead(status, {
		...headers,
		...(bodyStillArriving(response.req) ? { Connection: 'close' } : {}),
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
 * seconds; anything else is answered with a generic 500 that carries an error id, and logged with that id, the
 * error's class and its code (`failureLogLine`). Never its message: a message can quote the request, a query's
 * parameters or a value from the database.
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
	log(failureLogLine(id, error));
	sendError(response, 500, `Internal server error (error id ${id})`);
}

const PLAIN = /^[\w$.:-]{1,64}$/;

/** `Request failed (error id <id>): <class>[ (code <code>)]`; a class or code that is not a plain word is left out. */
export function failureLogLine(id: string, error: unknown): string {
	const name = error instanceof Error ? error.name : typeof error;
	const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
	const codeText = (typeof code === 'string' || typeof code === 'number') && PLAIN.test(String(code)) ? ` (code ${code})` : '';
	return `Request failed (error id ${id}): ${PLAIN.test(name) ? name : 'Error'}${codeText}`;
}
