import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderLink } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'source',
	description: "Haven's source code",
	category: 'Info',
	access: 'everyone',
};

export class SourceCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const { urls, discord } = this.container.config;
		await send(interaction, renderLink('source', urls, discord.clientId));
	}
}
