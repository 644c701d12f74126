import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { request } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
let haven: TestHaven;
let env: Record<string, string | undefined>;

before(async () => {
	env = testEnv({});
	haven = await startTestHaven(env);
});
after(async () => {
	await haven?.stop();
	await dropDatabase(env?.DATABASE_URL);
});

test('/docs is a self-contained page with a strict CSP, and its files are served locally', async () => {
	const page = await request(haven.url, 'GET', '/docs');
	assert.equal(page.status, 200);
	assert.match(String(page.headers['content-type']), /^text\/html/);
	const csp = String(page.headers['content-security-policy']);
	assert.match(csp, /script-src 'self'(;|$)/);
	assert.match(csp, /default-src 'none'/);
	assert.match(csp, /frame-ancestors 'none'/);
	assert.ok(!/https?:\/\//.test(page.text), 'no external URL (no CDN)');
	for (const [file, type] of [
		['swagger-ui.css', /^text\/css/],
		['swagger-ui-bundle.js', /^text\/javascript/],
		['init.js', /^text\/javascript/],
		['favicon-32x32.png', /^image\/png/],
	] as const) {
		assert.ok(page.text.includes(`/docs/${file}`), `the page uses ${file}`);
		const asset = await request(haven.url, 'GET', `/docs/${file}`);
		assert.equal(asset.status, 200, file);
		assert.match(String(asset.headers['content-type']), type);
		assert.ok(asset.text.length > 0);
	}
	for (const path of ['/docs/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-ui-bundle.js.map', '/docs/constructor']) {
		const reply = await request(haven.url, 'GET', path);
		assert.equal(reply.status, 404, path);
		assert.deepEqual(reply.json, { error: 'Not found' });
	}
});

test('/docs renders every endpoint in headless Chromium', async () => {
	assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium) to run this test`);
	const profile = mkdtempSync(join(tmpdir(), 'haven-chromium-'));
	try {
		const { stdout } = await promisify(execFile)(
			CHROMIUM,
			[
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--no-first-run',
				`--user-data-dir=${profile}`,
				// Run the page's timers and fetches (Swagger UI loads /openapi.json after the load event) before dumping.
				'--virtual-time-budget=15000',
				'--dump-dom',
				`${haven.url}/docs`,
			],
			{ timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
		);
		const paths = [...stdout.matchAll(/class="opblock-summary-path" data-path="([^"]+)"/g)].map((m) => m[1]);
		assert.deepEqual(paths.sort(), [
			'/docs',
			'/healthz',
			'/openapi.json',
			'/v1/chat',
			'/v1/feedback',
			'/v1/stats',
			'/v1/status',
			'/v1/testimonials',
		]);
		assert.match(stdout, /Haven HTTP API/);
		assert.match(stdout, /opblock-post/);
		assert.match(stdout, /authorize/i, 'the bearer scheme gives an Authorize button');
	} finally {
		rmSync(profile, { recursive: true, force: true });
	}
});
