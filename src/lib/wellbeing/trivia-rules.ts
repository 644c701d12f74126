import {
	REVEAL_NOT_ALLOWED,
	ROUND_GONE,
	TRIVIA_REVEALED,
	triviaAlready,
	triviaFeedback,
	type GameButton,
	type Round,
	type TriviaQuestion,
	type VoteResult,
} from './games.ts';

/**
 * The rules of a `/trivia` round (pure). A click is judged first on the round as loaded: a round that is gone or
 * revealed takes nothing, and only the person who started it may reveal. An answer is judged again under the round's
 * lock, on the round loaded there, since a reveal may have come in between: the first reveal ends the round.
 */

export type TriviaButton = Extract<GameButton, { game: 'trivia' }>;

export type TriviaClick =
	| { kind: 'refuse'; message: string }
	| { kind: 'reveal'; round: Round<TriviaQuestion> }
	| { kind: 'answer'; round: Round<TriviaQuestion>; choice: number };

/** What a click on a trivia button may do, before anything changes. A refusal is told to the clicker alone. */
export function triviaClick(round: Round<TriviaQuestion> | null, button: TriviaButton, userId: string): TriviaClick {
	if (!round) return { kind: 'refuse', message: ROUND_GONE };
	if (round.revealed) return { kind: 'refuse', message: TRIVIA_REVEALED };
	if (button.action === 'reveal') return userId === round.startedBy ? { kind: 'reveal', round } : { kind: 'refuse', message: REVEAL_NOT_ALLOWED };
	return { kind: 'answer', round, choice: button.choice };
}

/** Under the round's lock, just before an answer is stored: only a round still there and not revealed takes it. */
export function roundTakesAnswers(round: Pick<Round<unknown>, 'revealed'> | null): boolean {
	return round?.revealed === false;
}

/** The private reply to an answer: right or wrong with the explanation, the first answer again, or "the round is over" (null). */
export function triviaAnswerReply(question: TriviaQuestion, vote: VoteResult | null): string {
	if (!vote) return TRIVIA_REVEALED;
	return vote.counted ? triviaFeedback(question, vote.choice) : triviaAlready(question, vote.choice);
}
