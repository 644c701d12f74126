import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { migrationsList } from '../../../migrations/index.ts';
import type { Config } from '../core/config.ts';
import { FieldCipher } from './field-cipher.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.ts';
import { EncryptedText, FieldSealer, useFieldCipher } from './encrypted-text.ts';
import { entities } from './entities.ts';

export * from './entities.ts';

export interface Database {
	orm: MikroORM;
	/** How to reach the server (a URL, or the embedded server's socket), without the model options. */
	connection: Options;
	/** Where the data lives, for the startup log (never contains credentials). */
	describe: string;
	close(): Promise<void>;
}

export interface DatabaseLog {
	info(message: string): void;
	warn(message: string): void;
}

// Two instances starting at once wait on this lock instead of racing through the same migrations.
const MIGRATION_LOCK = 7_264_191_001;

export async function openDatabase(config: Config, log: DatabaseLog): Promise<Database> {
	useFieldCipher(new FieldCipher(config.encryption.key, config.encryption.salts));
	let embedded: EmbeddedPostgres | undefined;
	let connection: Options;
	let describe: string;
	if (config.database.url) {
		connection = { clientUrl: config.database.url, driverOptions: { ssl: sslFromUrl(config.database.url) } };
		describe = describeUrl(config.database.url);
	} else {
		log.info('DATABASE_URL is not set: using the embedded PostgreSQL in DATA_DIR');
		embedded = await startEmbeddedPostgres(config.database.dataDir, (message) => log.info(message));
		connection = embedded.connection;
		describe = `embedded PostgreSQL in ${config.database.dataDir}`;
	}
	try {
		const orm = await MikroORM.init(ormOptions(connection));
		return {
			orm,
			connection,
			describe,
			async close() {
				await orm.close(true);
				await embedded?.stop();
			},
		};
	} catch (error) {
		await embedded?.stop();
		throw error;
	}
}

/**
 * How long the pool waits, so that a database outage fails fast instead of hanging requests:
 * - connecting (and waiting for a free pooled connection) gives up after CONNECT_TIMEOUT_MS;
 * - a statement runs at most STATEMENT_TIMEOUT_MS (server side; migrations lift it for their own transaction);
 * - a transaction left idle is ended after IDLE_IN_TRANSACTION_TIMEOUT_MS, so a stuck client cannot hold locks;
 * - TCP keep-alive notices a peer that vanished without closing the connection.
 * Broken connections are dropped by the pool and replaced on the next query: it recovers by itself when PostgreSQL
 * is back, with no restart.
 */
export const POOL_TIMEOUTS = {
	connectTimeoutMs: 5_000,
	statementTimeoutMs: 30_000,
	idleInTransactionTimeoutMs: 60_000,
	idleConnectionMs: 30_000,
} as const;

export function ormOptions(connection: Options): Options {
	return {
		...connection,
		entities,
		// Encrypts encrypted columns at flush, bound to their row (src/lib/db/encrypted-text.ts).
		subscribers: [new FieldSealer()],
		extensions: [Migrator],
		migrations: { migrationsList, tableName: 'haven_migrations', transactional: true, allOrNothing: true, snapshot: false, silent: true },
		ensureDatabase: true,
		allowGlobalContext: false,
		pool: { min: 0, max: 10, idleTimeoutMillis: POOL_TIMEOUTS.idleConnectionMs },
		driverOptions: {
			...(connection.driverOptions as object | undefined),
			application_name: 'haven',
			connectionTimeoutMillis: POOL_TIMEOUTS.connectTimeoutMs,
			statement_timeout: POOL_TIMEOUTS.statementTimeoutMs,
			idle_in_transaction_session_timeout: POOL_TIMEOUTS.idleInTransactionTimeoutMs,
			keepAlive: true,
			keepAliveInitialDelayMillis: 10_000,
			onPoolCreated: releaseDeadConnections,
		},
		debug: false,
	};
}

/** The parts of pg's Pool and pooled client used here (the `pg` package ships no types). */
interface PgPoolClient {
	release: (error?: Error | boolean) => void;
	once(event: 'end', listener: () => void): unknown;
	off(event: 'end', listener: () => void): unknown;
}

