import type { Command } from '@sapphire/framework';
import { version as sapphireVersion } from '@sapphire/framework';
import { Utils } from '@mikro-orm/core';
import { version as discordVersion, type GuildBasedChannel, type GuildMember } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { GUILD_ONLY_MESSAGE } from '../../lib/discord/info-views.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import {
	bitsOf,
	CHANNEL_PERMISSIONS,
	configuredChannels,
	guildFaults,
	missingPermissions,
	renderGuildDebug,
	type ChannelCheck,
} from '../../lib/operations/guild-diagnostics.ts';
import { botMember } from '../../lib/discord/guilds.ts';
import { getGuildSettings } from '../../lib/settings/guild-settings.ts';

export const definition: CommandDefinition = {
	name: 'guilddebug',
	description: 'Diagnostics for admins: shard, latency, channel permissions, recent errors, versions',
	category: 'Server admin',
	access: 'guildAdmin',
	cooldownSeconds: 10,
	help: 'Errors are listed by id and command only: no message content.',
};

function checkChannel(
	label: string,
	channelId: string | null,
	channel: GuildBasedChannel | null | undefined,
	me: GuildMember,
	purpose: keyof typeof CHANNEL_PERMISSIONS,
): ChannelCheck {
	if (!channelId) return { label, channelId: null, found: false, missing: [] };
	if (!channel) return { label, channelId, found: false, missing: [] };
	return { label, channelId, found: true, missing: missingPermissions(bitsOf(channel.permissionsFor(me)), CHANNEL_PERMISSIONS[purpose]) };
}

export class GuildDebugCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const guild = interaction.guild;
		if (!guild) return send(interaction, { content: GUILD_ONLY_MESSAGE });
		await respondSoon(interaction, async () => {
			const em = this.em();
			const [settings, me, postgres] = await Promise.all([
				getGuildSettings(em.fork(), guild.id),
				botMember(guild),
				em
					.fork()
					.execute<{ server_version: string }[]>('show server_version')
					.then((rows) => rows[0]?.server_version ?? 'unknown')
					.catch(() => 'unknown'),
			]);
			const client = this.container.client;
			const shard = this.container.shards.snapshot(client).find((s) => s.id === guild.shardId) ?? null;
			const here = interaction.channelId
				? {
						label: 'This channel',
						channelId: interaction.channelId,
						found: true,
						missing: missingPermissions(bitsOf(interaction.appPermissions), CHANNEL_PERMISSIONS.here),
					}
				: null;
			const channels = configuredChannels(settings).map(({ label, channelId, purpose }) =>
				checkChannel(label, channelId, channelId ? guild.channels.cache.get(channelId) : null, me, purpose),
			);
			return renderGuildDebug({
				guildId: guild.id,
				shard,
				channels: here ? [here, ...channels] : channels,
				alertRole: settings.alertRoleId ? { roleId: settings.alertRoleId, found: guild.roles.cache.has(settings.alertRoleId) } : null,
				faults: guildFaults.recent(guild.id),
				versions: {
					Haven: this.container.version,
					Node: process.version,
					'discord.js': discordVersion,
					Sapphire: sapphireVersion,
					MikroORM: Utils.getORMVersion(),
					PostgreSQL: postgres.split(' ')[0] ?? postgres,
				},
				uptimeSeconds: Math.floor((Date.now() - this.container.startedAt.getTime()) / 1000),
			});
		});
	}
}
