import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { NO_MENTIONS } from '../lib/discord/reply.ts';
import {
	castVote,
	loadRound,
	parseGameButton,
	renderTrivia,
	REVEAL_NOT_ALLOWED,
	revealRound,
	ROUND_GONE,
	tally,
	TRIVIA_REVEALED,
	triviaAlready,
	triviaFeedback,
	withRoundLock,
	type GameButton,
} from '../lib/wellbeing/games.ts';
import { guardComponent, whisper } from '../lib/wellbeing/answer.ts';

type TriviaButton = Extract<GameButton, { game: 'trivia' }>;

/**
 * `/trivia` buttons. An answer: the message is acknowledged (deferred update), the answer stored (one per person, by
 * the table's key), the public count updated under the round's lock, and the person told privately whether they were
 * right, with the explanation. Reveal: only the person who started the round; the first reveal wins.
 */
export class TriviaButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseGameButton(interaction.customId);
		return parsed?.game === 'trivia' ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: TriviaButton) {
		await guardComponent(interaction, async () => {
			const em = () => this.container.db.orm.em.fork();
			const round = await loadRound(em(), button.roundId, 'trivia');
			if (!round) return whisper(interaction, ROUND_GONE);
			if (round.revealed) return whisper(interaction, TRIVIA_REVEALED);
			if (button.action === 'reveal' && interaction.user.id !== round.startedBy) return whisper(interaction, REVEAL_NOT_ALLOWED);
			await interaction.deferUpdate();
			if (button.action === 'reveal') {
				await withRoundLock(round.id, async () => {
					if (!(await revealRound(em(), round.id))) return;
					const counts = await tally(em(), round.id, 4);
					await interaction.editReply({
						...renderTrivia(round.id, round.content, counts, true, round.fromAi),
						allowedMentions: NO_MENTIONS,
					});
				});
				return;
			}
			const vote = await withRoundLock(round.id, async () => {
				// Revealed meanwhile (by a click just before this one): the round is over.
				if ((await loadRound(em(), round.id, 'trivia'))?.revealed !== false) return null;
				const result = await castVote(em(), round.id, interaction.user.id, button.choice);
				if (result.counted) {
					const counts = await tally(em(), round.id, 4);
					await interaction.editReply({
						...renderTrivia(round.id, round.content, counts, false, round.fromAi),
						allowedMentions: NO_MENTIONS,
					});
				}
				return result;
			});
			if (!vote) return whisper(interaction, TRIVIA_REVEALED);
			await whisper(interaction, vote.counted ? triviaFeedback(round.content, vote.choice) : triviaAlready(round.content, vote.choice));
		});
	}
}