interface PgPool {
	on(event: 'acquire', listener: (client: PgPoolClient) => void): unknown;
}

/**
 * A connection that dies while checked out must go back to the pool, or the pool shrinks with every outage until
 * nothing can run. Kysely 0.29 (under MikroORM 7) releases a transaction's connection only after a successful BEGIN,
 * COMMIT or ROLLBACK: when PostgreSQL goes away mid-transaction all three fail, and the dead connection stays checked
 * out forever (found by test/reliability/database-outage.test.ts: after a crash with four writes in flight, four of
 * ten slots were gone). So each checked-out connection is released, with an error (the pool then discards it), as soon
 * as it ends; and its release is made idempotent, since Kysely may still release it normally afterwards.
 */
export function releaseDeadConnections(pool: PgPool): void {
	const cleanups = new WeakMap<PgPoolClient, () => void>();
	pool.on('acquire', (client: PgPoolClient) => {
		cleanups.get(client)?.();
		// pg-pool assigns `client.release` right after emitting 'acquire'; wrap it once it is there.
		queueMicrotask(() => {
			const release = client.release;
			let released = false;
			const once = (error?: Error | boolean) => {
				if (released) return;
				released = true;
				client.off('end', ended);
				cleanups.delete(client);
				try {
					release.call(client, error);
				} catch {
					// already released by the pool itself (e.g. a checkout that timed out)
				}
			};
			const ended = () => once(new Error('The database connection ended while it was checked out'));
			client.release = once;
			client.once('end', ended);
			cleanups.set(client, () => client.off('end', ended));
		});
	});
}

/** Applies pending migrations under an advisory lock; returns the names that ran. */
export async function migrate(orm: MikroORM): Promise<string[]> {
	return orm.em.fork().transactional(async (em) => {
		// A long migration (or waiting for another instance's) must not hit the serving statement timeout.
		await em.execute('set local statement_timeout = 0');
		await em.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
		const ran = await orm.migrator.up({ transaction: em.getTransactionContext() });
		return ran.map((migration) => migration.name);
	});
}

export async function migrationStatus(orm: MikroORM): Promise<{ applied: string[]; pending: string[] }> {
	// Sequential: each call lazily creates the migrations table, and two at once race on it.
	const executed = await orm.migrator.getExecuted();
	const pending = await orm.migrator.getPending();
	return { applied: executed.map((row) => row.name), pending: pending.map((row) => row.name) };
}

/** Every encrypted column in the model, read from the ORM metadata, with the columns its values are bound to. */
export function encryptedColumns(
	orm: MikroORM,
): { entity: string; table: string; property: string; column: string; id: string; owner: string | undefined }[] {
	return [...orm.getMetadata().getAll().values()].flatMap((meta) =>
		Object.values(meta.properties)
			.filter((prop) => prop.customType instanceof EncryptedText)
			.map((prop) => {
				const ownerProperty = (prop.customType as EncryptedText).ownerProperty;
				const owner = ownerProperty ? meta.properties[ownerProperty as keyof typeof meta.properties]?.fieldNames[0] : undefined;
				const id = meta.properties[meta.primaryKeys[0] as keyof typeof meta.properties]!.fieldNames[0]!;
				return { entity: meta.className, table: meta.tableName, property: prop.name, column: prop.fieldNames[0]!, id, owner };
			}),
	);
}

/**
 * MikroORM reads host, user and database from the URL but drops its query, so `sslmode` (libpq's name, which the
 * README tells operators to use) is mapped onto the driver's `ssl` option here. `require` encrypts without verifying
 * the certificate, as in libpq; `verify-ca`/`verify-full` verify it.
 */
export function sslFromUrl(url: string): boolean | { rejectUnauthorized: boolean } | undefined {
	const mode = new URL(url).searchParams.get('sslmode');
	switch (mode) {
		case 'disable':
			return false;
		case 'require':
		case 'prefer':
			return { rejectUnauthorized: false };
		case 'verify-ca':
		case 'verify-full':
			return { rejectUnauthorized: true };
		default:
			return undefined;
	}
}

function describeUrl(url: string): string {
	try {
		const parsed = new URL(url);
		return `PostgreSQL at ${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
	} catch {
		return 'PostgreSQL from DATABASE_URL';
	}
}
