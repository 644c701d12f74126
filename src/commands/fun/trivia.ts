import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { aiSafetyIdentifier } from '../../lib/companion/companion.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { pick } from '../../lib/wellbeing/ai.ts';
import { CATEGORY_LABELS, createRound, renderTrivia, TRIVIA_CATEGORIES, triviaQuestion, type TriviaCategory } from '../../lib/wellbeing/games.ts';
import { answerSoon, FEATURE_OFF, featureOn } from '../../lib/wellbeing/answer.ts';

export const definition: CommandDefinition = {
	name: 'trivia',
	description: 'A multiple-choice trivia question for the channel',
	category: 'Fun',
	access: 'everyone',
	cooldownSeconds: 5,
	help: 'One answer per person, told privately; whoever started it can reveal the answer for everyone.',
	options: [
		{
			type: ApplicationCommandOptionType.String,
			name: 'category',
			description: 'What the question is about (default: any)',
			required: false,
			choices: TRIVIA_CATEGORIES.map((category) => ({ name: CATEGORY_LABELS[category], value: category })),
		},
	],
};

export class TriviaCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!(await featureOn(interaction.guildId, 'games'))) return send(interaction, { content: FEATURE_OFF.games });
		const chosen = interaction.options.getString('category');
		const category: TriviaCategory = (TRIVIA_CATEGORIES as readonly string[]).includes(chosen ?? '')
			? (chosen as TriviaCategory)
			: pick(TRIVIA_CATEGORIES);
		const { ai, aiIdentifierKey } = this.container;
		await answerSoon(
			interaction,
			async () => {
				const question = await triviaQuestion(ai, category, aiSafetyIdentifier(interaction.user.id, aiIdentifierKey));
				const roundId = await createRound(this.em(), {
					kind: 'trivia',
					guildId: interaction.guildId,
					startedBy: interaction.user.id,
					content: question.value,
					fromAi: question.fromAi,
				});
				return renderTrivia(roundId, question.value, [0, 0, 0, 0], false, question.fromAi);
			},
			{ ephemeral: false },
		);
	}
}
