import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-error.ts';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Bearer check for the protected routes. Without a configured token they refuse every request (503) rather than
 * open up. Tokens are compared as SHA-256 digests with `timingSafeEqual`: constant time, whatever the lengths.
 */
export function requireBearer(authorization: string | undefined, token: string | undefined, setting = 'API_TOKEN'): void {
	if (!token) throw new HttpError(503, `This endpoint is disabled: the server has no ${setting} configured`);
	const challenge = { 'WWW-Authenticate': 'Bearer realm="haven"' };
	const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
	if (!match) throw new HttpError(401, 'Missing bearer token', challenge);
	if (!timingSafeEqual(digest(match[1]!), digest(token))) throw new HttpError(401, 'Invalid bearer token', challenge);
}
