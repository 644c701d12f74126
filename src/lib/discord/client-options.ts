import { GatewayIntentBits, Options, Partials, type ClientOptions } from 'discord.js';
import type { Config } from '../core/config.ts';

/**
 * How Haven connects to Discord:
 * - intents: servers, server messages, DMs and message content (mentions and DMs are read by the companion and the
 *   crisis screen); no privileged member or presence intent;
 * - partials: Channel, so DMs arrive although DM channels are not cached before their first message;
 * - shards: as many as Discord recommends (`/gateway/bot`);
 * - caches bounded: no presences, reactions, emojis, stickers, voice states, invites, bans or thread members; at
 *   most 50 messages per channel, no members but the bot's own, and 1,000 users (the bot itself is always kept);
 * - REST through DISCORD_API_URL (Discord's own by default, or a proxy such as @discordjs/proxy; the tests' fake);
 * - allowedMentions: nobody, so text echoed by the bot can never ping @everyone, roles or users.
 */
export function discordClientOptions(
	config: Config,
): Pick<ClientOptions, 'intents' | 'partials' | 'shards' | 'makeCache' | 'rest' | 'allowedMentions'> {
	return {
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
		partials: [Partials.Channel],
		shards: 'auto',
		makeCache: Options.cacheWithLimits({
			...Options.DefaultMakeCacheSettings,
			MessageManager: 50,
			// Members arrive with every interaction and message that needs them; only the bot's own is kept (permissions).
			GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => member.id === member.client.user.id },
			UserManager: { maxSize: 1_000, keepOverLimit: (user) => user.id === user.client.user.id },
			PresenceManager: 0,
			ReactionManager: 0,
			ReactionUserManager: 0,
			GuildEmojiManager: 0,
			GuildStickerManager: 0,
			BaseGuildEmojiManager: 0,
			VoiceStateManager: 0,
			GuildInviteManager: 0,
			GuildBanManager: 0,
			ThreadMemberManager: 0,
			StageInstanceManager: 0,
			GuildScheduledEventManager: 0,
			AutoModerationRuleManager: 0,
			ApplicationCommandManager: 0,
		}),
		rest: { api: config.discord.apiUrl },
		allowedMentions: { parse: [] },
	};
}
