import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderStats } from '../../lib/discord/info-views.ts';
import { respondSoon } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'stats',
	description: 'Community totals: people, servers, conversations, check-ins',
	category: 'Info',
	access: 'everyone',
	cooldownSeconds: 10,
};

export class StatsCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await respondSoon(interaction, async () => renderStats(await this.container.stats.read()));
	}
}
