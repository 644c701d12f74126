import type { Ai } from '../ai/index.ts';
import type { Config } from './config.ts';
import type { Bot } from '../discord/bot.ts';
import type { AiSwitch } from '../operations/ai-switch.ts';
import type { BlockCheck } from '../operations/blocks.ts';
import type { Database } from '../db/index.ts';
import type { StatsSource } from '../operations/stats.ts';
import type { SharedStore } from './shared-store.ts';
import type { InFlight } from '../discord/in-flight.ts';
import type { ShardTracker } from '../operations/status.ts';

/** Services hang on Sapphire's container; every piece reaches them as `this.container.<name>`. */
declare module '@sapphire/pieces' {
	interface Container {
		config: Config;
		db: Database;
		startedAt: Date;
		version: string;
		ai: Ai;
		/** The owners' run-time AI switch (on/off, model), read by `ai` before each call. */
		aiSwitch: AiSwitch;
		/** Blocked people and servers (src/lib/operations/blocks.ts). */
		blocks: BlockCheck;
		/** Keys the AI safety identifiers (src/lib/companion/companion.ts, `loadAiIdentifierKey`); set at startup. */
		aiIdentifierKey: Buffer;
		stats: StatsSource;
		/** REDIS_URL: the store a fleet shares its rate limits and cooldowns in; undefined keeps them in memory. */
		sharedStore: SharedStore | undefined;
		/** Discord work being done now (commands, buttons, modals, messages): waited for at shutdown. */
		discordWork: InFlight;
		shards: ShardTracker;
		/** The Discord bot's services; undefined in API-only mode. */
		bot: Bot | undefined;
	}
}
