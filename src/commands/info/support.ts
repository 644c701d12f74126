import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderLink } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'support',
	description: 'Where to get help with Haven or report a problem',
	category: 'Info',
	access: 'everyone',
};

export class SupportCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const { urls, discord } = this.container.config;
		await send(interaction, renderLink('support', urls, discord.clientId));
	}
}
