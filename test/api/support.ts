import http from 'node:http';

export interface Reply {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	json: any;
}

export interface Send {
	body?: string | Buffer | object;
	token?: string;
	headers?: Record<string, string>;
	/** Send the body with Transfer-Encoding: chunked, in pieces of this size. */
	chunked?: number;
}

/** One request over a fresh connection, with full control of headers and framing. */
export function request(base: string, method: string, path: string, send: Send = {}): Promise<Reply> {
	const url = new URL(path, base);
	const raw = send.body;
	const body = raw === undefined ? undefined : Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : JSON.stringify(raw));
	const isObject = typeof raw === 'object' && !Buffer.isBuffer(raw);
	const headers: Record<string, string> = { ...(isObject ? { 'content-type': 'application/json' } : {}), ...send.headers };
	if (send.token !== undefined) headers.authorization = `Bearer ${send.token}`;
	if (body && !send.chunked) headers['content-length'] = String(body.length);
	return new Promise((resolve, reject) => {
		const req = http.request(url, { method, headers, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let json: unknown;
				try {
					json = text ? JSON.parse(text) : undefined;
				} catch {
					json = undefined;
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		if (body && send.chunked) {
			// The server may answer (413) and close before every piece is written: that is the point.
			req.on('error', () => undefined);
			for (let at = 0; at < body.length; at += send.chunked) req.write(body.subarray(at, at + send.chunked));
			req.end();
		} else req.end(body);
	});
}

type Schema = Record<string, any>;
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'default', 'deprecated']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks a value against a JSON Schema from our OpenAPI document. It knows exactly the keywords our generator
 * emits and fails on any other, so it can never pass a value by ignoring a rule. Returns the problems found.
 */
export function schemaProblems(schema: Schema, value: unknown, root: Schema, at = '$'): string[] {
	if (schema.$ref) {
		const target = (schema.$ref as string)
			.replace(/^#\//, '')
			.split('/')
			.reduce((node: any, key) => node?.[key], root);
		if (!target) return [`${at}: unresolved ${schema.$ref}`];
		return schemaProblems(target, value, root, at);
	}
	const problems: string[] = [];
	for (const [keyword, rule] of Object.entries(schema)) {
		if (ANNOTATIONS.has(keyword)) continue;
		switch (keyword) {
			case 'type': {
				const types: string[] = Array.isArray(rule) ? rule : [rule];
				const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
				const ok = types.some(
					(type) => type === actual || (type === 'integer' && Number.isInteger(value)) || (type === 'number' && actual === 'number'),
				);
				if (!ok) problems.push(`${at}: expected ${types.join('|')}, got ${actual}`);
				break;
			}
			case 'enum':
				if (!(rule as unknown[]).includes(value)) problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(rule)}`);
				break;
			case 'const':
				if (value !== rule) problems.push(`${at}: expected ${JSON.stringify(rule)}`);
				break;
			case 'minimum':
				if (typeof value === 'number' && value < rule) problems.push(`${at}: ${value} < ${rule}`);
				break;
			case 'maximum':
				if (typeof value === 'number' && value > rule) problems.push(`${at}: ${value} > ${rule}`);
				break;
			case 'minLength':
				if (typeof value === 'string' && value.length < rule) problems.push(`${at}: shorter than ${rule}`);
				break;
			case 'maxLength':
				if (typeof value === 'string' && value.length > rule) problems.push(`${at}: longer than ${rule}`);
				break;
			case 'pattern':
				if (typeof value === 'string' && !new RegExp(rule, 'u').test(value)) problems.push(`${at}: does not match ${rule}`);
				break;
			case 'format':
				if (rule !== 'date-time') problems.push(`${at}: unknown format ${rule}`);
				else if (typeof value === 'string' && !DATE_TIME.test(value)) problems.push(`${at}: not a date-time`);
				break;
			case 'required':
				if (value && typeof value === 'object')
					for (const key of rule as string[]) if (!(key in value)) problems.push(`${at}: missing ${key}`);
				break;
			case 'properties':
				if (value && typeof value === 'object' && !Array.isArray(value)) {
					for (const [key, sub] of Object.entries(rule as Record<string, Schema>)) {
						if (key in value) problems.push(...schemaProblems(sub, (value as Record<string, unknown>)[key], root, `${at}.${key}`));
					}
				}
				break;
			case 'additionalProperties':
				if (rule === false && value && typeof value === 'object') {
					for (const key of Object.keys(value)) if (!(key in (schema.properties ?? {}))) problems.push(`${at}: unexpected ${key}`);
				}
				break;
			case 'items':
				if (Array.isArray(value)) value.forEach((item, index) => problems.push(...schemaProblems(rule, item, root, `${at}[${index}]`)));
				break;
			default:
				problems.push(`${at}: the test checker does not know the keyword "${keyword}"`);
		}
	}
	return problems;
}

/** The documented schema of a response, or undefined when the status is not documented for that operation. */
export function documentedResponse(
	doc: any,
	method: string,
	path: string,
	status: number,
): { schema?: Schema; headers?: Record<string, unknown> } | undefined {
	const response = doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)];
	if (!response) return undefined;
	return { schema: response.content?.['application/json']?.schema, headers: response.headers };
}
