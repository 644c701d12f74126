import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { readChangelog } from '../../lib/operations/changelog.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderChangelog } from '../../lib/discord/info-views.ts';
import { respondSoon } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'changelog',
	description: 'Show the patch notes (PATCHNOTES_PATH), page by page',
	category: 'Owner',
	access: 'owner',
	options: [{ type: ApplicationCommandOptionType.Integer, name: 'page', description: 'Page to open (default 1)', required: false, min_value: 1 }],
};

export class ChangelogCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const page = (interaction.options.getInteger('page') ?? 1) - 1;
		await respondSoon(interaction, async () => renderChangelog(await readChangelog(this.container.config.patchNotesPath), page));
	}
}
