/**
 * Telling "the database is unreachable, overloaded or restarting" apart from every other failure, so each surface
 * can answer it honestly (HTTP: 503 with Retry-After; Discord: a kind "try again in a minute") instead of a generic
 * fault. The pool recovers on its own once PostgreSQL answers again: a broken connection is discarded by pg-pool and
 * the next query opens a fresh one, so nothing here keeps state.
 */

/** The HTTP API's answer while the database cannot be reached (503). */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly';
/** Seconds a client should wait before retrying (the Retry-After of that 503). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** The bot's answer to a command that needs the database while it cannot be reached. */
export const DATABASE_UNAVAILABLE_REPLY =
	"I can't reach my database right now, so I couldn't do that. Nothing is wrong on your side: please try again in a minute. If you need support right now, `/crisis` still works.";

/** Socket errors of a connection attempt or of an open connection. */
const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'EHOSTDOWN',
	'ENETUNREACH',
	'ENETDOWN',
	'EAI_AGAIN',
	'ENOTFOUND',
]);

/**
 * SQLSTATEs that mean "not now" rather than "wrong": connection exceptions (class 08, but for 08P01), insufficient resources
 * (class 53: too many connections, disk full, out of memory), the server shutting down or starting up (57P01-57P03),
 * a statement cancelled by statement_timeout (57014) and a lock not available in time (55P03).
 */
function isTransientSqlState(code: string): boolean {
	// 08P01 (protocol violation) is in class 08 but means a bad request (e.g. a NUL byte in text), not an outage.
	if (code === '08P01') return false;
	return /^(08|53)[0-9A-Z]{3}$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '57014' || code === '55P03';
}

/** Messages of the `pg` driver and pool that carry no code. */
const DRIVER_MESSAGES = [
	/^Connection terminated/,
	/^timeout expired$/,
	/^timeout exceeded when trying to connect$/,
	/^Client has encountered a connection error and is not queryable$/,
	/^Client was closed and is not queryable$/,
	/^Cannot use a pool after calling end on the pool$/,
	/^Query read timeout$/,
];

function isUnavailableError(error: object): boolean {
	const { code, syscall } = error as { code?: unknown; syscall?: unknown };
	if (typeof code === 'string') {
		if (NETWORK_CODES.has(code)) return true;
		// A Unix socket that is not there: the server is stopped (ENOENT is only about the database on connect).
		if (code === 'ENOENT' && syscall === 'connect') return true;
		if (isTransientSqlState(code)) return true;
	}
	const message = error instanceof Error ? error.message.split('\n', 1)[0]! : '';
	return DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * True when the error (or one it wraps: `cause`, an AggregateError's `errors`, MikroORM's DriverException copies the
 * driver's fields) says the database cannot be reached or cannot serve right now.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
	if (depth > 5 || error === null || typeof error !== 'object') return false;
	if (isUnavailableError(error)) return true;
	const { cause, errors } = error as { cause?: unknown; errors?: unknown };
	if (cause !== undefined && isDatabaseUnavailable(cause, depth + 1)) return true;
	return Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1));
}

/** The error's code (a SQLSTATE or a socket error), for a log line; never its message, which may quote a query. */
export function unavailableReason(error: unknown): string {
	for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' || typeof code === 'number') return String(code);
		current = (current as { cause?: unknown }).cause ?? (current as { errors?: unknown[] }).errors?.[0];
	}
	return error instanceof Error ? error.name : 'unknown';
}

/**
 * One log line per `intervalMs` while the database stays unavailable (with how many answers it turned into "try again
 * shortly" meanwhile), instead of one per request: an outage under load would otherwise flood the log.
 */
export function outageReporter(
	intervalMs = 10_000,
	now: () => number = Date.now,
): (where: string, error: unknown, log: (message: string) => void) => void {
	let last = -Infinity;
	let suppressed = 0;
	return (where, error, log) => {
		const at = now();
		if (at - last < intervalMs) {
			suppressed++;
			return;
		}
		const more = suppressed ? ` (and ${suppressed} more since the last note)` : '';
		last = at;
		suppressed = 0;
		log(`The database is unavailable (${unavailableReason(error)}): ${where} was answered "try again shortly"${more}`);
	};
}
