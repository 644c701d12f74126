import { container } from '@sapphire/framework';
import { migrationsList } from '../../migrations/index.ts';
import { loadConfig, type Config } from '../lib/core/config.ts';
import { openDatabase, type Database } from '../lib/db/index.ts';
import { unavailableReason } from '../lib/db/outage.ts';
import { createLogger } from '../lib/core/logger.ts';
import { CliError, ExitCode } from './exit-codes.ts';

export interface DatabaseOptions {
	/** Refuse (exit 6, "run haven migrate") when migrations are pending, instead of failing later on a missing table. */
	migrated?: boolean;
}

/** For commands that work on the database without starting the service. */
export async function withDatabase<T>(run: (db: Database, config: Config) => Promise<T>, options: DatabaseOptions = {}): Promise<T> {
	const config = loadConfig();
	container.logger ??= createLogger(config.logLevel, config.logFormat);
	const db = await openCliDatabase(config);
	try {
		if (options.migrated) {
			const pending = await pendingMigrations(db);
			if (pending.length) {
				throw new CliError(
					ExitCode.notMigrated,
					`the database schema is not up to date (${pending.length} migration(s) pending): run \`haven migrate\` first`,
				);
			}
		}
		return await run(db, config);
	} finally {
		await db.close();
	}
}

/** Opens the database for a one-off command; a failure to reach it is exit 4, naming where it looked. */
export async function openCliDatabase(config: Config): Promise<Database> {
	let db: Database | undefined;
	try {
		// Results go to stdout; the database's own notes only matter when something is wrong.
		db = await openDatabase(config, { info: () => undefined, warn: (message) => console.error(message) });
		// The pool connects lazily: reach the server now, so an outage is this error and not a later one.
		await db.orm.em.getConnection().execute('select 1');
		return db;
	} catch (error) {
		await db?.close().catch(() => undefined);
		const where = config.database.url ? 'DATABASE_URL' : `the embedded PostgreSQL in ${config.database.dataDir}`;
		const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
		throw new CliError(ExitCode.databaseUnreachable, `cannot reach the database (${where}): ${reason || unavailableReason(error)}`);
	}
}

/**
 * Migrations this version has that the database has not applied, read without creating anything (the migrations
 * table may not exist yet).
 */
export async function pendingMigrations(db: Database): Promise<string[]> {
	const connection = db.orm.em.getConnection();
	const [{ present }] = await connection.execute<{ present: boolean }[]>(`select to_regclass('haven_migrations') is not null as present`);
	const applied = present
		? new Set((await connection.execute<{ name: string }[]>('select name from haven_migrations')).map((row) => row.name))
		: new Set<string>();
	return migrationsList.map((migration) => migration.name).filter((name) => !applied.has(name));
}
