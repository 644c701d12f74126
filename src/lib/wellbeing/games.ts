import type { EntityManager } from '@mikro-orm/postgresql';
import { ButtonStyle, ComponentType } from 'discord.js';
import type { Ai } from '../ai/index.ts';
import { button } from '../discord/buttons.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { plural } from '../discord/text.ts';
import { extractJson, generate, pick, textField, type Generated } from './ai.ts';

/**
 * `/trivia` and `/wouldyourather`: a public message with buttons. The round's content lives in `game_rounds`, every
 * answer or vote in `game_votes`, whose primary key (round, user) is the one-vote rule: an insert that conflicts is
 * a second vote and changes nothing, whatever the timing. Counts shown on the message are read from the table after
 * each vote, under a per-round lock in this process, so the message never goes backwards.
 *
 * The AI writes rounds as JSON; anything that does not parse and validate (shape, lengths, four distinct choices, an
 * answer among them, kind content) falls back to the fixed pools below.
 */

// ---------------------------------------------------------------------------------------------------------------------
// Content

export const TRIVIA_CATEGORIES = ['general', 'science', 'nature', 'geography', 'space', 'food'] as const;
export type TriviaCategory = (typeof TRIVIA_CATEGORIES)[number];

export const CATEGORY_LABELS: Record<TriviaCategory, string> = {
	general: 'General knowledge',
	science: 'Science',
	nature: 'Nature and animals',
	geography: 'Geography',
	space: 'Space',
	food: 'Food',
};

export interface TriviaQuestion {
	category: TriviaCategory;
	question: string;
	/** Exactly four, distinct. */
	choices: string[];
	/** Index of the correct choice. */
	answer: number;
	explanation: string;
}

const q = (category: TriviaCategory, question: string, choices: [string, string, string, string], explanation: string): TriviaQuestion => ({
	category,
	question,
	choices,
	answer: 0,
	explanation,
});

