import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderVersion } from '../../lib/discord/info-views.ts';
import { respondSoon } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'version',
	description: 'The running version and whether a newer release exists',
	category: 'Info',
	access: 'everyone',
	cooldownSeconds: 10,
};

export class VersionCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await respondSoon(interaction, async () => renderVersion(await this.container.bot!.release.check()));
	}
}
