import './lib/framework/setup.ts';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { container, SapphireClient } from '@sapphire/framework';
import { createAi } from './lib/ai/index.ts';
import { configWarnings, type Config } from './lib/core/config.ts';
import { createBot } from './lib/discord/bot.ts';
import { discordClientOptions } from './lib/discord/client-options.ts';
import { requireExportedDefinitions } from './lib/discord/command.ts';
import { migrate, openDatabase, type Database } from './lib/db/index.ts';
import { fieldCipher, onUnreadable } from './lib/db/encrypted-text.ts';
import { checkEncryptionKey } from './lib/db/key-check.ts';
import { createLogger } from './lib/core/logger.ts';
import { Metrics } from './lib/operations/metrics.ts';
import {
	acceptTypeScriptPieces,
	dropSapphireRegistration,
	dropUnusedApiPieces,
	loadPieces,
	loginWithLoadedPieces,
	sapphireOptions,
} from './lib/framework/setup.ts';
import { limitConnections } from './lib/api/server-limits.ts';
import { loadAiIdentifierKey } from './lib/companion/companion.ts';
import { startHeartbeat, type Heartbeat } from './lib/operations/heartbeat.ts';
import { createAiSwitch } from './lib/operations/ai-switch.ts';
import { createBlockCheck } from './lib/operations/blocks.ts';
import { retentionSettings, startRetentionScheduler, type RetentionScheduler } from './lib/privacy/retention.ts';
import { loadLexicons } from './lib/crisis/screen.ts';
import { createStats } from './lib/operations/stats.ts';
import { currentStatus, ShardTracker } from './lib/operations/status.ts';
import { SharedStore } from './lib/core/shared-store.ts';
import { InFlight, watchDiscordWork } from './lib/discord/in-flight.ts';
import { resolveVersion } from './lib/core/version.ts';
import { startReminderScheduler } from './lib/wellbeing/reminder-dm.ts';
import { claimShards, fleetIdentifyThrottler, newInstanceId, runFleetJob, startFleet } from './lib/fleet/fleet.ts';
import { fleetShardsFor, withoutShardingEnvironment } from './lib/fleet/discord.ts';
import { formatShardIds } from './lib/fleet/shard-config.ts';
import { startCareScheduler } from './lib/care/scheduler.ts';

export interface Haven {
	client: SapphireClient | undefined;
	db: Database;
	/** The HTTP API's base URL, e.g. http://127.0.0.1:9420 (undefined when only migrating). */
	url: string | undefined;
	stop(): Promise<void>;
}

const PIECES = fileURLToPath(new URL('.', import.meta.url));
const SHUTDOWN_GRACE_MS = 5_000;

