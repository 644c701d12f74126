import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { NO_MENTIONS } from '../lib/discord/reply.ts';
import {
	castVote,
	loadRound,
	parseGameButton,
	renderWyr,
	ROUND_GONE,
	tally,
	withRoundLock,
	wyrFeedback,
	type GameButton,
} from '../lib/wellbeing/games.ts';
import { guardComponent, whisper } from '../lib/wellbeing/answer.ts';

type WyrButton = Extract<GameButton, { game: 'wyr' }>;

/** `/wouldyourather` buttons: one vote per person (the table's key), live counts on the message, a private receipt. */
export class WyrButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseGameButton(interaction.customId);
		return parsed?.game === 'wyr' ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: WyrButton) {
		await guardComponent(interaction, async () => {
			const em = () => this.container.db.orm.em.fork();
			const round = await loadRound(em(), button.roundId, 'wyr');
			if (!round) return whisper(interaction, ROUND_GONE);
			await interaction.deferUpdate();
			const vote = await withRoundLock(round.id, async () => {
				const result = await castVote(em(), round.id, interaction.user.id, button.choice);
				if (result.counted) {
					const counts = await tally(em(), round.id, 2);
					await interaction.editReply({ ...renderWyr(round.id, round.content, counts, round.fromAi), allowedMentions: NO_MENTIONS });
				}
				return result;
			});
			await whisper(interaction, wyrFeedback(round.content, vote.choice, vote.counted));
		});
	}
}
