import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { isApiRoute, type ResponseDoc, type RouteDoc } from './route.ts';
import { ErrorBody, MAX_BODY_BYTES } from './schemas.ts';

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const RATE_HEADERS = {
	'RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: { type: 'integer' } },
	'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
	'RateLimit-Reset': { description: 'Seconds until the window ends.', schema: { type: 'integer' } },
} as const;

const error = (description: string, headers?: ResponseDoc['headers']): ResponseDoc => ({ description, schema: ErrorBody, headers });

/** The error responses a route's doc implies, merged under its own (its own description wins on a clash). */
export function responsesOf(doc: RouteDoc): Record<number, ResponseDoc> {
	const implied: Record<number, ResponseDoc> = {};
	if (doc.body || doc.query) implied[400] = error('The input is invalid (the message says which field and why) or the body is not JSON.');
	if (doc.auth) {
		implied[401] = error('The bearer token is missing or wrong.');
		implied[503] = error('The server has no API_TOKEN configured, so this endpoint refuses every request.');
	}
	if (doc.database) {
		const unavailable = 'The database is unavailable (e.g. restarting); retry after `Retry-After` seconds. Nothing was stored.';
		implied[503] = error(implied[503] ? `${implied[503].description} Or: ${unavailable}` : unavailable, {
			'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
		});
	}
	if (doc.body) {
		implied[413] = error(`The body is larger than ${MAX_BODY_BYTES} bytes (chunked bodies included).`);
		implied[415] = error('The body is not `application/json` (or is compressed).');
	}
	implied[429] = error('A rate limit is exceeded; retry after `Retry-After` seconds.', {
		'Retry-After': { description: 'Seconds until the limit resets.', schema: { type: 'integer' } },
		...RATE_HEADERS,
	});
	implied[500] = error('An unexpected server error; the message carries an id that is also in the server log.');
	const merged = { ...implied };
	for (const [status, response] of Object.entries(doc.responses)) {
		const code = Number(status);
		const clash = implied[code];
		merged[code] =
			clash && clash.description !== response.description
				? { ...response, description: `${response.description} Or: ${clash.description}` }
				: response;
	}
	return merged;
}

function toResponseConfig(status: number, response: ResponseDoc): ResponseConfig {
	const headers = status < 300 ? { ...RATE_HEADERS, ...response.headers } : response.headers;
	const content = response.schema
		? { [response.mediaType ?? 'application/json']: { schema: response.schema } }
		: response.mediaType
			? { [response.mediaType]: { schema: { type: 'string' as const } } }
			: undefined;
	return { description: response.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
}

export interface DocumentInfo {
	version: string;
	/** Public base URL of the API (SERVICE_BOT_API_URL); relative `/` when unknown. */
	serverUrl?: string;
}

/** OpenAPI 3.1 from the loaded route pieces: every `ApiRoute` that is not hidden, with the schemas of its doc. */
export function buildOpenApiDocument(routes: Iterable<unknown>, info: DocumentInfo): Document {
	const registry = new OpenAPIRegistry();
	registry.register('Error', ErrorBody);
	registry.registerComponent('securitySchemes', 'bearerAuth', {
		type: 'http',
		scheme: 'bearer',
		description: 'The API_TOKEN of the server.',
	});
	const sorted = [...routes].filter(isApiRoute).filter((route) => !route.doc.hidden);
	sorted.sort((a, b) => a.path.join('/').localeCompare(b.path.join('/')));
	for (const route of sorted) {
		const { doc } = route;
		const path = `/${route.path.map((part) => (part.startsWith('[') ? `{${part.slice(1, -1)}}` : part)).join('/')}`;
		const responses = Object.fromEntries(
			Object.entries(responsesOf(doc)).map(([status, response]) => [status, toResponseConfig(Number(status), response)]),
		);
		for (const method of route.methods) {
			const config: RouteConfig = {
				method: method.toLowerCase() as RouteConfig['method'],
				path,
				operationId: `${method.toLowerCase()}${route.path.map((part) => part.replace(/\W+/g, ' ').replace(/(?:^|\s)(\w)/g, (_m, c: string) => c.toUpperCase())).join('')}`,
				summary: doc.summary,
				...(doc.description ? { description: doc.description } : {}),
				...(doc.tags ? { tags: doc.tags } : {}),
				...(doc.auth ? { security: [{ bearerAuth: [] }] } : {}),
				request: {
					...(doc.query ? { query: doc.query } : {}),
					...(doc.body ? { body: { required: true, content: { 'application/json': { schema: doc.body } } } } : {}),
				},
				responses,
			};
			registry.registerPath(config);
		}
	}
	return new OpenApiGeneratorV31(registry.definitions).generateDocument({
		openapi: '3.1.0',
		info: {
			title: 'Haven HTTP API',
			version: info.version,
			description:
				'The HTTP API of Haven, a self-hosted wellbeing support bot for Discord. JSON in and out; every error is `{ "error": "..." }`. ' +
				'Rate limits are per client address (see the RateLimit-* headers).',
		},
		servers: [{ url: info.serverUrl ?? '/' }],
	});
}