/** Boot order: configuration -> database and migrations -> bot or API-only -> HTTP API. */
export async function startHaven(config: Config): Promise<Haven> {
	const client = withoutShardingEnvironment(
		() =>
			new SapphireClient({
				...discordClientOptions(config),
				...sapphireOptions(config, PIECES),
				logger: { instance: createLogger(config.logLevel, config.logFormat) },
			}),
	);
	const log = container.logger;
	limitConnections(client.server.server, config.api.http);
	container.config = config;
	container.startedAt = new Date();
	container.version = resolveVersion(config.version);
	// Prometheus metrics (GET /metrics): one registry per Haven, closed at shutdown.
	const metrics = (container.metrics = new Metrics({ version: container.version }));
	// The owners' switches, read from the database once it is open (until then: AI on, nobody blocked).
	const em = () => container.db.orm.em.fork();
	container.aiSwitch = createAiSwitch({ em, warn: (m) => log.warn(m) });
	container.blocks = createBlockCheck({ em, ownerIds: config.discord.ownerIds, warn: (m) => log.warn(m) });
	container.ai = createAi({ ...config.openai, observe: metrics.observeAi, runtime: container.aiSwitch });
	loadLexicons(); // compile the crisis screen now, so the first person to write does not wait for it
	container.shards = new ShardTracker();
	container.shards.attach(client);
	container.discordWork = new InFlight();
	watchDiscordWork(client, container.discordWork);
	metrics.watchBot({ client, shards: container.shards, enabled: config.discord.enabled });
	for (const warning of configWarnings(config)) log.warn(warning);
	// A value that does not decrypt (wrong key, tampered, or copied from another row) is never served: say which row.
	onUnreadable((error) => log.warn(`${error.message} (treated as unreadable)`));

	const db = await openDatabase(config, { info: (m) => log.info(m), warn: (m) => log.warn(m) }).catch((error: unknown) => {
		metrics.close();
		throw error;
	});
	container.db = db;
	metrics.watchDatabase(db.orm);
	container.stats = createStats({
		orm: db.orm,
		// This process's servers, plus the other instances' when it is part of a fleet (src/lib/fleet).
		liveGuilds: () => {
			const own = client.isReady() ? client.guilds.cache.size : undefined;
			return container.fleet ? container.fleet.guilds(own) : own;
		},
		countersTtlMs: config.api.statsCacheMs,
	});
	try {
		const ran = await migrate(db.orm);
		log.info(ran.length ? `Applied migrations: ${ran.join(', ')}` : 'Database schema is up to date');
		container.aiIdentifierKey = await loadAiIdentifierKey(config, db.orm);
		if (config.database.migrateOnly) {
			log.info('SERVICE_MIGRATE_ONLY is set: migrations done, exiting');
			metrics.close();
			await db.close();
			return { client: undefined, db, url: undefined, stop: async () => undefined };
		}
		// Refuses a wrong ENCRYPTION_KEY, or a missing one when the database holds encrypted values (src/lib/db/key-check.ts).
		if ((await checkEncryptionKey(db.orm, fieldCipher())) === 'recorded') log.info('Recorded the ENCRYPTION_KEY check values in app_state');

		// REDIS_URL: rate limits and cooldowns shared by the fleet (src/lib/core/shared-store.ts); the start does not wait
		// for it (while it is unreachable, the limits are kept in memory). Before the pieces load: they read it.
		container.sharedStore = config.redis.url
			? new SharedStore(config.redis.url, config.redis.keyPrefix, { info: (m) => log.info(m), warn: (m) => log.warn(m) })
			: undefined;
		client.stores.registerPath(PIECES);
		acceptTypeScriptPieces(client.stores);
		dropSapphireRegistration(client.stores);
		dropUnusedApiPieces(client.stores);
		container.bot = config.discord.enabled
			? createBot({ client, config, db, version: container.version, log, fleet: () => container.fleet })
			: undefined;
		await loadPieces(client.stores);
		await requireExportedDefinitions(client.stores.get('commands').values());
		// The HTTP API before the gateway: /healthz answers and /v1/status says "starting" while the shards
		// connect, however long Discord takes (a shard that cannot connect would otherwise keep the whole API down).
		await client.server.connect();
		// The fleet (src/lib/fleet): which shards this instance connects, recorded in the database before connecting;
		// an API-only instance only reads the fleet's rows (for /v1/status and the counts).
		const instanceId = newInstanceId();
		if (container.bot) {
			const { shardCount, shardIds } = await fleetShardsFor(client, config);
			await claimShards(db.orm, { instanceId, shardCount, shardIds, heartbeatMs: config.fleet.heartbeatMs, log });
			client.options.shards = [...shardIds];
			client.options.shardCount = shardCount;
			client.options.ws = { ...client.options.ws, buildIdentifyThrottler: fleetIdentifyThrottler({ orm: db.orm, instanceId, log }) };
			container.fleet = startFleet({
				orm: db.orm,
				instanceId,
				heartbeatMs: config.fleet.heartbeatMs,
				log,
				own: {
					shardCount,
					shardIds,
					snapshot: () => container.shards.snapshot(client),
					onLost: (lost) => {
						log.error(
							`Fleet: another instance has taken shard ${formatShardIds(lost)} (this one missed its heartbeats); leaving Discord so no event is handled twice`,
						);
						void client.destroy();
					},
				},
			});
			log.info(`Fleet: this instance (${instanceId}) connects shard ${formatShardIds(shardIds)} of ${shardCount}`);
			const beat = () => void container.fleet?.beat();
			client.on('shardReady', beat).on('shardResume', beat).on('shardDisconnect', beat).on('shardReconnecting', beat);
			await loginWithLoadedPieces(client, config.discord.token);
			await container.bot.deploy();
			// Check-in reminders (src/lib/wellbeing): a tick a minute; stopped first at shutdown.
			container.reminders = startReminderScheduler(client, () => db.orm.em.fork());
			// Follow-ups after a crisis and unacknowledged-alert reminders (src/lib/care): a tick a minute.
			container.care = startCareScheduler(client, () => db.orm.em.fork());
		} else {
			container.fleet = startFleet({ orm: db.orm, instanceId, heartbeatMs: config.fleet.heartbeatMs, log });
		}
	} catch (error) {
		const http = client.server.server;
		if (http.listening) {
			http.close();
			http.closeAllConnections();
		}
		await container.reminders?.stop().catch(() => undefined);
		container.reminders = undefined;
		await container.care?.stop().catch(() => undefined);
		container.care = undefined;
		await container.bot?.stop().catch(() => undefined);
		await client.destroy().catch(() => undefined);
		await container.fleet?.stop().catch(() => undefined);
		container.fleet = undefined;
		await container.sharedStore?.close();
		metrics.close();
		await db.close();
		throw error;
	}

	const address = client.server.server.address() as AddressInfo;
	const host =
		address.family === 'IPv6'
			? `[${address.address === '::' ? '::1' : address.address}]`
			: address.address === '0.0.0.0'
				? '127.0.0.1'
				: address.address;
	const url = `http://${host}:${address.port}`;
	log.info(
		`Haven ${container.version} is up: HTTP API on port ${address.port}${config.discord.enabled ? '' : ' (API-only: no Discord token)'}, ${db.describe}`,
	);

	const { apiKey, url: statusUrl, intervalMs } = config.status;
	const heartbeat = apiKey ? startHeartbeat({ url: statusUrl, apiKey, intervalMs, status: currentStatus, log }) : undefined;
	// Retention purge (src/lib/privacy/retention.ts): PURGE_INTERVAL_MS, 0 turns it off.
	const { purgeIntervalMs } = config.retention;
	const retention =
		purgeIntervalMs > 0
			? startRetentionScheduler({
					orm: db.orm,
					intervalMs: purgeIntervalMs,
					settings: retentionSettings(config),
					log,
					// One instance of a fleet purges at a time, and once per interval across the fleet.
					exclusive: async (work) => {
						const fleet = container.fleet;
						if (!fleet) return work();
						const run = await runFleetJob(
							db.orm,
							{ job: 'retention-purge', instanceId: fleet.instanceId, periodMs: purgeIntervalMs },
							work,
						);
						return run.ran ? run.result : undefined;
					},
				})
			: undefined;

	let stopping: Promise<void> | undefined;
	return {
		client,
		db,
		url,
		stop: () => (stopping ??= shutdown(client, db, heartbeat, retention)),
	};
}

