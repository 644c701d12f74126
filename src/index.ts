import './lib/setup.ts';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { container, SapphireClient } from '@sapphire/framework';
import { GatewayIntentBits, Partials } from 'discord.js';
import { configWarnings, type Config } from './lib/config.ts';
import { migrate, openDatabase, type Database } from './lib/db/index.ts';
import { logLevel } from './lib/logger.ts';
import { acceptTypeScriptPieces, dropUnusedApiPieces } from './lib/setup.ts';
import { resolveVersion } from './lib/version.ts';

export interface Haven {
	client: SapphireClient | undefined;
	db: Database;
	/** The HTTP API's base URL, e.g. http://127.0.0.1:9420 (undefined when only migrating). */
	url: string | undefined;
	stop(): Promise<void>;
}

const PIECES = fileURLToPath(new URL('.', import.meta.url));
const SHUTDOWN_GRACE_MS = 5_000;

/** Boot order (SPEC "Startup rules"): configuration -> database and migrations -> bot or API-only -> HTTP API. */
export async function startHaven(config: Config): Promise<Haven> {
	const client = new SapphireClient({
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
		partials: [Partials.Channel],
		baseUserDirectory: PIECES,
		logger: { level: logLevel(config.logLevel) },
		loadMessageCommandListeners: false,
		allowedMentions: { parse: [] },
		rest: { api: config.discord.apiUrl },
		api: {
			prefix: '/',
			origin: config.api.corsOrigin,
			automaticallyConnect: false,
			listenOptions: { port: config.api.port, host: config.api.host }
		}
	});
	const log = container.logger;
	container.config = config;
	container.startedAt = new Date();
	container.version = resolveVersion(config.version);
	for (const warning of configWarnings(config)) log.warn(warning);

	const db = await openDatabase(config, { info: (m) => log.info(m), warn: (m) => log.warn(m) });
	container.db = db;
	try {
		const ran = await migrate(db.orm);
		log.info(ran.length ? `Applied migrations: ${ran.join(', ')}` : 'Database schema is up to date');
		if (config.database.migrateOnly) {
			log.info('SERVICE_MIGRATE_ONLY is set: migrations done, exiting');
			await db.close();
			return { client: undefined, db, url: undefined, stop: async () => undefined };
		}

		client.stores.registerPath(PIECES);
		acceptTypeScriptPieces(client.stores);
		if (config.discord.enabled) {
			await client.login(config.discord.token);
		} else {
			await Promise.all([...client.stores.values()].map((store) => store.loadAll()));
		}
		await dropUnusedApiPieces(client.stores);
		await client.server.connect();
	} catch (error) {
		await client.destroy().catch(() => undefined);
		await db.close();
		throw error;
	}

	const address = client.server.server.address() as AddressInfo;
	const host = address.family === 'IPv6' ? `[${address.address === '::' ? '::1' : address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
	const url = `http://${host}:${address.port}`;
	log.info(`Haven ${container.version} is up: HTTP API on port ${address.port}${config.discord.enabled ? '' : ' (API-only: no Discord token)'}, ${db.describe}`);

	let stopping: Promise<void> | undefined;
	return {
		client,
		db,
		url,
		stop: () => (stopping ??= shutdown(client, db))
	};
}

/** Stop accepting, let in-flight requests finish (bounded), then close Discord, the database and the embedded server. */
async function shutdown(client: SapphireClient, db: Database): Promise<void> {
	const http = client.server.server;
	const closed = http.listening ? once(http, 'close') : Promise.resolve();
	http.close();
	http.closeIdleConnections();
	const deadline = setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS);
	await closed;
	clearTimeout(deadline);
	await client.destroy();
	for (const store of client.stores.values()) await store.unloadAll().catch(() => undefined);
	await db.close();
	container.logger.info('Haven stopped');
}
