// INTERACTION_CREATE payloads as Discord sends them: slash commands (with subcommands, options, resolved data and
// autocomplete), user/message context menus, message components and modal submits, in a guild channel or a DM.
import { randomBytes } from 'node:crypto';
import { ApplicationCommandOptionType as Opt, ApplicationCommandType, ComponentType, InteractionType } from 'discord.js';
import {
	channelPayload,
	computePermissions,
	DM_APP_PERMISSIONS,
	makeMember,
	makeMessage,
	nextSnowflake,
	type FakeGuild,
	type Json,
} from './fake-discord-data.ts';

/** What the builders need from the fake. */
export interface InteractionWorld {
	applicationId: string;
	bot: Json;
	guild(id: string): FakeGuild | undefined;
	defaultGuild(): FakeGuild | undefined;
	guildOfChannel(channelId: string): FakeGuild | undefined;
	user(id: string): Json;
	dmChannel(userId: string): Json;
	command(name: string, type: number, guildId?: string): Json | undefined;
	message(id: string): Json | undefined;
}

/** Where an interaction happens and who triggers it. Defaults: the first guild, its first text channel, a plain member. */
export interface InteractionWhere {
	guildId?: string;
	channelId?: string;
	userId?: string;
	/** In the user's DM with the bot (no guild, `user` instead of `member`, context 1). */
	dm?: boolean;
	/** Override `member.permissions` (e.g. `PermissionFlagsBits.ManageGuild`); default: computed from roles and overwrites. */
	permissions?: bigint | string;
	/** Override `app_permissions`. */
	appPermissions?: bigint | string;
	locale?: string;
}

/** An option value: a string/number/boolean, or a reference resolved into `data.resolved`. */
export type OptionInput =
	string | number | boolean | { user: string } | { channel: string } | { role: string } | { type: number; value: string | number | boolean };

export interface SlashCommandInput extends InteractionWhere {
	name: string;
	subcommandGroup?: string;
	subcommand?: string;
	/** Option types come from the registered command when there is one, else from the JS type (integer vs number). */
	options?: Record<string, OptionInput>;
	/** Name of the focused option: sends an autocomplete interaction (type 4) instead. */
	focused?: string;
}

export interface ContextMenuInput extends InteractionWhere {
	name: string;
	type: 'user' | 'message';
	/** User target (type 'user'); default: the invoking user. */
	targetUserId?: string;
	/** Message target (type 'message'): a message id the fake knows, or a partial message. Default: a message by the target user. */
	targetMessage?: string | Json;
}

export interface ComponentInput extends InteractionWhere {
	customId: string;
	/** ComponentType; default Button (2). */
	componentType?: number;
	/** Select menu values. */
	values?: string[];
	/** The message the component is on: an id the fake knows (e.g. a message the bot sent) or a partial message. */
	message?: string | Json;
}

export interface ModalSubmitInput extends InteractionWhere {
	customId: string;
	/** Text input custom_id -> value. */
	fields: Record<string, string>;
	/** The message whose component opened the modal, if any. */
	message?: string | Json;
}

interface Context {
	guild?: FakeGuild;
	channel: Json;
	user: Json;
	member?: Json;
	permissions: bigint;
	appPermissions: bigint;
	locale: string;
}

export function interactionToken(): string {
	return `aW50ZXJhY3Rpb246${randomBytes(96).toString('base64url')}`;
}

function resolveContext(world: InteractionWorld, where: InteractionWhere): Context {
	const locale = where.locale ?? 'en-US';
	const over = (value: bigint | string | undefined, computed: bigint) => (value === undefined ? computed : BigInt(value));
	if (where.dm) {
		if (!where.userId) throw new Error('fake-discord: a DM interaction needs userId');
		const user = world.user(where.userId);
		const channel = world.dmChannel(user.id);
		return {
			channel,
			user,
			permissions: over(where.permissions, DM_APP_PERMISSIONS),
			appPermissions: over(where.appPermissions, DM_APP_PERMISSIONS),
			locale,
		};
	}
	const guild = (where.guildId && world.guild(where.guildId)) || (where.channelId && world.guildOfChannel(where.channelId)) || world.defaultGuild();
	if (!guild) throw new Error(`fake-discord: no guild for ${JSON.stringify(where)}`);
	const rawChannel = where.channelId ? guild.channels.find((c) => c.id === where.channelId) : guild.channels.find((c) => c.type === 0);
	if (!rawChannel) throw new Error(`fake-discord: no channel ${where.channelId ?? '(text)'} in guild ${guild.id}`);
	const plain = guild.members.find((m) => !m.user.bot && m.user.id !== guild.ownerId && m.roles.length === 0) ?? guild.members[0]!;
	const userId = where.userId ?? plain.user.id;
	const member = guild.members.find((m) => m.user.id === userId) ?? makeMember(world.user(userId), [], guild.joinedAt);
	const botMember = guild.members.find((m) => m.user.id === world.bot.id)!;
	const channel = { ...channelPayload(guild, rawChannel), permissions: String(computePermissions(guild, botMember, rawChannel)) };
	return {
		guild,
		channel,
		user: member.user,
		member,
		locale,
		permissions: over(where.permissions, computePermissions(guild, member, rawChannel)),
		appPermissions: over(where.appPermissions, computePermissions(guild, botMember, rawChannel)),
	};
}