/** The pool: the correct answer is listed first here and shuffled when a round starts. */
export const TRIVIA_POOL: readonly TriviaQuestion[] = [
	q(
		'science',
		'Which gas do plants take in from the air to make their food?',
		['Carbon dioxide', 'Oxygen', 'Nitrogen', 'Helium'],
		'Plants use sunlight to turn carbon dioxide and water into sugar, releasing oxygen as they do.',
	),
	q('science', 'What is the chemical symbol for gold?', ['Au', 'Ag', 'Gd', 'Go'], 'Au comes from "aurum", the Latin word for gold. Ag is silver.'),
	q(
		'science',
		'What is the hardest natural substance?',
		['Diamond', 'Quartz', 'Iron', 'Granite'],
		'Diamond is carbon arranged in a very strong crystal lattice, which makes it the hardest natural material.',
	),
	q(
		'science',
		'At sea level, at what temperature does water boil?',
		['100 °C', '90 °C', '80 °C', '120 °C'],
		'At normal sea-level pressure water boils at 100 °C (212 °F); higher up, it boils at a lower temperature.',
	),
	q(
		'nature',
		'How many hearts does an octopus have?',
		['Three', 'One', 'Two', 'Four'],
		'Two hearts pump blood through the gills and a third pumps it around the rest of the body.',
	),
	q(
		'nature',
		'Which is the largest animal known to have ever lived?',
		['Blue whale', 'African elephant', 'Tyrannosaurus', 'Giant squid'],
		'Blue whales can be around 30 metres long, bigger than any known dinosaur.',
	),
	q(
		'nature',
		'What do bees mostly collect from flowers to make honey?',
		['Nectar', 'Pollen', 'Sap', 'Dew'],
		'Honey is made from nectar; bees collect pollen too, but mainly as food for their young.',
	),
	q(
		'nature',
		'Which animal is famous for sleeping hanging upside down in trees for most of the day?',
		['Sloth', 'Koala', 'Panda', 'Otter'],
		'Sloths spend most of their lives hanging in the treetops and move very slowly to save energy.',
	),
	q(
		'geography',
		'Which is the largest ocean on Earth?',
		['Pacific', 'Atlantic', 'Indian', 'Arctic'],
		'The Pacific covers about a third of the planet’s surface, more than all the land combined.',
	),
	q(
		'geography',
		'What is the capital city of Canada?',
		['Ottawa', 'Toronto', 'Vancouver', 'Montreal'],
		'Ottawa, in Ontario, has been the capital since the 1860s, although Toronto is the largest city.',
	),
	q(
		'geography',
		'Which continent has the most countries?',
		['Africa', 'Asia', 'Europe', 'South America'],
		'Africa has 54 countries recognised by the United Nations, more than any other continent.',
	),
	q(
		'geography',
		'Through which continent does the Amazon River flow?',
		['South America', 'Africa', 'Asia', 'North America'],
		'The Amazon flows across South America, mostly through Brazil, to the Atlantic Ocean.',
	),
	q(
		'space',
		'Which planet is known as the Red Planet?',
		['Mars', 'Venus', 'Jupiter', 'Mercury'],
		'Iron-rich dust on its surface gives Mars its reddish colour.',
	),
	q(
		'space',
		'What is the largest planet in our solar system?',
		['Jupiter', 'Saturn', 'Neptune', 'Earth'],
		'Jupiter is so big that all the other planets could fit inside it.',
	),
	q(
		'space',
		'Which planet is famous for its bright, wide rings?',
		['Saturn', 'Mars', 'Mercury', 'Venus'],
		'Saturn’s rings are made of countless pieces of ice and rock; other giant planets have fainter rings too.',
	),
	q(
		'space',
		'What is the closest star to Earth?',
		['The Sun', 'Proxima Centauri', 'Sirius', 'Polaris'],
		'The Sun is a star. The next closest, Proxima Centauri, is over four light-years away.',
	),
	q(
		'food',
		'Which fruit carries its seeds on the outside?',
		['Strawberry', 'Banana', 'Kiwi', 'Mango'],
		'The little specks on a strawberry’s skin are its seeds, around two hundred of them.',
	),
	q(
		'food',
		'What is the main ingredient of guacamole?',
		['Avocado', 'Cucumber', 'Peas', 'Lime'],
		'Guacamole is mashed avocado, usually with lime, onion, tomato and coriander.',
	),
	q(
		'food',
		'Which spice gives many curries their golden-yellow colour?',
		['Turmeric', 'Cumin', 'Paprika', 'Cinnamon'],
		'Turmeric, a root related to ginger, has a strong yellow colour.',
	),
	q('food', 'What are dried grapes called?', ['Raisins', 'Prunes', 'Dates', 'Figs'], 'Raisins are dried grapes; prunes are dried plums.'),
	q(
		'general',
		'How many sides does a hexagon have?',
		['Six', 'Five', 'Seven', 'Eight'],
		'"Hex" comes from the Greek for six. Honeycomb cells are hexagons.',
	),
	q(
		'general',
		'How many colours are traditionally named in a rainbow?',
		['Seven', 'Five', 'Six', 'Eight'],
		'Red, orange, yellow, green, blue, indigo and violet: seven, a list popularised by Isaac Newton.',
	),
	q(
		'general',
		'Which instrument usually has 88 keys?',
		['Piano', 'Guitar', 'Violin', 'Flute'],
		'A standard modern piano has 88 keys: 52 white and 36 black.',
	),
	q(
		'general',
		'In which language is "gracias" a way to say thank you?',
		['Spanish', 'Italian', 'French', 'Portuguese'],
		'"Gracias" is Spanish. In Italian it is "grazie", in French "merci", in Portuguese "obrigado" or "obrigada".',
	),
];

export interface WyrQuestion {
	/** Each completes "Would you rather ...". */
	a: string;
	b: string;
}

