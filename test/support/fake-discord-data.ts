// Discord-shaped data for the fake Discord: snowflakes, users, guilds (explicit or generated lazily), members,
// channels, messages and permission arithmetic. Pure functions and plain objects; no I/O.
import { ChannelType, OverwriteType, PermissionFlagsBits } from 'discord.js';

/** A Discord JSON payload. The fake builds and stores plain objects in Discord's wire format. */
export type Json = Record<string, any>;

const DISCORD_EPOCH = 1_420_070_400_000;
/** Fixed bases keep generated ids deterministic (2020-09 for guilds, 2017-07 for their members). */
const GUILD_BASE_MS = 1_600_000_000_000;
const USER_BASE_MS = 1_500_000_000_000;

/** A snowflake for a timestamp; `seq` fills the low 22 bits (worker, process, increment). */
export function snowflakeAt(ms: number, seq = 0): string {
	return ((BigInt(ms - DISCORD_EPOCH) << 22n) | BigInt(seq & 0x3f_ffff)).toString();
}

let counter = 0;
/** A fresh, increasing snowflake for now (19 digits). */
export function nextSnowflake(): string {
	counter = (counter + 1) & 0xfff;
	return snowflakeAt(Date.now(), (1 << 17) | counter);
}

/** The shard Discord routes a guild's events to: `(guild_id >> 22) % shard_count`. */
export function shardOf(guildId: string, shardCount: number): number {
	return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);
const P = PermissionFlagsBits;
export const DEFAULT_EVERYONE_PERMISSIONS =
	P.ViewChannel |
	P.SendMessages |
	P.ReadMessageHistory |
	P.AddReactions |
	P.EmbedLinks |
	P.AttachFiles |
	P.UseApplicationCommands |
	P.UseExternalEmojis |
	P.CreateInstantInvite |
	P.ChangeNickname |
	P.Connect |
	P.Speak |
	P.SendMessagesInThreads |
	P.CreatePublicThreads;
export const DEFAULT_BOT_PERMISSIONS =
	P.ViewChannel |
	P.SendMessages |
	P.EmbedLinks |
	P.AttachFiles |
	P.ReadMessageHistory |
	P.AddReactions |
	P.UseApplicationCommands |
	P.SendMessagesInThreads;
export const MODERATOR_PERMISSIONS = P.ManageGuild | P.ManageMessages | P.KickMembers | P.ModerateMembers | P.ViewAuditLog;
/** What `app_permissions` says in a DM with the bot. */
export const DM_APP_PERMISSIONS =
	P.ViewChannel |
	P.SendMessages |
	P.EmbedLinks |
	P.AttachFiles |
	P.ReadMessageHistory |
	P.AddReactions |
	P.UseExternalEmojis |
	P.UseApplicationCommands;

// ---------------------------------------------------------------------------------------------------------------
// Specs (what tests pass in)

export interface FakeChannelSpec {
	id?: string;
	name?: string;
	/** ChannelType; default GuildText (0). */
	type?: number;
	parentId?: string | null;
	topic?: string | null;
	/** Discord's shape: `{ id, type: 0 role | 1 member, allow, deny }` (bitfields as strings or bigints). */
	permissionOverwrites?: Array<{ id: string; type: number; allow?: string | bigint; deny?: string | bigint }>;
}

export interface FakeRoleSpec {
	id?: string;
	name: string;
	permissions?: string | bigint;
	color?: number;
}

export interface FakeMemberSpec {
	id?: string;
	username?: string;
	nick?: string | null;
	/** Role ids or role names of this guild. */
	roles?: string[];
}

export interface FakeGuildSpec {
	id?: string;
	name?: string;
	/** Default: the first member. */
	ownerId?: string;
	/** Default: category + #general, #mod-alerts (hidden from @everyone, open to Moderator and the bot), #rules (read-only). */
	channels?: FakeChannelSpec[];
	/** Extra roles besides @everyone, the bot's managed role and the default Moderator role. */
	roles?: FakeRoleSpec[];
	/** Default: `membersPerGuild` generated members (owner, a moderator, then plain members). */
	members?: Array<string | FakeMemberSpec>;
	everyonePermissions?: string | bigint;
	botPermissions?: string | bigint;
	preferredLocale?: string;
}

/** A materialised guild. Explicit guilds are built once and may be mutated by tests; generated ones are rebuilt on demand. */
export interface FakeGuild {
	id: string;
	name: string;
	ownerId: string;
	preferredLocale: string;
	joinedAt: string;
	roles: Json[];
	/** Channels without guild_id (as in GUILD_CREATE). */
	channels: Json[];
	/** Members with `user`, the bot's member included. */
	members: Json[];
}

