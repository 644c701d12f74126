import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import {
	countLetters,
	LETTER_MAX_LENGTH,
	letterAt,
	letterModal,
	renderClearConfirm,
	renderLetter,
	type LetterMode,
} from '../../lib/wellbeing/ghost-letters.ts';
import { handleLetter } from '../../lib/wellbeing/letter-flow.ts';
import { FEATURE_OFF, featureOn } from '../../lib/wellbeing/answer.ts';

const letterOption = {
	type: ApplicationCommandOptionType.String as const,
	name: 'letter',
	description: 'What you need to let out (leave empty for a bigger writing box)',
	required: false,
	max_length: LETTER_MAX_LENGTH,
};

export const definition: CommandDefinition = {
	name: 'ghostletter',
	description: 'Write out what you need to let go of: keep it privately, or let it go',
	category: 'Wellbeing',
	access: 'everyone',
	cooldownSeconds: 8,
	help: '`keep` stores it encrypted, readable only by you; `letgo` stores nothing at all.',
	options: [
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'keep',
			description: 'Write a letter and keep it, encrypted; only you can ever read it',
			options: [letterOption],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'letgo',
			description: 'Write a letter and let it go: nothing is stored',
			options: [letterOption],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'read',
			description: 'Read your kept letters (only you see them)',
			options: [
				{
					type: ApplicationCommandOptionType.Integer,
					name: 'number',
					description: 'Which letter: 1 is the newest (default 1)',
					required: false,
					min_value: 1,
				},
			],
		},
		{ type: ApplicationCommandOptionType.Subcommand, name: 'clear', description: 'Delete all your kept letters (asks to confirm)' },
	],
};

export class GhostletterCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		const userId = interaction.user.id;
		if (sub === 'read') {
			const index = (interaction.options.getInteger('number') ?? 1) - 1;
			return respondSoon(interaction, async () => renderLetter(userId, await letterAt(this.em(), userId, index)));
		}
		if (sub === 'clear') {
			return respondSoon(interaction, async () => renderClearConfirm(userId, await countLetters(this.em(), userId)));
		}
		const mode: LetterMode = sub === 'keep' ? 'keep' : 'letgo';
		// Writing follows the server's toggle; reading and clearing one's own letters always work.
		if (!(await featureOn(interaction.guildId, 'ghostLetters'))) return send(interaction, { content: FEATURE_OFF.ghostLetters });
		const text = interaction.options.getString('letter');
		if (text === null || !text.trim()) return interaction.showModal(letterModal(mode));
		await handleLetter(interaction, mode, text);
	}
}
