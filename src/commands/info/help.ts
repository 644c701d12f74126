import type { Command } from '@sapphire/framework';
import { HavenCommand, isOwner, loadedDefinitions } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderHelp } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'help',
	description: 'Every command with what it does and its cooldown',
	category: 'Info',
	access: 'everyone',
};

export class HelpCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await send(interaction, renderHelp({ definitions: loadedDefinitions(), isOwner: isOwner(interaction.user.id) }));
	}
}
