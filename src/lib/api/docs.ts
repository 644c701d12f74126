import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * `GET /docs`: Swagger UI from the `swagger-ui-dist` package, served by Haven itself (no CDN), reading
 * `/openapi.json`. Its script runs from a file, not inline, so the page's CSP needs no 'unsafe-inline' scripts.
 */

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Haven HTTP API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

interface Asset {
	type: string;
	body: () => Buffer;
}

const fromDist = (file: string, type: string): Asset => {
	let cached: Buffer | undefined;
	return { type, body: () => (cached ??= readFileSync(join(dist, file))) };
};

const ASSETS: Record<string, Asset> = {
	'swagger-ui.css': fromDist('swagger-ui.css', 'text/css; charset=utf-8'),
	'swagger-ui-bundle.js': fromDist('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
	'favicon-32x32.png': fromDist('favicon-32x32.png', 'image/png'),
	'favicon-16x16.png': fromDist('favicon-16x16.png', 'image/png'),
	'init.js': { type: 'text/javascript; charset=utf-8', body: () => Buffer.from(INIT) },
};

/** One of the page's files by name (an allowlist: nothing else on disk is reachable). */
export function docsAsset(name: string): { type: string; body: Buffer } | undefined {
	const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
	return asset && { type: asset.type, body: asset.body() };
}

/** The page's policy: its own scripts and styles only; Swagger UI sets inline styles; calls go to this API. */
export function docsCsp(apiOrigin?: string): string {
	const connect = apiOrigin ? `'self' ${apiOrigin}` : "'self'";
	return [
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"font-src 'self' data:",
		`connect-src ${connect}`,
		"frame-ancestors 'none'",
		"base-uri 'none'",
		"form-action 'none'",
	].join('; ');
}
