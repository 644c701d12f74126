import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, ChannelType, PermissionFlagsBits, type Guild } from 'discord.js';
import { countryChoices } from '../../lib/crisis/resources.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { GUILD_ONLY_MESSAGE } from '../../lib/discord/info-views.ts';
import { respondSoon, send, type View } from '../../lib/discord/reply.ts';
import { ESCALATE_MAX_MINUTES, FEATURE_LABELS, FEATURES, getGuildSettings, updateGuildSettings } from '../../lib/settings/guild-settings.ts';
import { channelToCheck, patchFromOptions, type ChannelFacts, type GuildSettingsOptions } from '../../lib/settings/guild-settings-options.ts';
import { botMember } from '../../lib/discord/guilds.ts';
import { renderGuildSettings, type RoleCheckInput } from '../../lib/settings/views.ts';

const TEXT_CHANNELS: (ChannelType.GuildText | ChannelType.GuildAnnouncement)[] = [ChannelType.GuildText, ChannelType.GuildAnnouncement];

export const definition: CommandDefinition = {
	name: 'guildsettings',
	description: "See or change Haven's settings for this server",
	category: 'Settings',
	access: 'guildAdmin',
	cooldownSeconds: 5,
	help: 'Crisis alerts to moderators (off by default), the country of crisis resources, features.',
	options: [
		{ type: ApplicationCommandOptionType.Subcommand, name: 'view', description: "Show this server's Haven settings" },
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'alerts',
			description: 'Crisis alerts to moderators: on or off, where, and which role to ping',
			options: [
				{
					type: ApplicationCommandOptionType.Boolean,
					name: 'enabled',
					description: 'Post an alert when a message may show someone in crisis',
					required: true,
				},
				{
					type: ApplicationCommandOptionType.Channel,
					name: 'channel',
					description: 'Where alerts go (best: a channel only moderators see)',
					channel_types: TEXT_CHANNELS,
				},
				{ type: ApplicationCommandOptionType.Role, name: 'role', description: 'A role to ping with each alert' },
				{ type: ApplicationCommandOptionType.Boolean, name: 'no-role', description: 'Stop pinging a role' },
				{
					type: ApplicationCommandOptionType.Integer,
					name: 'escalate-after',
					description: 'Raise a high or imminent alert again if nobody acknowledged it within these minutes (0: never)',
					min_value: 0,
					max_value: ESCALATE_MAX_MINUTES,
				},
			],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'country',
			description: 'The country whose crisis lines Haven shows here (members can choose their own)',
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: 'country',
					description: 'Country',
					required: true,
					choices: countryChoices(),
				},
			],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'author-offer',
			description: '"Check in on this message": may Haven DM the author resources? (off by default)',
			options: [
				{
					type: ApplicationCommandOptionType.Boolean,
					name: 'enabled',
					description: 'DM resources to the author (never saying who asked)',
					required: true,
				},
			],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'checkin-channel',
			description: 'Where people may share their check-ins (mood and intensity only; leave empty to clear)',
			options: [{ type: ApplicationCommandOptionType.Channel, name: 'channel', description: 'Channel', channel_types: TEXT_CHANNELS }],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'feature',
			description: 'Turn a Haven feature on or off in this server',
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: 'feature',
					description: 'Feature',
					required: true,
					choices: FEATURES.map((feature) => ({ name: FEATURE_LABELS[feature], value: feature })),
				},
				{ type: ApplicationCommandOptionType.Boolean, name: 'enabled', description: 'On or off', required: true },
			],
		},
	],
};

/** The options of a changing subcommand; `view` has none. */
function readOptions(interaction: Command.ChatInputCommandInteraction): GuildSettingsOptions | 'view' {
	const { options } = interaction;
	const sub = options.getSubcommand(true);
	switch (sub) {
		case 'view':
			return 'view';
		case 'alerts':
			return {
				sub,
				enabled: options.getBoolean('enabled', true),
				channelId: options.getChannel('channel')?.id ?? null,
				roleId: options.getRole('role')?.id ?? null,
				noRole: options.getBoolean('no-role') === true,
				escalateAfter: options.getInteger('escalate-after'),
			};
		case 'country':
			return { sub, country: options.getString('country', true) };
		case 'author-offer':
			return { sub, enabled: options.getBoolean('enabled', true) };
		case 'checkin-channel':
			return { sub, channelId: options.getChannel('channel')?.id ?? null };
		case 'feature':
			return { sub, feature: options.getString('feature', true), enabled: options.getBoolean('enabled', true) };
		default:
			return { sub: 'unknown' };
	}
}

/** What `checkChannel` needs to know about a channel of this server; a missing one (or a failed lookup) is unusable. */
async function channelFacts(guild: Guild, channelId: string): Promise<ChannelFacts> {
	const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
	const me = await botMember(guild).catch(() => null);
	if (!channel || !me || !(TEXT_CHANNELS as ChannelType[]).includes(channel.type)) {
		return { isTextChannel: false, botPermissions: 0n, everyoneCanView: false };
	}
	return {
		isTextChannel: true,
		botPermissions: channel.permissionsFor(me).bitfield,
		everyoneCanView: channel.permissionsFor(guild.roles.everyone).has(PermissionFlagsBits.ViewChannel),
	};
}

/** What `checkAlertRole` needs to know about a role; null when the server has no such role. */
async function roleFacts(guild: Guild, roleId: string): Promise<RoleCheckInput | null> {
	const role = guild.roles.cache.get(roleId) ?? (await guild.roles.fetch(roleId).catch(() => null));
	if (!role) return null;
	const me = await botMember(guild).catch(() => null);
	return {
		isEveryone: role.id === guild.id,
		managed: role.managed,
		mentionable: role.mentionable,
		botCanMentionAll: me?.permissions.has(PermissionFlagsBits.MentionEveryone) ?? false,
	};
}

export class GuildSettingsCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!interaction.inGuild()) return send(interaction, { content: GUILD_ONLY_MESSAGE });
		const guildId = interaction.guildId;
		const options = readOptions(interaction);
		await respondSoon(interaction, async (): Promise<View> => {
			const em = this.em();
			if (options === 'view') return renderGuildSettings(await getGuildSettings(em, guildId));
			const guild = interaction.guild ?? (await this.container.client.guilds.fetch(guildId));
			const currentAlertChannelId = options.sub === 'alerts' ? (await getGuildSettings(em, guildId)).alertChannelId : null;
			const channel = channelToCheck(options, currentAlertChannelId);
			const change = patchFromOptions(options, {
				currentAlertChannelId,
				channel: channel ? await channelFacts(guild, channel.id) : undefined,
				role: options.sub === 'alerts' && options.roleId ? await roleFacts(guild, options.roleId) : undefined,
			});
			if ('problem' in change) return { content: `${change.problem}\nNothing was changed.` };
			const settings = await updateGuildSettings(em, guildId, change.patch);
			return renderGuildSettings(settings, ['Saved. It applies at once.', ...change.warnings]);
		});
	}
}
