import type { Command } from '@sapphire/framework';
import { ApplicationCommandType, InteractionContextType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { NO_MENTIONS, send } from '../../lib/discord/reply.ts';
import { GUILD_ONLY_MESSAGE } from '../../lib/discord/info-views.ts';
import { checkInOnMessage } from '../../lib/safety/flows.ts';
import { jumpUrl } from '../../lib/safety/policy.ts';

export const definition: CommandDefinition = {
	name: 'Check in on this message',
	description: 'Worried about someone? Get guidance on how to help them, privately',
	type: ApplicationCommandType.Message,
	category: 'Safety',
	access: 'everyone',
	neverBlocked: true,
	contexts: [InteractionContextType.Guild],
	// Short: enough to stop a flood of alerts from one member, never in the way of a real worry.
	cooldownSeconds: 5,
	help: 'Nobody is told that you used it. With alerts on, the server’s moderators are let know.',
};

export class CheckInCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		// Sapphire lowercases piece names but routes a context menu by its exact name: the alias is that name.
		super(context, definition);
	}

	override async contextMenuRun(interaction: Command.ContextMenuCommandInteraction) {
		if (!interaction.isMessageContextMenuCommand()) return;
		if (!interaction.inGuild()) return send(interaction, { content: GUILD_ONLY_MESSAGE });
		const target = interaction.targetMessage;
		await checkInOnMessage(
			{
				reporterId: interaction.user.id,
				guildId: interaction.guildId,
				authorId: target.author.id,
				authorIsBot: target.author.bot || target.webhookId !== null,
				text: target.content ?? '',
				jumpUrl: jumpUrl(interaction.guildId, target.channelId, target.id),
			},
			{
				reply: (content) => send(interaction, { content }),
				followUpView: (view) => send(interaction, view),
				dmAuthor: async (messages) => {
					try {
						for (const content of messages) await target.author.send({ content, allowedMentions: NO_MENTIONS });
						return 'sent';
					} catch (error) {
						const code = (error as { code?: unknown }).code;
						if (code === 50007) return 'closed';
						this.container.logger.warn(
							`Could not offer resources to a message's author${code === undefined ? '' : ` (Discord code ${String(code)})`}`,
						);
						return 'failed';
					}
				},
				dmAuthorView: async (view) => {
					try {
						await target.author.send({ ...view, allowedMentions: NO_MENTIONS });
						return 'sent';
					} catch {
						return 'failed';
					}
				},
			},
		);
	}
}