// ---------------------------------------------------------------------------------------------------------------
// Builders

export function makeUser(id: string, username?: string, bot = false): Json {
	const name = username ?? `user${id.slice(-6)}`;
	return {
		id,
		username: name,
		global_name: bot ? null : name[0]!.toUpperCase() + name.slice(1),
		discriminator: bot ? '0001' : '0',
		avatar: null,
		avatar_decoration_data: null,
		public_flags: 0,
		...(bot ? { bot: true } : {}),
	};
}

export function makeMember(user: Json, roles: string[], joinedAt: string, nick: string | null = null): Json {
	return {
		user,
		nick,
		avatar: null,
		banner: null,
		roles,
		joined_at: joinedAt,
		premium_since: null,
		deaf: false,
		mute: false,
		flags: 0,
		pending: false,
		communication_disabled_until: null,
	};
}

const bits = (value: string | bigint | undefined, fallback: bigint): string => String(value ?? fallback);

/** Build a guild from a spec; `index` makes every generated id deterministic and spreads guilds over shards. */
export function buildGuild(spec: FakeGuildSpec, index: number, membersPerGuild: number, bot: Json): FakeGuild {
	const ms = GUILD_BASE_MS + index;
	const id = spec.id ?? snowflakeAt(ms);
	let seq = 1;
	const nextId = () => snowflakeAt(ms, seq++);
	const joinedAt = new Date(ms).toISOString();

	const role = (roleId: string, name: string, permissions: string, position: number, extra: Json = {}): Json => ({
		id: roleId,
		name,
		permissions,
		position,
		color: 0,
		colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
		hoist: false,
		managed: false,
		mentionable: false,
		icon: null,
		unicode_emoji: null,
		flags: 0,
		...extra,
	});
	const botRoleId = nextId();
	const moderatorRoleId = nextId();
	const roles: Json[] = [
		role(id, '@everyone', bits(spec.everyonePermissions, DEFAULT_EVERYONE_PERMISSIONS), 0),
		role(moderatorRoleId, 'Moderator', MODERATOR_PERMISSIONS.toString(), 1, { color: 0x3498db }),
		role(botRoleId, bot.username, bits(spec.botPermissions, DEFAULT_BOT_PERMISSIONS), 2, { managed: true, tags: { bot_id: bot.id } }),
		...(spec.roles ?? []).map((r, i) => role(r.id ?? nextId(), r.name, bits(r.permissions, 0n), 3 + i, { color: r.color ?? 0 })),
	];
	const roleId = (ref: string) => roles.find((r) => r.id === ref || r.name === ref)?.id ?? ref;

	const members: Json[] = [];
	const memberSpecs = spec.members ?? Array.from({ length: membersPerGuild }, (): FakeMemberSpec => ({}));
	memberSpecs.forEach((m, i) => {
		const member: FakeMemberSpec = typeof m === 'string' ? { id: m } : m;
		const userId = member.id ?? snowflakeAt(USER_BASE_MS + index, i + 1);
		const defaultRoles = spec.members === undefined && i === 1 ? [moderatorRoleId] : [];
		members.push(makeMember(makeUser(userId, member.username), (member.roles ?? defaultRoles).map(roleId), joinedAt, member.nick ?? null));
	});
	members.push(makeMember(bot, [botRoleId], joinedAt));

	const ow = (targetId: string, type: number, allow: bigint, deny: bigint) => ({ id: targetId, type, allow: String(allow), deny: String(deny) });
	const channel = (c: FakeChannelSpec, position: number): Json => ({
		id: c.id ?? nextId(),
		type: c.type ?? ChannelType.GuildText,
		name: c.name ?? `channel-${position}`,
		position,
		parent_id: c.parentId ?? null,
		topic: c.topic ?? null,
		nsfw: false,
		last_message_id: null,
		rate_limit_per_user: 0,
		flags: 0,
		permission_overwrites: (c.permissionOverwrites ?? []).map((o) => ow(o.id, o.type, BigInt(o.allow ?? 0), BigInt(o.deny ?? 0))),
	});
	let channels: Json[];
	if (spec.channels) {
		channels = spec.channels.map(channel);
	} else {
		const categoryId = nextId();
		channels = [
			channel({ id: categoryId, name: 'Text Channels', type: ChannelType.GuildCategory }, 0),
			channel({ name: 'general', parentId: categoryId, topic: 'General chat' }, 1),
			channel(
				{
					name: 'mod-alerts',
					parentId: categoryId,
					permissionOverwrites: [
						{ id, type: OverwriteType.Role, deny: P.ViewChannel },
						{ id: moderatorRoleId, type: OverwriteType.Role, allow: P.ViewChannel | P.SendMessages },
						{ id: bot.id, type: OverwriteType.Member, allow: P.ViewChannel | P.SendMessages | P.EmbedLinks },
					],
				},
				2,
			),
			channel({ name: 'rules', parentId: categoryId, permissionOverwrites: [{ id, type: OverwriteType.Role, deny: P.SendMessages }] }, 3),
		];
	}

	return {
		id,
		name: spec.name ?? `Guild ${index + 1}`,
		ownerId: spec.ownerId ?? members[0]?.user.id ?? bot.id,
		preferredLocale: spec.preferredLocale ?? 'en-US',
		joinedAt,
		roles,
		channels,
		members,
	};
}