export const WYR_POOL: readonly WyrQuestion[] = [
	{ a: 'be able to talk to animals', b: 'be able to speak every human language' },
	{ a: 'have a pet dragon the size of a cat', b: 'have a pet cat the size of a dragon' },
	{ a: 'always have perfect weather wherever you go', b: 'always find a free parking spot' },
	{ a: 'live in a cosy treehouse', b: 'live in a houseboat' },
	{ a: 'be able to fly', b: 'be able to breathe underwater' },
	{ a: 'have a personal chef', b: 'have a personal gardener' },
	{ a: 'only be able to whisper', b: 'only be able to sing' },
	{ a: 'explore the deep ocean', b: 'explore outer space' },
	{ a: 'have a rewind button for your day', b: 'have a pause button for your day' },
	{ a: 'eat only sweet food for a week', b: 'eat only savoury food for a week' },
	{ a: 'be a famous musician', b: 'be a famous chef' },
	{ a: 'have a library with every book ever written', b: 'have a cinema with every film ever made' },
	{ a: 'spend a day as your favourite animal', b: 'spend a day as your favourite fictional character' },
	{ a: 'always know the perfect thing to say', b: 'always know the perfect song to play' },
	{ a: 'have summer all year', b: 'have winter all year' },
	{ a: 'be able to teleport anywhere once a day', b: 'be able to read any book in a minute' },
	{ a: 'have a robot that cleans your home', b: 'have a robot that cooks for you' },
	{ a: 'visit the past for a day', b: 'visit the future for a day' },
	{ a: 'live somewhere with a view of the mountains', b: 'live somewhere with a view of the sea' },
	{ a: 'be amazing at drawing', b: 'be amazing at dancing' },
	{ a: 'have a garden full of flowers', b: 'have a garden full of vegetables' },
	{ a: 'travel by hot-air balloon', b: 'travel by old steam train' },
	{ a: 'always have a snack in your pocket', b: 'always have a good song stuck in your head' },
	{ a: 'be able to talk to plants', b: 'be able to make plants grow instantly' },
	{ a: 'go camping under the stars', b: 'stay in a fancy hotel' },
];

/** The correct answer moved to a random place (the pool lists it first). */
export function shuffleQuestion(question: TriviaQuestion, random: () => number = Math.random): TriviaQuestion {
	const order = question.choices.map((_, i) => i);
	for (let i = order.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[order[i], order[j]] = [order[j]!, order[i]!];
	}
	return { ...question, choices: order.map((i) => question.choices[i]!), answer: order.indexOf(question.answer) };
}

export function triviaFallback(category: TriviaCategory | null, random: () => number = Math.random): TriviaQuestion {
	const pool = category ? TRIVIA_POOL.filter((item) => item.category === category) : TRIVIA_POOL;
	return shuffleQuestion(pick(pool.length ? pool : TRIVIA_POOL, random), random);
}

/** Validates the model's trivia JSON; undefined on any problem. */
export function parseTrivia(text: string, category: TriviaCategory): TriviaQuestion | undefined {
	const data = extractJson(text);
	if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
	const record = data as Record<string, unknown>;
	const question = textField(record.question, { min: 10, max: 250 });
	const explanation = textField(record.explanation, { min: 5, max: 350 });
	if (!question || !explanation || !Array.isArray(record.choices) || record.choices.length !== 4) return undefined;
	const choices = record.choices.map((choice) => textField(typeof choice === 'number' ? String(choice) : choice, { max: 80 }));
	if (choices.some((choice) => choice === undefined)) return undefined;
	const texts = choices as string[];
	if (new Set(texts.map((choice) => choice.toLowerCase())).size !== 4) return undefined;
	let answer: number | undefined;
	const raw = record.answer;
	if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 3) answer = raw;
	else if (typeof raw === 'string') {
		const letter = /^\s*([A-Da-d])\s*$/.exec(raw)?.[1];
		const byText = texts.findIndex((choice) => choice.toLowerCase() === raw.trim().toLowerCase());
		answer = letter ? 'abcd'.indexOf(letter.toLowerCase()) : byText >= 0 ? byText : /^\s*[0-3]\s*$/.test(raw) ? Number(raw) : undefined;
	}
	if (answer === undefined) return undefined;
	return { category, question, choices: texts, answer, explanation };
}

/** "Would you rather ..." parts: no leading "would you rather", "or", trailing "?" or full stop. */
function wyrPart(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const cleaned = value
		.trim()
		.replace(/^would you rather\s+/i, '')
		.replace(/^(or|a:|b:|a\)|b\))\s+/i, '')
		.replace(/[?.!\s]+$/, '');
	return textField(cleaned, { min: 3, max: 100 });
}

export function parseWyr(text: string): WyrQuestion | undefined {
	const data = extractJson(text);
	if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
	const record = data as Record<string, unknown>;
	const a = wyrPart(record.a ?? record.optionA ?? record.option_a);
	const b = wyrPart(record.b ?? record.optionB ?? record.option_b);
	if (!a || !b || a.toLowerCase() === b.toLowerCase()) return undefined;
	return { a, b };
}

const GAME_RULES =
	'This is a game in a public Discord server, not a conversation: ignore the usual conversational style. Reply with only one JSON object, no code fences, no text around it. Family-friendly, kind and inclusive: nothing violent, scary, sexual, political, religious, gross, or about death, illness, mental health, alcohol or drugs.';

