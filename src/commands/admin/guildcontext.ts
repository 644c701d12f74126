import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { GUILD_ONLY_MESSAGE } from '../../lib/discord/info-views.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import {
	bitsOf,
	GUILD_PERMISSIONS,
	guildDataCounts,
	guildRecord,
	missingPermissions,
	renderGuildContext,
} from '../../lib/operations/guild-diagnostics.ts';
import { getGuildSettings } from '../../lib/settings/guild-settings.ts';
import { botMember } from '../../lib/discord/guilds.ts';
import { renderGuildSettings } from '../../lib/settings/views.ts';

export const definition: CommandDefinition = {
	name: 'guildcontext',
	description: 'What Haven knows about this server: settings, counts (never content), missing permissions',
	category: 'Server admin',
	access: 'guildAdmin',
	cooldownSeconds: 10,
};

export class GuildContextCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const guild = interaction.guild;
		if (!guild) return send(interaction, { content: GUILD_ONLY_MESSAGE });
		await respondSoon(interaction, async () => {
			const em = this.em();
			const [settings, record, counts, me] = await Promise.all([
				getGuildSettings(em.fork(), guild.id),
				guildRecord(em.fork(), guild.id),
				guildDataCounts(em.fork(), guild.id),
				botMember(guild),
			]);
			return renderGuildContext({
				settingsView: renderGuildSettings(settings),
				record,
				counts,
				missing: missingPermissions(bitsOf(me.permissions), GUILD_PERMISSIONS),
				graceDays: this.container.config.retention.guildGraceDays,
			});
		});
	}
}
