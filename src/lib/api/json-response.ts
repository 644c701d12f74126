import type { ServerResponse } from 'node:http';

/** Writes a JSON success body with its status; extra headers (e.g. Cache-Control) override the defaults. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
	response.end(text);
}