export async function triviaQuestion(
	ai: Ai,
	category: TriviaCategory,
	user: string | undefined,
	random: () => number = Math.random,
): Promise<Generated<TriviaQuestion>> {
	const generated = await generate(ai, {
		system: `${GAME_RULES}\nTask: one multiple-choice trivia question about ${CATEGORY_LABELS[category].toLowerCase()}. It must have exactly one clearly correct, well-established answer (no trick questions, no opinions, nothing that changes over time). Format: {"question": "...", "choices": ["...", "...", "...", "..."], "answer": <index 0-3 of the correct choice>, "explanation": "one or two sentences on why"}. Choices at most 80 characters each.`,
		prompt: `A ${CATEGORY_LABELS[category].toLowerCase()} trivia question, please.`,
		parse: (text) => parseTrivia(text, category),
		fallback: () => triviaFallback(category, random),
		user,
		maxTokens: 350,
	});
	// The model tends to put the answer first: shuffle its rounds too.
	return generated.fromAi ? { ...generated, value: shuffleQuestion(generated.value, random) } : generated;
}

export async function wyrQuestion(ai: Ai, user: string | undefined, random: () => number = Math.random): Promise<Generated<WyrQuestion>> {
	return generate(ai, {
		system: `${GAME_RULES}\nTask: one light-hearted "would you rather" question with two fun, harmless, roughly equally tempting options. Format: {"a": "...", "b": "..."}, where each option completes "Would you rather ..." (for example "be able to fly"), at most 100 characters.`,
		prompt: 'A would-you-rather question, please.',
		parse: parseWyr,
		fallback: () => pick(WYR_POOL, random),
		user,
		maxTokens: 150,
	});
}

// ---------------------------------------------------------------------------------------------------------------------
// Rounds and votes

export type GameKind = 'trivia' | 'wyr';

export interface Round<T> {
	id: number;
	kind: GameKind;
	startedBy: string;
	content: T;
	/** Written by the AI (shown in the footer). */
	fromAi: boolean;
	revealed: boolean;
}

export async function createRound(
	em: EntityManager,
	input: { kind: GameKind; guildId: string | null; startedBy: string; content: TriviaQuestion | WyrQuestion; fromAi: boolean },
	now = new Date(),
): Promise<number> {
	const rows = await em
		.getConnection()
		.execute<{ id: number }[]>(
			'insert into game_rounds (kind, guild_id, started_by, content, revealed_at, created_at) values (?, ?, ?, ?::jsonb, null, ?) returning id',
			[input.kind, input.guildId, input.startedBy, JSON.stringify({ ...input.content, fromAi: input.fromAi }), now],
		);
	return Number(rows[0]!.id);
}

function isTrivia(value: unknown): value is TriviaQuestion {
	const v = value as TriviaQuestion;
	return (
		!!v &&
		typeof v.question === 'string' &&
		Array.isArray(v.choices) &&
		v.choices.length === 4 &&
		v.choices.every((c) => typeof c === 'string') &&
		Number.isInteger(v.answer) &&
		v.answer >= 0 &&
		v.answer < 4 &&
		typeof v.explanation === 'string'
	);
}

function isWyr(value: unknown): value is WyrQuestion {
	const v = value as WyrQuestion;
	return !!v && typeof v.a === 'string' && typeof v.b === 'string';
}

export async function loadRound(em: EntityManager, id: number, kind: 'trivia'): Promise<Round<TriviaQuestion> | null>;
export async function loadRound(em: EntityManager, id: number, kind: 'wyr'): Promise<Round<WyrQuestion> | null>;
export async function loadRound(em: EntityManager, id: number, kind: GameKind): Promise<Round<TriviaQuestion | WyrQuestion> | null> {
	const rows = await em
		.getConnection()
		.execute<{ id: number; kind: string; started_by: string; content: unknown; revealed_at: Date | null }[]>(
			'select id, kind, started_by, content, revealed_at from game_rounds where id = ? and kind = ?',
			[id, kind],
		);
	const row = rows[0];
	if (!row) return null;
	const content = typeof row.content === 'string' ? (JSON.parse(row.content) as unknown) : row.content;
	if (kind === 'trivia' ? !isTrivia(content) : !isWyr(content)) return null;
	const { fromAi, ...question } = content as (TriviaQuestion | WyrQuestion) & { fromAi?: unknown };
	return { id: Number(row.id), kind, startedBy: row.started_by, content: question, fromAi: fromAi === true, revealed: row.revealed_at !== null };
}