/** Stop accepting, let in-flight requests finish (bounded), then close Discord, the database and the embedded server. */
async function shutdown(
	client: SapphireClient,
	db: Database,
	heartbeat: Heartbeat | undefined,
	retention: RetentionScheduler | undefined,
): Promise<void> {
	await heartbeat?.stop();
	await retention?.stop();
	const http = client.server.server;
	const closed = http.listening ? once(http, 'close') : Promise.resolve();
	http.close();
	http.closeIdleConnections();
	// Connections whose last request finishes become idle: close them as they do, not at the deadline.
	const sweep = setInterval(() => http.closeIdleConnections(), 50);
	const deadline = setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS);
	await closed;
	clearInterval(sweep);
	clearTimeout(deadline);
	await container.reminders?.stop();
	container.reminders = undefined;
	await container.care?.stop();
	container.care = undefined;
	// Commands, buttons and messages being handled finish (bounded) while Discord and the database are still there: a
	// check-in or crisis event someone is being answered about is written, and the answer sent.
	const busy = container.discordWork.size;
	if (!(await container.discordWork.idle(SHUTDOWN_GRACE_MS))) {
		container.logger.warn(
			`Shutdown: ${container.discordWork.size} of ${busy} Discord interactions or messages still running after ${SHUTDOWN_GRACE_MS} ms`,
		);
	}
	await container.bot?.stop();
	await client.destroy();
	// After leaving Discord: the shards are handed back only once this instance no longer serves them.
	await container.fleet?.stop();
	container.fleet = undefined;
	for (const store of client.stores.values()) await store.unloadAll().catch(() => undefined);
	await container.sharedStore?.close();
	container.sharedStore = undefined;
	container.metrics.close();
	await db.close();
	container.logger.info('Haven stopped');
}
