import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, ChannelType, PermissionFlagsBits, type Guild } from 'discord.js';
import { INTERNATIONAL, listCountries } from '../../lib/crisis/resources.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { GUILD_ONLY_MESSAGE } from '../../lib/discord/info-views.ts';
import { respondSoon, send, type View } from '../../lib/discord/reply.ts';
import {
	FEATURE_LABELS,
	FEATURES,
	getGuildSettings,
	updateGuildSettings,
	type Feature,
	type GuildSettingsPatch,
} from '../../lib/settings/guild-settings.ts';
import { botMember } from '../../lib/discord/guilds.ts';
import { checkAlertRole, checkChannel, renderGuildSettings } from '../../lib/settings/views.ts';

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
					choices: listCountries().map(({ code, name }) => ({ name: code === INTERNATIONAL ? 'Worldwide directory' : name, value: code })),
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
			description: 'The channel for check-in prompts (leave empty to clear)',
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

type Checked = { problem?: string; warnings: string[] };

export class GuildSettingsCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!interaction.inGuild()) return send(interaction, { content: GUILD_ONLY_MESSAGE });
		const guildId = interaction.guildId;
		const sub = interaction.options.getSubcommand(true);
		await respondSoon(interaction, async (): Promise<View> => {
			if (sub === 'view') return renderGuildSettings(await getGuildSettings(this.em(), guildId));
			const guild = interaction.guild ?? (await this.container.client.guilds.fetch(guildId));
			const patch: GuildSettingsPatch = {};
			const warnings: string[] = [];
			const refuse = (problem: string): View => ({ content: `${problem}\nNothing was changed.` });

			switch (sub) {
				case 'alerts': {
					const enabled = interaction.options.getBoolean('enabled', true);
					const channelId = interaction.options.getChannel('channel')?.id;
					const roleId = interaction.options.getRole('role')?.id;
					const current = await getGuildSettings(this.em(), guildId);
					const target = channelId ?? current.alertChannelId;
					if (enabled && !target) return refuse('Choose a channel for the alerts (the `channel` option).');
					if (channelId || (enabled && target)) {
						const checked = await this.checkChannel(guild, target!, 'alerts');
						if (checked.problem) return refuse(checked.problem);
						warnings.push(...checked.warnings);
					}
					if (roleId) {
						const checked = await this.checkRole(guild, roleId);
						if (checked.problem) return refuse(checked.problem);
						warnings.push(...checked.warnings);
						patch.alertRoleId = roleId;
					} else if (interaction.options.getBoolean('no-role')) {
						patch.alertRoleId = null;
					}
					patch.alertsEnabled = enabled;
					if (channelId) patch.alertChannelId = channelId;
					break;
				}
				case 'country': {
					const code = interaction.options.getString('country', true);
					patch.country = code === INTERNATIONAL ? null : code;
					break;
				}
				case 'author-offer':
					patch.offerResourcesToAuthor = interaction.options.getBoolean('enabled', true);
					break;
				case 'checkin-channel': {
					const channelId = interaction.options.getChannel('channel')?.id ?? null;
					if (channelId) {
						const checked = await this.checkChannel(guild, channelId, 'checkins');
						if (checked.problem) return refuse(checked.problem);
						warnings.push(...checked.warnings);
					}
					patch.checkinChannelId = channelId;
					break;
				}
				case 'feature': {
					const feature = interaction.options.getString('feature', true) as Feature;
					if (!FEATURES.includes(feature)) return refuse('Unknown feature.');
					patch.features = { [feature]: interaction.options.getBoolean('enabled', true) };
					break;
				}
				default:
					return refuse('Unknown setting.');
			}
			let settings;
			try {
				settings = await updateGuildSettings(this.em(), guildId, patch);
			} catch (error) {
				if (error instanceof RangeError) return refuse('That value is not valid.');
				throw error;
			}
			return renderGuildSettings(settings, ['Saved. It applies at once.', ...warnings]);
		});
	}

	private async checkChannel(guild: Guild, channelId: string, purpose: 'alerts' | 'checkins'): Promise<Checked> {
		const channel = guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));
		const me = await botMember(guild).catch(() => null);
		const isTextChannel = channel !== null && channel !== undefined && (TEXT_CHANNELS as ChannelType[]).includes(channel.type);
		if (!channel || !me || !isTextChannel) return checkChannel({ isTextChannel: false, botPermissions: 0n, everyoneCanView: false, purpose });
		return checkChannel({
			isTextChannel,
			botPermissions: channel.permissionsFor(me).bitfield,
			everyoneCanView: channel.permissionsFor(guild.roles.everyone).has(PermissionFlagsBits.ViewChannel),
			purpose,
		});
	}

	private async checkRole(guild: Guild, roleId: string): Promise<Checked> {
		const role = guild.roles.cache.get(roleId) ?? (await guild.roles.fetch(roleId).catch(() => null));
		if (!role) return { problem: 'That role was not found in this server.', warnings: [] };
		const me = await botMember(guild).catch(() => null);
		return checkAlertRole({
			isEveryone: role.id === guild.id,
			managed: role.managed,
			mentionable: role.mentionable,
			botCanMentionAll: me?.permissions.has(PermissionFlagsBits.MentionEveryone) ?? false,
		});
	}
}
