import { container } from '@sapphire/framework';
import { loadConfig, type Config } from '../lib/core/config.ts';
import { openDatabase, type Database } from '../lib/db/index.ts';
import { createLogger } from '../lib/core/logger.ts';

/** For commands that work on the database without starting the service. */
export async function withDatabase<T>(run: (db: Database, config: Config) => Promise<T>): Promise<T> {
	const config = loadConfig();
	container.logger ??= createLogger(config.logLevel, config.logFormat);
	// Progress and results go to stdout; the database's own notes only matter when something is wrong.
	const db = await openDatabase(config, { info: () => undefined, warn: (message) => console.error(message) });
	try {
		return await run(db, config);
	} finally {
		await db.close();
	}
}