function basePayload(world: InteractionWorld, ctx: Context, type: number, data: Json, extra: Json = {}): Json {
	const { guild, channel, user, member } = ctx;
	const where = guild
		? {
				guild_id: guild.id,
				guild: { id: guild.id, locale: guild.preferredLocale, features: [] },
				guild_locale: guild.preferredLocale,
				member: { ...member, permissions: String(ctx.permissions) },
				context: 0,
				authorizing_integration_owners: { 0: guild.id },
			}
		: { user, context: 1, authorizing_integration_owners: { 0: '0' } };
	return {
		id: nextSnowflake(),
		application_id: world.applicationId,
		type,
		data,
		token: interactionToken(),
		version: 1,
		channel_id: channel.id,
		channel,
		app_permissions: String(ctx.appPermissions),
		locale: ctx.locale,
		entitlements: [],
		attachment_size_limit: 10_485_760,
		...where,
		...extra,
	};
}

/** A member object as it appears in `resolved.members` (no user, with permissions). */
function resolvedMember(ctx: Context, userId: string): Json | undefined {
	const member = ctx.guild?.members.find((m) => m.user.id === userId);
	if (!member || !ctx.guild) return undefined;
	const { user: _user, ...rest } = member;
	return { ...rest, permissions: String(computePermissions(ctx.guild, member, ctx.channel)) };
}

function addResolved(world: InteractionWorld, ctx: Context, resolved: Json, type: number, id: string): void {
	if (type === Opt.User || type === Opt.Mentionable) {
		(resolved.users ??= {})[id] = world.user(id);
		const member = resolvedMember(ctx, id);
		if (member) (resolved.members ??= {})[id] = member;
	} else if (type === Opt.Channel) {
		const guild = world.guildOfChannel(id) ?? ctx.guild;
		const channel = guild?.channels.find((c) => c.id === id) ?? { id, type: 0, name: 'unknown' };
		const permissions = guild && ctx.member ? computePermissions(guild, ctx.member, channel) : ctx.permissions;
		(resolved.channels ??= {})[id] = {
			id,
			name: channel.name,
			type: channel.type,
			parent_id: channel.parent_id ?? null,
			permissions: String(permissions),
			flags: 0,
			guild_id: guild?.id,
		};
	} else if (type === Opt.Role) {
		const role = ctx.guild?.roles.find((r) => r.id === id) ?? { id, name: 'role', permissions: '0' };
		(resolved.roles ??= {})[id] = role;
	}
}

function buildOptions(world: InteractionWorld, ctx: Context, input: SlashCommandInput, command: Json | undefined) {
	let defs: Json[] = command?.options ?? [];
	const wrap: Array<{ type: number; name: string }> = [];
	if (input.subcommandGroup) {
		wrap.push({ type: Opt.SubcommandGroup, name: input.subcommandGroup });
		defs = defs.find((d) => d.name === input.subcommandGroup)?.options ?? [];
	}
	if (input.subcommand) {
		wrap.push({ type: Opt.Subcommand, name: input.subcommand });
		defs = defs.find((d) => d.name === input.subcommand)?.options ?? [];
	}
	const resolved: Json = {};
	let options: Json[] = Object.entries(input.options ?? {}).map(([name, value]) => {
		let type: number = defs.find((d) => d.name === name)?.type ?? 0;
		let raw: string | number | boolean;
		if (typeof value === 'object') {
			if ('user' in value) [type, raw] = [type || Opt.User, value.user];
			else if ('channel' in value) [type, raw] = [type || Opt.Channel, value.channel];
			else if ('role' in value) [type, raw] = [type || Opt.Role, value.role];
			else [type, raw] = [value.type, value.value];
		} else {
			raw = value;
			type ||=
				typeof value === 'boolean'
					? Opt.Boolean
					: typeof value === 'number'
						? Number.isInteger(value)
							? Opt.Integer
							: Opt.Number
						: Opt.String;
		}
		if (input.focused === name) return { type, name, value: String(raw), focused: true };
		if (typeof raw === 'string' && [Opt.User, Opt.Channel, Opt.Role, Opt.Mentionable].includes(type))
			addResolved(world, ctx, resolved, type, raw);
		return { type, name, value: raw };
	});
	for (const level of wrap.reverse()) options = [{ ...level, options }];
	return { options, resolved: Object.keys(resolved).length ? resolved : undefined };
}

