import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderPrivacy } from '../../lib/discord/render.ts';
import { send } from '../../lib/discord/respond.ts';

export const definition: CommandDefinition = {
	name: 'privacy',
	description: 'What Haven keeps about you and how it is protected',
	category: 'Info',
	access: 'everyone'
};

export class PrivacyCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await send(interaction, renderPrivacy(this.container.config.urls));
	}
}
