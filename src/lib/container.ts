import type { Config } from './config.ts';
import type { Database } from './db/index.ts';

/** Services hang on Sapphire's container; every piece reaches them as `this.container.<name>`. */
declare module '@sapphire/pieces' {
	interface Container {
		config: Config;
		db: Database;
		startedAt: Date;
		version: string;
	}
}