function commandData(world: InteractionWorld, ctx: Context, name: string, type: number): { command: Json | undefined; data: Json } {
	const command = world.command(name, type, ctx.guild?.id);
	const data: Json = { id: command?.id ?? nextSnowflake(), name, type };
	if (command?.guild_id) data.guild_id = command.guild_id;
	return { command, data };
}

export function slashCommandPayload(world: InteractionWorld, input: SlashCommandInput): Json {
	const ctx = resolveContext(world, input);
	const { command, data } = commandData(world, ctx, input.name, ApplicationCommandType.ChatInput);
	const { options, resolved } = buildOptions(world, ctx, input, command);
	if (options.length) data.options = options;
	if (resolved) data.resolved = resolved;
	const type = input.focused ? InteractionType.ApplicationCommandAutocomplete : InteractionType.ApplicationCommand;
	return basePayload(world, ctx, type, data);
}

/** A bot message in the context's channel, or the message the caller pointed at. */
function targetMessage(world: InteractionWorld, ctx: Context, ref: string | Json | undefined, defaults: Json): Json {
	const known = typeof ref === 'string' ? world.message(ref) : undefined;
	if (typeof ref === 'string' && !known) throw new Error(`fake-discord: unknown message ${ref}`);
	return known ?? makeMessage({ channel_id: ctx.channel.id, author: world.bot, ...defaults, ...(ref as Json | undefined) });
}

export function contextMenuPayload(world: InteractionWorld, input: ContextMenuInput): Json {
	const ctx = resolveContext(world, input);
	const type = input.type === 'user' ? ApplicationCommandType.User : ApplicationCommandType.Message;
	const { data } = commandData(world, ctx, input.name, type);
	const resolved: Json = {};
	if (input.type === 'user') {
		data.target_id = input.targetUserId ?? ctx.user.id;
		addResolved(world, ctx, resolved, Opt.User, data.target_id);
	} else {
		const author = input.targetUserId ? world.user(input.targetUserId) : ctx.user;
		const message = targetMessage(world, ctx, input.targetMessage, { author, content: 'a message' });
		data.target_id = message.id;
		resolved.messages = { [message.id]: message };
	}
	data.resolved = resolved;
	return basePayload(world, ctx, InteractionType.ApplicationCommand, data);
}

export function componentPayload(world: InteractionWorld, input: ComponentInput): Json {
	const ctx = resolveContext(world, input);
	const componentType = input.componentType ?? ComponentType.Button;
	const component =
		componentType === ComponentType.Button
			? { type: ComponentType.Button, id: 2, style: 1, label: 'Button', custom_id: input.customId }
			: { type: componentType, id: 2, custom_id: input.customId, options: (input.values ?? []).map((v) => ({ label: v, value: v })) };
	const message = targetMessage(world, ctx, input.message, { components: [{ type: ComponentType.ActionRow, id: 1, components: [component] }] });
	const data: Json = { custom_id: input.customId, component_type: componentType };
	if (componentType !== ComponentType.Button) data.values = input.values ?? [];
	return basePayload(world, ctx, InteractionType.MessageComponent, data, { message });
}

export function modalSubmitPayload(world: InteractionWorld, input: ModalSubmitInput): Json {
	const ctx = resolveContext(world, input);
	let id = 0;
	const components = Object.entries(input.fields).map(([customId, value]) => ({
		type: ComponentType.ActionRow,
		id: ++id,
		components: [{ type: ComponentType.TextInput, id: ++id, custom_id: customId, value }],
	}));
	const extra = input.message === undefined ? {} : { message: targetMessage(world, ctx, input.message, {}) };
	return basePayload(world, ctx, InteractionType.ModalSubmit, { custom_id: input.customId, components }, extra);
}
