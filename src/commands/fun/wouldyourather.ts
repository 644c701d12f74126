import type { Command } from '@sapphire/framework';
import { aiSafetyIdentifier } from '../../lib/companion/companion.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { createRound, renderWyr, wyrQuestion } from '../../lib/wellbeing/games.ts';
import { answerSoon, FEATURE_OFF, featureOn } from '../../lib/wellbeing/answer.ts';

export const definition: CommandDefinition = {
	name: 'wouldyourather',
	description: 'A light-hearted "would you rather" vote for the channel',
	category: 'Fun',
	access: 'everyone',
	cooldownSeconds: 5,
	help: 'One vote per person; the counts update live.',
};

export class WouldYouRatherCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!(await featureOn(interaction.guildId, 'games'))) return send(interaction, { content: FEATURE_OFF.games });
		const { ai, aiIdentifierKey } = this.container;
		await answerSoon(
			interaction,
			async () => {
				const question = await wyrQuestion(ai, aiSafetyIdentifier(interaction.user.id, aiIdentifierKey));
				const roundId = await createRound(this.em(), {
					kind: 'wyr',
					guildId: interaction.guildId,
					startedBy: interaction.user.id,
					content: question.value,
					fromAi: question.fromAi,
				});
				return renderWyr(roundId, question.value, [0, 0], question.fromAi);
			},
			{ ephemeral: false },
		);
	}
}