/** The GUILD_CREATE payload for a guild. */
export function guildCreatePayload(guild: FakeGuild, largeThreshold = 50): Json {
	const systemChannel = guild.channels.find((c) => c.type === ChannelType.GuildText);
	return {
		id: guild.id,
		name: guild.name,
		icon: null,
		splash: null,
		discovery_splash: null,
		banner: null,
		description: null,
		owner_id: guild.ownerId,
		afk_channel_id: null,
		afk_timeout: 300,
		verification_level: 1,
		default_message_notifications: 1,
		explicit_content_filter: 2,
		mfa_level: 0,
		nsfw_level: 0,
		premium_tier: 0,
		premium_subscription_count: 0,
		premium_progress_bar_enabled: false,
		preferred_locale: guild.preferredLocale,
		rules_channel_id: null,
		system_channel_id: systemChannel?.id ?? null,
		system_channel_flags: 0,
		public_updates_channel_id: null,
		safety_alerts_channel_id: null,
		max_members: 500_000,
		max_video_channel_users: 25,
		vanity_url_code: null,
		features: [],
		application_id: null,
		roles: guild.roles,
		emojis: [],
		stickers: [],
		joined_at: guild.joinedAt,
		large: guild.members.length > largeThreshold,
		unavailable: false,
		member_count: guild.members.length,
		voice_states: [],
		members: guild.members,
		channels: guild.channels,
		threads: [],
		presences: [],
		stage_instances: [],
		guild_scheduled_events: [],
		soundboard_sounds: [],
		lazy: true,
	};
}

/** A guild channel as REST and interactions show it (with guild_id). */
export function channelPayload(guild: FakeGuild, channel: Json): Json {
	return { ...channel, guild_id: guild.id };
}

export function dmChannelPayload(channelId: string, recipient: Json): Json {
	return { id: channelId, type: ChannelType.DM, last_message_id: null, flags: 0, recipients: [recipient] };
}

/** Permissions of a member, in a channel when given: roles, owner, Administrator, then overwrites (Discord's order). */
export function computePermissions(guild: FakeGuild, member: Json, channel?: Json): bigint {
	if (member.user.id === guild.ownerId) return ALL_PERMISSIONS;
	const roleById = new Map(guild.roles.map((r) => [r.id, r]));
	let perms = BigInt(roleById.get(guild.id)?.permissions ?? 0);
	for (const id of member.roles) perms |= BigInt(roleById.get(id)?.permissions ?? 0);
	if (perms & P.Administrator) return ALL_PERMISSIONS;
	if (!channel) return perms;
	const overwrites: Json[] = channel.permission_overwrites ?? [];
	const apply = (o: Json | undefined) => {
		if (o) perms = (perms & ~BigInt(o.deny)) | BigInt(o.allow);
	};
	apply(overwrites.find((o) => o.id === guild.id));
	let allow = 0n;
	let deny = 0n;
	for (const o of overwrites) {
		if (o.type === OverwriteType.Role && o.id !== guild.id && member.roles.includes(o.id)) {
			allow |= BigInt(o.allow);
			deny |= BigInt(o.deny);
		}
	}
	apply({ allow, deny });
	apply(overwrites.find((o) => o.type === OverwriteType.Member && o.id === member.user.id));
	return perms;
}

/** A message as Discord returns it. `guild_id` is only set for gateway messages in guilds. */
export function makeMessage(fields: Json): Json {
	return {
		id: nextSnowflake(),
		type: 0,
		content: '',
		tts: false,
		mention_everyone: false,
		mentions: [],
		mention_roles: [],
		mention_channels: [],
		attachments: [],
		embeds: [],
		components: [],
		pinned: false,
		flags: 0,
		timestamp: new Date().toISOString(),
		edited_timestamp: null,
		...fields,
	};
}
