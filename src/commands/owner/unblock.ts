import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { parseTargetId, type BlockKind } from '../../lib/operations/blocks.ts';
import { runUnblock } from '../../lib/operations/owner-actions.ts';
import { renderUnblocked } from '../../lib/operations/owner-views.ts';

const subcommand = (name: BlockKind, description: string, idDescription: string) => ({
	type: ApplicationCommandOptionType.Subcommand as const,
	name,
	description,
	options: [
		{
			type: ApplicationCommandOptionType.String as const,
			name: 'id',
			description: idDescription,
			required: true,
			min_length: 17,
			max_length: 24,
		},
	],
});

export const definition: CommandDefinition = {
	name: 'unblock',
	description: 'Lift the block on a person or a server (the record stays)',
	category: 'Owner',
	access: 'owner',
	options: [subcommand('user', 'Unblock a person', 'The person: their id or a mention'), subcommand('guild', 'Unblock a server', 'The server id')],
};

export class UnblockCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const kind = interaction.options.getSubcommand(true) as BlockKind;
		await respondSoon(interaction, async () => {
			const targetId = parseTargetId(interaction.options.getString('id', true));
			if (!targetId) return { content: 'That is not a Discord id (17 to 20 digits, or a mention).' };
			return renderUnblocked(kind, targetId, await runUnblock(this.em(), kind, targetId, interaction.user.id, this.container.blocks));
		});
	}
}
