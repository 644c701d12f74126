import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, type APIApplicationCommandBasicOption } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { activeBlocks, MAX_REASON_LENGTH, parseTargetId, viewBlock, type BlockKind } from '../../lib/operations/blocks.ts';
import { runBlock } from '../../lib/operations/owner-actions.ts';
import { renderBlocked, renderBlockList } from '../../lib/operations/owner-views.ts';

const target = (kind: BlockKind): APIApplicationCommandBasicOption => ({
	type: ApplicationCommandOptionType.String,
	name: 'id',
	description: kind === 'user' ? 'The person: their id or a mention' : 'The server id',
	required: true,
	min_length: 17,
	max_length: 24,
});
const reason: APIApplicationCommandBasicOption = {
	type: ApplicationCommandOptionType.String,
	name: 'reason',
	description: 'Why (kept with the block)',
	required: true,
	max_length: MAX_REASON_LENGTH,
};

export const definition: CommandDefinition = {
	name: 'block',
	description: 'Block a person or a server from Haven (crisis help stays available), or list the blocks',
	category: 'Owner',
	access: 'owner',
	options: [
		{ type: ApplicationCommandOptionType.Subcommand, name: 'user', description: 'Block a person everywhere', options: [target('user'), reason] },
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'guild',
			description: 'Block a whole server',
			options: [
				target('guild'),
				reason,
				{ type: ApplicationCommandOptionType.Boolean, name: 'leave', description: 'Haven leaves the server too', required: false },
			],
		},
		{ type: ApplicationCommandOptionType.Subcommand, name: 'list', description: 'The blocks in force' },
	],
};

export class BlockCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		await respondSoon(interaction, async () => {
			if (sub === 'list') return renderBlockList((await activeBlocks(this.em())).map(viewBlock));
			const kind: BlockKind = sub === 'guild' ? 'guild' : 'user';
			const targetId = parseTargetId(interaction.options.getString('id', true));
			if (!targetId) return { content: 'That is not a Discord id (17 to 20 digits, or a mention).' };
			const result = await runBlock(
				this.em(),
				{
					kind,
					targetId,
					reason: interaction.options.getString('reason', true),
					by: interaction.user.id,
					ownerIds: this.container.config.discord.ownerIds,
					leave: kind === 'guild' && interaction.options.getBoolean('leave') ? { rest: this.container.client.rest } : undefined,
				},
				this.container.blocks,
			);
			return result.ok ? renderBlocked(result.block, result.created, result.left) : { content: `${result.problem}.` };
		});
	}
}
