import type { Ai } from '../ai/index.ts';
import type { Config } from './config.ts';
import type { Bot } from '../discord/bot.ts';
import type { Database } from '../db/index.ts';
import type { StatsSource } from '../operations/stats.ts';
import type { SharedStore } from './shared-store.ts';
import type { ShardTracker } from '../operations/status.ts';

/** Services hang on Sapphire's container; every piece reaches them as `this.container.<name>`. */
declare module '@sapphire/pieces' {
	interface Container {
		config: Config;
		db: Database;
		startedAt: Date;
		version: string;
		ai: Ai;
		/** Keys the AI safety identifiers (src/lib/companion/companion.ts, `loadAiIdentifierKey`); set at startup. */
		aiIdentifierKey: Buffer;
		stats: StatsSource;
		/** REDIS_URL: the store a fleet shares its rate limits and cooldowns in; undefined keeps them in memory. */
		sharedStore: SharedStore | undefined;
		shards: ShardTracker;
		/** The Discord bot's services; undefined in API-only mode. */
		bot: Bot | undefined;
	}
}
