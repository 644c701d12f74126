import type { IncomingMessage } from 'node:http';
import { type z } from 'zod';
import { HttpError } from './http-error.ts';

/** `application/json` or `application/<something>+json`, parameters ignored (no regex: it is attacker input). */
function isJsonType(header: string | undefined): boolean {
	const media = header?.split(';', 1)[0]!.trim().toLowerCase() ?? '';
	return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/**
 * Reads a JSON request body: 415 unless Content-Type is JSON (and not compressed), 413 as soon as more than
 * `maxBytes` arrive (Content-Length is checked first, chunked bodies are counted while reading), 400 when the bytes
 * are not UTF-8 JSON. Reading stops at the cap; the 413 closes the connection so the rest is never read.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
	if (!isJsonType(request.headers['content-type'])) throw new HttpError(415, 'Content-Type must be application/json');
	const encoding = request.headers['content-encoding'];
	if (encoding && encoding.toLowerCase() !== 'identity') throw new HttpError(415, 'Content-Encoding is not supported');
	const tooLarge = () => new HttpError(413, `Request body must be at most ${maxBytes} bytes`, { Connection: 'close' });
	const declared = request.headers['content-length'];
	if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge();

	const raw = await readCapped(request, maxBytes);
	if (raw === undefined) throw tooLarge();
	let text: string;
	try {
		text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
	} catch {
		throw new HttpError(400, 'Request body must be UTF-8 encoded JSON');
	}
	if (!text.trim()) throw new HttpError(400, 'Request body must be a JSON object');
	try {
		return JSON.parse(text);
	} catch {
		throw new HttpError(400, 'Request body is not valid JSON');
	}
}

/**
 * The body's bytes, or undefined once more than `maxBytes` arrived. It stops listening at the cap without destroying
 * the request, so the response can still be written (a `for await` loop would destroy the socket on the way out).
 */
function readCapped(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const finish = (value: Buffer | undefined, error?: Error) => {
			request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onError);
			if (error) reject(error);
			else resolve(value);
		};
		const onData = (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxBytes) {
				request.pause();
				finish(undefined);
			} else chunks.push(chunk);
		};
		const onEnd = () => finish(Buffer.concat(chunks, size));
		const onError = () => finish(undefined, new HttpError(400, 'Request body was not received completely'));
		request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onError);
	});
}

/** Validates input with a schema; a failure is a 400 naming the first problem (our own wording, never the input). */
export function validate<T>(schema: z.ZodType<T>, input: unknown, what: 'body' | 'query'): T {
	const result = schema.safeParse(input);
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	if (!issue || (issue.code === 'invalid_type' && issue.path.length === 0)) {
		throw new HttpError(400, what === 'body' ? 'Request body must be a JSON object' : 'Invalid query string');
	}
	throw new HttpError(400, issue.message);
}