export type VoteResult = { counted: true; choice: number } | { counted: false; choice: number };

/** One vote per person per round: a second one changes nothing and reports the first. */
export async function castVote(em: EntityManager, roundId: number, userId: string, choice: number, now = new Date()): Promise<VoteResult> {
	const connection = em.getConnection();
	const inserted = await connection.execute<{ choice: number }[]>(
		'insert into game_votes (round_id, user_id, choice, created_at) values (?, ?, ?, ?) on conflict (round_id, user_id) do nothing returning choice',
		[roundId, userId, choice, now],
	);
	if (inserted.length) return { counted: true, choice };
	const existing = await connection.execute<{ choice: number }[]>('select choice from game_votes where round_id = ? and user_id = ?', [
		roundId,
		userId,
	]);
	return { counted: false, choice: Number(existing[0]?.choice ?? choice) };
}

export async function tally(em: EntityManager, roundId: number, options: number): Promise<number[]> {
	const rows = await em
		.getConnection()
		.execute<{ choice: number; votes: string | number }[]>(
			'select choice, count(*) as votes from game_votes where round_id = ? group by choice',
			[roundId],
		);
	const counts = Array.from({ length: options }, () => 0);
	for (const row of rows) if (row.choice >= 0 && row.choice < options) counts[row.choice] = Number(row.votes);
	return counts;
}

/** Marks a round revealed; false when it already was (the first reveal wins). */
export async function revealRound(em: EntityManager, roundId: number, now = new Date()): Promise<boolean> {
	const rows = await em
		.getConnection()
		.execute<{ id: number }[]>('update game_rounds set revealed_at = ? where id = ? and revealed_at is null returning id', [now, roundId]);
	return rows.length === 1;
}

/** Rounds (and, by cascade, their votes) older than `before`: for a retention job. Returns how many went. */
export async function purgeRounds(em: EntityManager, before: Date): Promise<number> {
	const rows = await em.getConnection().execute<{ id: number }[]>('delete from game_rounds where created_at < ? returning id', [before]);
	return rows.length;
}

// Holds in a fleet (src/lib/fleet): a round's votes are button presses on its message, delivered on the shard of the
// message's server (shard 0 for a DM), which exactly one instance connects; the one-vote rule is the table's anyway.
const locks = new Map<number, Promise<unknown>>();

/** Runs `work` after the round's previous work in this process (votes on one message are applied one at a time). */
export function withRoundLock<T>(roundId: number, work: () => Promise<T>): Promise<T> {
	const previous = locks.get(roundId) ?? Promise.resolve();
	const next = previous.catch(() => undefined).then(work);
	const settled = next.catch(() => undefined);
	locks.set(roundId, settled);
	void settled.then(() => {
		if (locks.get(roundId) === settled) locks.delete(roundId);
	});
	return next;
}

// ---------------------------------------------------------------------------------------------------------------------
// Custom ids

export type GameButton =
	| { game: 'trivia'; roundId: number; action: 'answer'; choice: number }
	| { game: 'trivia'; roundId: number; action: 'reveal' }
	| { game: 'wyr'; roundId: number; choice: number };

export function triviaButtonId(roundId: number, choice: number | 'reveal'): string {
	return `trivia:${roundId}:${choice}`;
}

export function wyrButtonId(roundId: number, choice: number): string {
	return `wyr:${roundId}:${choice}`;
}

export function parseGameButton(customId: string): GameButton | null {
	const trivia = /^trivia:(\d{1,9}):([0-3]|reveal)$/.exec(customId);
	if (trivia) {
		const roundId = Number(trivia[1]);
		return trivia[2] === 'reveal'
			? { game: 'trivia', roundId, action: 'reveal' }
			: { game: 'trivia', roundId, action: 'answer', choice: Number(trivia[2]) };
	}
	const wyr = /^wyr:(\d{1,9}):([01])$/.exec(customId);
	return wyr ? { game: 'wyr', roundId: Number(wyr[1]), choice: Number(wyr[2]) } : null;
}

// ---------------------------------------------------------------------------------------------------------------------
// Views

