import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from '../../src/lib/core/config.ts';

/**
 * docker-compose.fleet.yml, read as Compose reads it (YAML with merge keys; no Docker daemon needed): the services a
 * fleet needs, in the right order, and settings that make each instance a valid, distinct member of the fleet.
 */

interface Service {
	image?: string;
	build?: unknown;
	command?: string[];
	environment?: Record<string, string>;
	ports?: string[];
	depends_on?: Record<string, { condition: string }>;
	healthcheck?: unknown;
	restart?: string;
	stop_grace_period?: string;
}

const text = readFileSync(new URL('../../docker-compose.fleet.yml', import.meta.url), 'utf8');
const compose = parse(text, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { services } = compose;
const instances = ['haven-0', 'haven-1'].map((name) => ({ name, service: services[name]! }));

/** Compose's `${NAME:-default}` and `${NAME:?message}` with nothing set: the default, or a placeholder value. */
const interpolate = (value: string) =>
	value.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_, name: string, fallback?: string) => fallback ?? `<${name}>`);

describe('docker-compose.fleet.yml', () => {
	test('PostgreSQL, Valkey, the Discord REST proxy, a migration step and two Haven instances', () => {
		assert.deepEqual(Object.keys(services).sort(), ['discord-proxy', 'haven-0', 'haven-1', 'migrate', 'postgres', 'valkey']);
		assert.match(services.postgres!.image!, /^postgres:\d+/);
		assert.match(services.valkey!.image!, /^valkey\/valkey:\d+/);
		assert.ok(services.valkey!.healthcheck, 'Valkey has a health check the instances wait for');
		assert.match(services['discord-proxy']!.image!, /^discordjs\/proxy(:|$)/, 'the @discordjs/proxy-container image');
		assert.deepEqual(services.migrate!.command, ['migrate'], 'haven migrate');
		assert.deepEqual(services.migrate!.depends_on, { postgres: { condition: 'service_healthy' } });
		assert.ok('pgdata' in compose.volumes);
	});

	test('the proxy gets the bot token and is never published', () => {
		const proxy = services['discord-proxy']!;
		assert.match(proxy.environment!.DISCORD_TOKEN!, /^\$\{TOKEN:\?/, 'the bot token, required');
		assert.equal(proxy.ports, undefined, 'the proxy answers anyone with the bot token: it stays on the internal network');
		assert.equal(services.valkey!.ports, undefined);
		assert.equal(services.postgres!.ports, undefined);
	});

	test('each instance: after the migration, Valkey and the proxy; same store, proxy, database and shard count; its own shards', () => {
		const shardIds: string[] = [];
		for (const { name, service } of instances) {
			assert.ok(service.build, `${name} is built from this repository`);
			assert.deepEqual(service.depends_on, {
				migrate: { condition: 'service_completed_successfully' },
				valkey: { condition: 'service_healthy' },
				'discord-proxy': { condition: 'service_started' },
			});
			const env = service.environment!;
			assert.equal(env.REDIS_URL, 'redis://valkey:6379', name);
			assert.equal(env.DISCORD_API_URL, 'http://discord-proxy:8080/api', name);
			assert.match(env.DATABASE_URL!, /@postgres:5432\/haven/, name);
			assert.equal(env.SHARD_COUNT, '2', name);
			shardIds.push(env.SHARD_IDS!);
			assert.equal(service.restart, 'unless-stopped');
			assert.ok(service.stop_grace_period, `${name} has time to drain on SIGTERM`);
			// What the instance would run with: a valid configuration, its shards within the count.
			const config = parseConfig({ TOKEN: 'token', CLIENT_ID: '123456789012345678', ...env });
			assert.equal(config.redis.url, 'redis://valkey:6379');
			assert.equal(config.discord.apiUrl, 'http://discord-proxy:8080/api');
			assert.equal(config.fleet.shardCount, 2);
		}
		assert.deepEqual(shardIds.sort(), ['0', '1'], 'every shard on exactly one instance');
	});

	test('the instances publish different host ports, on loopback unless HAVEN_PUBLISH_ADDRESS says otherwise', () => {
		const published = instances.map(({ service }) => interpolate(service.ports![0]!));
		assert.deepEqual(published, ['127.0.0.1:9420:9420', '127.0.0.1:9421:9420']);
	});
});
