import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, configWarnings, DEFAULT_SALT, parseConfig, readEnvironment } from '../../src/lib/core/config.ts';

const HEX_KEY = '0123456789abcdef'.repeat(4);
const LONG_TOKEN = 'a-long-random-token-0123456789abcdef';

function problemsOf(env: Record<string, string>): string[] {
	try {
		parseConfig(env);
	} catch (error) {
		assert.ok(error instanceof ConfigError);
		return error.problems;
	}
	assert.fail('expected the configuration to be refused');
}

describe('configuration', () => {
	test('runs with nothing set: API-only, embedded database, spec defaults', () => {
		const config = parseConfig({});
		assert.equal(config.discord.enabled, false);
		assert.equal(config.database.url, undefined);
		assert.equal(config.api.port, 9420);
		assert.equal(config.logLevel, 'info');
		assert.deepEqual(config.encryption.salts, [DEFAULT_SALT]);
		assert.equal(config.encryption.key, undefined);
		assert.deepEqual(config.api.rateLimits, { perMinute: 60, chatPerMinute: 20, feedbackPerMinute: 5 });
		assert.equal(config.api.trustProxy, false);
	});

	test('derives the URL defaults from WEBSITE_URL and the repository from SOURCE_URL', () => {
		const config = parseConfig({ WEBSITE_URL: 'https://haven.test/', SOURCE_URL: 'https://github.com/acme/haven-fork.git' });
		assert.deepEqual(config.urls, {
			website: 'https://haven.test',
			docs: 'https://haven.test/docs',
			support: 'https://haven.test/support',
			invite: 'https://haven.test/invite',
			source: 'https://github.com/acme/haven-fork.git',
		});
		assert.equal(config.status.url, 'https://haven.test/api/status');
		assert.equal(config.github.repo, 'acme/haven-fork');
		assert.equal(config.api.corsOrigin, 'https://haven.test');
		const explicit = parseConfig({ WEBSITE_URL: 'https://haven.test', DOCS_URL: 'https://docs.haven.test', GITHUB_REPO: 'a/b' });
		assert.equal(explicit.urls.docs, 'https://docs.haven.test');
		assert.equal(explicit.github.repo, 'a/b');
	});

	test('turns the bot on only with both TOKEN and CLIENT_ID', () => {
		assert.equal(parseConfig({ TOKEN: 't' }).discord.enabled, false);
		assert.equal(parseConfig({ TOKEN: 't', CLIENT_ID: '123456789012345678' }).discord.enabled, true);
	});

	test('accepts a 32-byte key as hex, base64 or a 32-byte string', () => {
		const fromHex = parseConfig({ ENCRYPTION_KEY: HEX_KEY }).encryption.key!;
		assert.equal(fromHex.length, 32);
		assert.deepEqual(parseConfig({ ENCRYPTION_KEY: fromHex.toString('base64') }).encryption.key, fromHex);
		assert.equal(parseConfig({ ENCRYPTION_KEY: 'x'.repeat(32) }).encryption.key!.length, 32);
	});

	test('lists every bad variable in one readable message, without echoing values', () => {
		const secretKey = 'hunter2-secret-key';
		const problems = problemsOf({
			ENCRYPTION_KEY: secretKey,
			PORT: '99999',
			LOG_LEVEL: 'loud',
			OWNER_IDS: '123,abc',
			DATABASE_URL: 'mysql://user:pw@host/db',
			WEBSITE_URL: 'not a url',
			TRUST_PROXY: 'sometimes',
			CLIENT_ID: '42',
		});
		assert.deepEqual(problems, [
			'CLIENT_ID must be a Discord ID (17 to 20 digits)',
			'DATABASE_URL must be a postgres:// or postgresql:// connection string',
			'ENCRYPTION_KEY must be 32 bytes (64 hex characters, base64 of 32 bytes, or a 32-byte string): got 18',
			'OWNER_IDS must be a comma-separated list of Discord user IDs',
			'PORT must be a whole number from 0 to 65535',
			'TRUST_PROXY must be off, a number of proxy hops, or a comma-separated list of proxy IP addresses',
			'LOG_LEVEL must be one of debug, info, warn, error',
			'WEBSITE_URL must be an http(s) URL',
		]);
		const message = new ConfigError(problems).message;
		assert.match(message, /^Invalid configuration:\n {2}- /);
		assert.doesNotMatch(message, /hunter2|user:pw/);
	});

	test('refuses empty or repeated salts', () => {
		assert.deepEqual(problemsOf({ ENCRYPTION_SALT_LIST: 'a,,b' }), ['ENCRYPTION_SALT_LIST must not contain empty salts']);
		assert.deepEqual(problemsOf({ ENCRYPTION_SALT_LIST: 'a,b,a' }), ['ENCRYPTION_SALT_LIST must not repeat a salt']);
		assert.deepEqual(parseConfig({ ENCRYPTION_SALT_LIST: ' new , old ' }).encryption.salts, ['new', 'old']);
	});

	test('parses TRUST_PROXY as off, hop count or proxy addresses', () => {
		assert.equal(parseConfig({ TRUST_PROXY: 'false' }).api.trustProxy, false);
		assert.deepEqual(parseConfig({ TRUST_PROXY: '2' }).api.trustProxy, { hops: 2 });
		assert.deepEqual(parseConfig({ TRUST_PROXY: '10.0.0.1, ::1' }).api.trustProxy, { addresses: ['10.0.0.1', '::1'] });
	});

	test('treats SERVICE_MIGRATE_ONLY and SERVICE_FORCE_DEPLOY as set unless empty or false', () => {
		assert.equal(parseConfig({ SERVICE_MIGRATE_ONLY: '1' }).database.migrateOnly, true);
		assert.equal(parseConfig({ SERVICE_MIGRATE_ONLY: 'false' }).database.migrateOnly, false);
		assert.equal(parseConfig({ SERVICE_FORCE_DEPLOY: 'yes' }).discord.forceDeploy, true);
		assert.equal(parseConfig({}).discord.forceDeploy, false);
	});

	test('reads .env under the process environment, which wins', () => {
		const dir = mkdtempSync(join(tmpdir(), 'haven-env-'));
		const file = join(dir, '.env');
		writeFileSync(file, 'PORT=1234\nLOG_LEVEL=debug\n# comment\nAPI_TOKEN="quoted token"\n');
		const env = readEnvironment({ PORT: '5678' }, file);
		const config = parseConfig(env);
		assert.equal(config.api.port, 5678);
		assert.equal(config.logLevel, 'debug');
		assert.equal(config.api.token, 'quoted token');
	});

	test('warns loudly about a missing key in production, and names each reduced mode', () => {
		const production = configWarnings(parseConfig({ NODE_ENV: 'production' }));
		assert.ok(production.some((warning) => warning.includes('ENCRYPTION_KEY is not set in production')));
		assert.ok(production.some((warning) => warning.includes('running the HTTP API only')));
		const complete = configWarnings(
			parseConfig({ ENCRYPTION_KEY: HEX_KEY, TOKEN: 't', CLIENT_ID: '123456789012345678', OPENAI_API_KEY: 'k', API_TOKEN: LONG_TOKEN }),
		);
		assert.deepEqual(complete, []);
	});

	test('bearer tokens under 32 characters: a warning, and refused in production', () => {
		const warnings = configWarnings(parseConfig({ API_TOKEN: 'short-token', METRICS_TOKEN: 'also-short' }));
		assert.ok(warnings.some((warning) => warning.startsWith('API_TOKEN is shorter than 32 characters')));
		assert.ok(warnings.some((warning) => warning.startsWith('METRICS_TOKEN is shorter than 32 characters')));
		assert.ok(!warnings.join('\n').includes('short-token'), 'never echoed');
		assert.deepEqual(problemsOf({ NODE_ENV: 'production', API_TOKEN: 'short-token', METRICS_TOKEN: 'x'.repeat(31) }), [
			'API_TOKEN must be at least 32 characters in production (openssl rand -hex 32)',
			'METRICS_TOKEN must be at least 32 characters in production (openssl rand -hex 32)',
		]);
		const production = parseConfig({ NODE_ENV: 'production', API_TOKEN: LONG_TOKEN, METRICS_TOKEN: LONG_TOKEN });
		assert.equal(production.api.token, LONG_TOKEN);
		assert.ok(!configWarnings(production).some((warning) => warning.includes('shorter than')));
	});

	test('a 32-character passphrase as ENCRYPTION_KEY works but is warned about; hex and base64 keys are not', () => {
		const passphrase = 'correct horse battery staple 123';
		assert.equal(passphrase.length, 32);
		assert.ok(
			configWarnings(parseConfig({ ENCRYPTION_KEY: passphrase })).some((warning) => warning.includes('looks like a 32-character passphrase')),
		);
		for (const key of [HEX_KEY, Buffer.from(HEX_KEY, 'hex').toString('base64'), Buffer.from(HEX_KEY, 'hex').toString('base64url')]) {
			assert.ok(!configWarnings(parseConfig({ ENCRYPTION_KEY: key })).some((warning) => warning.includes('passphrase')), key);
		}
	});

	test('HTTP server limits: defaults, overrides, and headers never allowed longer than the whole request', () => {
		assert.deepEqual(parseConfig({}).api.http, {
			headersTimeoutMs: 10_000,
			requestTimeoutMs: 30_000,
			keepAliveTimeoutMs: 5_000,
			maxConnections: 1_024,
		});
		const set = parseConfig({
			HTTP_REQUEST_TIMEOUT_MS: '5000',
			HTTP_HEADERS_TIMEOUT_MS: '8000',
			HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
			HTTP_MAX_CONNECTIONS: '10',
		});
		assert.deepEqual(set.api.http, { headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, keepAliveTimeoutMs: 1_000, maxConnections: 10 });
		assert.deepEqual(problemsOf({ HTTP_MAX_CONNECTIONS: '0' }), ['HTTP_MAX_CONNECTIONS must be a whole number from 1 to 1000000']);
	});
});
