import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { container, Listener } from '@sapphire/framework';

/**
 * Requests that Node's HTTP parser refuses (malformed request line or headers, headers over the size limit, a body
 * framed two ways) never reach a route; Node would answer them with an empty 400. Answer them with the same JSON
 * error shape, then close the connection.
 */
export class HttpClientError extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: container.server.server, event: 'clientError' });
	}

	run(error: NodeJS.ErrnoException, socket: Duplex) {
		if (!socket.writable || error.code === 'ECONNRESET') {
			socket.destroy();
			return;
		}
		const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
		this.container.metrics?.http.record('other', 'unparsed', String(status));
		const body = JSON.stringify({
			error: status === 431 ? 'Request headers are too large' : status === 408 ? 'Request timed out' : 'Malformed HTTP request',
		});
		socket.end(
			`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
				`Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
		);
	}
}