export const LETTERS = ['A', 'B', 'C', 'D'] as const;

export function renderTrivia(roundId: number, question: TriviaQuestion, counts: number[], revealed: boolean, fromAi: boolean): View {
	const total = counts.reduce((sum, n) => sum + n, 0);
	const lines = [`**${question.question}**`, ''];
	question.choices.forEach((choice, i) => {
		const mark = revealed ? (i === question.answer ? '✅ ' : '▫️ ') : '';
		const count = revealed ? ` · ${plural(counts[i] ?? 0, 'answer')}` : '';
		lines.push(`${mark}**${LETTERS[i]}.** ${choice}${count}`);
	});
	const correct = counts[question.answer] ?? 0;
	const footer = revealed
		? `${plural(total, 'person', 'people')} answered, ${correct} got it right.${fromAi ? ' Question written with AI.' : ''}`
		: `${plural(total, 'person', 'people')} answered · one answer each · the person who started it can reveal the answer.${fromAi ? ' Question written with AI.' : ''}`;
	return {
		embeds: [
			{
				title: `🧠 Trivia · ${CATEGORY_LABELS[question.category] ?? 'General knowledge'}`,
				color: COLOR,
				description: lines.join('\n'),
				...(revealed
					? {
							fields: [
								{
									name: 'Answer',
									value: `**${LETTERS[question.answer]}. ${question.choices[question.answer]}**\n${question.explanation}`,
								},
							],
						}
					: {}),
				footer: { text: footer },
			},
		],
		components: [
			{
				type: ComponentType.ActionRow,
				components: question.choices.map((_, i) => button(LETTERS[i]!, triviaButtonId(roundId, i), ButtonStyle.Primary, revealed)),
			},
			{
				type: ComponentType.ActionRow,
				components: [
					button(revealed ? 'Answer revealed' : 'Reveal answer', triviaButtonId(roundId, 'reveal'), ButtonStyle.Secondary, revealed),
				],
			},
		],
	};
}

export function triviaFeedback(question: TriviaQuestion, choice: number): string {
	const answer = `**${LETTERS[question.answer]}. ${question.choices[question.answer]}**`;
	if (choice === question.answer) return `✅ Correct! ${answer}\n${question.explanation}\n(Keep it to yourself so others can still guess.)`;
	return `Not quite: you chose ${LETTERS[choice]}. The answer is ${answer}.\n${question.explanation}\n(Keep it to yourself so others can still guess.)`;
}

export function triviaAlready(question: TriviaQuestion, choice: number): string {
	return `You already answered this one (${LETTERS[choice] ?? '?'}): one answer per person. The answer is **${LETTERS[question.answer]}. ${question.choices[question.answer]}**.`;
}

export const ROUND_GONE = 'This round is no longer available. Start a new one with the command.';
export const TRIVIA_REVEALED = 'The answer was already revealed: this round is over. `/trivia` starts a new one.';
export const REVEAL_NOT_ALLOWED = 'Only the person who started this round can reveal the answer.';

const BAR = 10;

function bar(count: number, total: number): string {
	const filled = total ? Math.round((count / total) * BAR) : 0;
	return `${'▓'.repeat(filled)}${'░'.repeat(BAR - filled)} ${total ? Math.round((count / total) * 100) : 0}% (${count})`;
}

export function renderWyr(roundId: number, question: WyrQuestion, counts: number[], fromAi: boolean): View {
	const [a = 0, b = 0] = counts;
	const total = a + b;
	return {
		embeds: [
			{
				title: '🤔 Would you rather…',
				color: COLOR,
				description: [`🅰️ ${question.a}`, bar(a, total), '', `🅱️ ${question.b}`, bar(b, total)].join('\n'),
				footer: { text: `${plural(total, 'vote')} · one vote each${fromAi ? ' · question written with AI' : ''}` },
			},
		],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button(`A · ${a}`, wyrButtonId(roundId, 0), ButtonStyle.Primary),
					button(`B · ${b}`, wyrButtonId(roundId, 1), ButtonStyle.Success),
				],
			},
		],
	};
}

export function wyrFeedback(question: WyrQuestion, choice: number, counted: boolean): string {
	const option = choice === 0 ? `🅰️ ${question.a}` : `🅱️ ${question.b}`;
	return counted ? `Your vote: ${option}. One vote per person.` : `You already voted (${option}): one vote per person.`;
}
