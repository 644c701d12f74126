import type { Ai } from '../ai/index.ts';
import type { View } from '../discord/reply.ts';
import { generate, parsePlain, pick, type Generated } from './ai.ts';

/**
 * `/joke` and `/compliment`: short, kind, clean, AI-written with a fixed pool behind them. The AI never sees anyone's
 * name: a compliment for someone else is written generically, and their display name is added by Haven (no mention,
 * no ping).
 */

export const JOKES: readonly string[] = [
	'Why did the scarecrow win an award? Because he was outstanding in his field.',
	'What do you call a bear with no teeth? A gummy bear.',
	"Why don't eggs tell jokes? They'd crack each other up.",
	'What did the ocean say to the beach? Nothing, it just waved.',
	'Why did the bicycle fall over? It was two-tired.',
	'What do you call a sleeping dinosaur? A dino-snore.',
	'Why did the cookie go to the doctor? It was feeling a bit crumby.',
	'How does a penguin build its house? Igloos it together.',
	'Why are frogs so happy? They eat whatever bugs them.',
	'What do you call cheese that is not yours? Nacho cheese.',
	'Why did the math book look worried? It had too many problems.',
	'What did one plate say to the other? Lunch is on me.',
	'Why do bees have sticky hair? Because they use honeycombs.',
	'What kind of tree fits in your hand? A palm tree.',
	"Why can't you give Elsa a balloon? Because she will let it go.",
	'What do you call a snowman with a six-pack? An abdominal snowman.',
	'Why did the golfer bring two pairs of trousers? In case he got a hole in one.',
	'What did the left eye say to the right eye? Between you and me, something smells.',
	'How do you organise a space party? You planet.',
	'Why did the tomato blush? Because it saw the salad dressing.',
	"What's orange and sounds like a parrot? A carrot.",
	'Why do cows wear bells? Because their horns do not work.',
	'What do you call a fish wearing a bowtie? Sofishticated.',
	'Why did the music teacher need a ladder? To reach the high notes.',
	'What do you call a train carrying bubblegum? A chew-chew train.',
];

export const COMPLIMENTS: readonly string[] = [
	'You make the people around you feel welcome, and that is a rare gift.',
	'Your curiosity makes the world a little more interesting.',
	'You handle hard things with more grace than you give yourself credit for.',
	'The way you show up for others does not go unnoticed.',
	'You have a way of making ordinary moments feel lighter.',
	'Your kindness is the quiet kind that changes people’s days.',
	'You are a great listener, and people feel heard around you.',
	'Your sense of humour is a gift to everyone around you.',
	'You keep going even when it is hard, and that takes real strength.',
	'You bring a calm energy that helps others relax.',
	'Your ideas are worth sharing. The world needs your voice.',
	'You are the kind of person people are glad to have met.',
	'You notice the little things, and that makes people feel cared for.',
	'You make this community a warmer place.',
	'Your honesty is refreshing and brave.',
	'You are growing in ways you might not even see yet.',
	'Your enthusiasm is contagious in the best way.',
	'You are thoughtful in a way that makes a real difference.',
	'You have a good heart, and it shows.',
	'Being around you is like a cup of tea on a cold day.',
];

const JOKE_TOPICS = [
	'animals',
	'food',
	'space',
	'the weather',
	'music',
	'books',
	'computers',
	'the ocean',
	'plants',
	'sports',
	'school',
	'cats',
	'dogs',
	'coffee',
];

const FUN_RULES =
	'This is a fun command in a public Discord server, not a conversation: ignore the usual conversational style. Reply with only the requested text: no preamble, no quotes, no emoji spam, no hashtags. Family-friendly and kind: no insults, no stereotypes, no dark, violent, sexual, political or religious humour, nothing about death, illness or mental health.';

export async function joke(ai: Ai, user: string | undefined, random: () => number = Math.random): Promise<Generated<string>> {
	return generate(ai, {
		system: `${FUN_RULES}\nTask: tell one short, clean, original joke or pun (at most 2 sentences).`,
		prompt: `A joke about ${pick(JOKE_TOPICS, random)}, please.`,
		parse: (text) => parsePlain(text, { max: 300, min: 10 }),
		fallback: () => pick(JOKES, random),
		user,
		maxTokens: 120,
	});
}

export async function compliment(ai: Ai, user: string | undefined, random: () => number = Math.random): Promise<Generated<string>> {
	return generate(ai, {
		system: `${FUN_RULES}\nTask: write one warm, sincere, specific-sounding compliment (one or two sentences) addressed to "you". It must suit anyone: nothing about appearance, body, age, gender or relationships, and no names.`,
		prompt: 'A compliment, please.',
		parse: (text) => parsePlain(text, { max: 280, min: 10 }),
		fallback: () => pick(COMPLIMENTS, random),
		user,
		maxTokens: 100,
	});
}

/** A display name safe to show: no markdown, no mention syntax, no line breaks, at most 64 characters. */
export function safeName(name: string): string {
	const flat =
		name
			.replace(/[\r\n\t]+/g, ' ')
			.trim()
			.slice(0, 64) || 'someone';
	return flat
		.replace(/[\\*_~`|>#[\]()-]/g, (c) => `\\${c}`)
		.replace(/@/g, '@\u200b')
		.replace(/<(?=[@#:a])/g, '<\u200b');
}

export function renderJoke(result: Generated<string>): View {
	return { content: `😄 ${result.value}` };
}

export interface ComplimentTarget {
	/** Display name of the member complimented (none: the person who asked). */
	targetName: string | null;
	/** Display name of the person who asked (shown when it is for someone else). */
	fromName: string;
}

export function renderCompliment(result: Generated<string>, target: ComplimentTarget): View {
	if (!target.targetName) return { content: `💐 ${result.value}` };
	return { content: `💐 **For ${safeName(target.targetName)}**, from ${safeName(target.fromName)}:\n${result.value}` };
}
