import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { NO_MENTIONS } from '../lib/discord/reply.ts';
import { castVote, loadRound, parseGameButton, renderTrivia, revealRound, tally, withRoundLock } from '../lib/wellbeing/games.ts';
import { roundTakesAnswers, triviaAnswerReply, triviaClick, type TriviaButton } from '../lib/wellbeing/trivia-rules.ts';
import { guardComponent, whisper } from '../lib/wellbeing/answer.ts';

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
			const em = this.container.db.orm.em.fork();
			const click = triviaClick(await loadRound(em, button.roundId, 'trivia'), button, interaction.user.id);
			if (click.kind === 'refuse') return whisper(interaction, click.message);
			const { round } = click;
			await interaction.deferUpdate();
			const redraw = async (revealed: boolean) => {
				const counts = await tally(em, round.id, 4);
				await interaction.editReply({
					...renderTrivia(round.id, round.content, counts, revealed, round.fromAi),
					allowedMentions: NO_MENTIONS,
				});
			};
			if (click.kind === 'reveal') {
				await withRoundLock(round.id, async () => {
					if (await revealRound(em, round.id)) await redraw(true);
				});
				return;
			}
			const vote = await withRoundLock(round.id, async () => {
				if (!roundTakesAnswers(await loadRound(em, round.id, 'trivia'))) return null;
				const result = await castVote(em, round.id, interaction.user.id, click.choice);
				if (result.counted) await redraw(false);
				return result;
			});
			await whisper(interaction, triviaAnswerReply(round.content, vote));
		});
	}
}
