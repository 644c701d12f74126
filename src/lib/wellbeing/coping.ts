import type { Ai } from '../ai/index.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { generate, pick, sample, type Generated } from './ai.ts';

/**
 * `/coping`: small exercises. Without a feeling, one of Haven's own (a fixed, reviewed pool). With "how are you
 * feeling", the AI adapts one to it under task instructions; any AI failure gives a pool exercise instead.
 */

export const COPING_KINDS = ['breathing', 'grounding', 'affirmation', 'distraction', 'challenge', 'journal'] as const;
export type CopingKind = (typeof COPING_KINDS)[number];

export const FEELING_MAX_LENGTH = 300;

export interface CopingInfo {
	title: string;
	emoji: string;
	/** Subcommand description (at most 100 characters). */
	description: string;
	/** What the AI is asked to write. */
	task: string;
}

export const COPING: Record<CopingKind, CopingInfo> = {
	breathing: {
		title: 'Breathing',
		emoji: '🫁',
		description: 'A short breathing exercise to slow things down',
		task: 'Suggest one simple, well-known breathing exercise that suits how they feel. Give 3 to 6 short numbered steps, then one sentence of encouragement. Mention that they can stop if they feel light-headed.',
	},
	grounding: {
		title: 'Grounding',
		emoji: '🌿',
		description: 'A grounding exercise to come back to the present',
		task: 'Suggest one grounding exercise (using the senses, the body or the room around them) that suits how they feel. Give 3 to 6 short numbered steps, then one sentence of encouragement.',
	},
	affirmation: {
		title: 'Affirmation',
		emoji: '💛',
		description: 'A few kind words to tell yourself',
		task: 'Write two or three short, believable affirmations in the first person that fit how they feel. Realistic and gentle, never forced positivity or denial of what they feel.',
	},
	distraction: {
		title: 'Distraction',
		emoji: '🎈',
		description: 'Gentle ideas to take your mind off things for a while',
		task: 'Suggest three gentle, healthy, low-effort distractions that fit how they feel, as a short bulleted list. Nothing costly, risky or involving alcohol.',
	},
	challenge: {
		title: 'Small challenge',
		emoji: '🌱',
		description: 'One small, kind thing to do for yourself today',
		task: 'Suggest one small, kind, achievable self-care challenge for the next hour that fits how they feel. One or two sentences, specific and doable.',
	},
	journal: {
		title: 'Journal prompt',
		emoji: '📓',
		description: 'A prompt to write about, for yourself',
		task: 'Offer one or two gentle journaling prompts that fit how they feel, as questions they can write about privately.',
	},
};

const COMMON_RULES = [
	'This is the /coping command, not a conversation: ignore the usual conversational style and give the exercise directly.',
	'Plain text; a short numbered or bulleted list is fine; no headings, no title, no greeting, no question back to them.',
	'At most 120 words. Never diagnose, never give medical or medication advice, never write phone numbers or links.',
	'If what they wrote sounds like danger to themselves, keep the exercise very gentle and add one sentence encouraging them to reach out to someone now.',
].join('\n');

export function copingSystemPrompt(kind: CopingKind, shownPublicly: boolean): string {
	const lines = [COMMON_RULES, `Task: ${COPING[kind].task}`];
	if (shownPublicly) lines.push('The answer will be shown in a public channel: do not repeat or refer to the details of what they wrote.');
	return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------------
// Haven's own exercises

export const BREATHING: readonly string[] = [
	'**Box breathing**\n1. Breathe in through your nose for a count of 4.\n2. Hold gently for 4.\n3. Breathe out slowly for 4.\n4. Hold for 4.\n5. Repeat four or five times.\nIf you feel light-headed, stop and breathe normally.',
	'**Longer out-breath**\n1. Sit or stand comfortably and drop your shoulders.\n2. Breathe in through your nose for a count of 4.\n3. Breathe out through your mouth for a count of 6, like blowing through a straw.\n4. Repeat for a minute or two.\nA longer out-breath tells your body it can slow down.',
	'**Double inhale, long sigh**\n1. Take a normal breath in through your nose.\n2. At the top, take a second, shorter sip of air.\n3. Let it all out in a long, slow sigh through your mouth.\n4. Repeat two or three times, then breathe normally.',
	'**Five-finger breathing**\n1. Hold one hand up and trace the outside of your fingers with the other index finger.\n2. Breathe in as you trace up a finger, out as you trace down.\n3. Go slowly across all five fingers and back.\nFocusing on your hand gives your mind one simple thing to follow.',
	'**Counting breaths**\n1. Breathe naturally; do not try to change it.\n2. Count each out-breath: one, two, three... up to ten.\n3. If you lose count, start again at one without judging yourself.\n4. Do two or three rounds.',
];

export const GROUNDING: readonly string[] = [
	'**5-4-3-2-1**\nNotice, slowly:\n1. Five things you can see.\n2. Four things you can touch, and how they feel.\n3. Three things you can hear.\n4. Two things you can smell (or two smells you like).\n5. One thing you can taste, or one kind thing about yourself.',
	'**Feet on the floor**\n1. Put both feet flat on the floor.\n2. Press down gently and notice the ground holding you.\n3. Wiggle your toes and notice your socks or shoes.\n4. Say to yourself: "I am here, right now, and this moment is passing."',
	'**Cool water**\n1. Run cool water over your hands or wrists, or hold something cold.\n2. Notice the temperature and how it changes.\n3. Breathe slowly while you do it.\nA change of temperature can help your body shift gears.',
	'**Categories game**\n1. Pick a category: animals, cities, fruits, films.\n2. Name one for every letter of the alphabet you can, A to Z.\n3. Go slowly; skipping letters is fine.\nGiving your mind a gentle puzzle pulls it back into the present.',
	'**Describe the room**\n1. Pick one object near you.\n2. Describe it in detail as if to someone who has never seen it: colour, shape, texture, weight.\n3. Move on to a second object.\nTake your time; there is no right answer.',
];

export const AFFIRMATIONS: readonly string[] = [
	'I am allowed to take this one moment at a time.',
	'My feelings are real, and they will not last forever.',
	'I am doing the best I can with what I have right now.',
	'I deserve the same kindness I would give a friend.',
	'Resting is not failing. I am allowed to rest.',
	'I have made it through hard days before.',
	'I do not have to have everything figured out today.',
	'It is okay to ask for help. Asking is a strength.',
	'Small steps still move me forward.',
	'I am more than my worst day.',
	'I can be a work in progress and still be worthy of care.',
	'Whatever today looks like, I can start again.',
	'My needs matter, even when they feel inconvenient.',
	'I can let this feeling be here without letting it decide everything.',
	'I am learning, and learning takes time.',
	'I can be proud of myself for small things.',
	'I do not have to earn rest, kindness or belonging.',
	'This feeling is a visitor, not my whole story.',
];

export const DISTRACTIONS: readonly string[] = [
	'Put on one song you love and really listen to it.',
	'Make a warm drink and hold the cup with both hands.',
	'Step outside or open a window for five minutes of fresh air.',
	'Doodle, colour or sketch anything for ten minutes.',
	'Tidy one small thing: a drawer, your desk, your bag.',
	'Watch a short video of something that makes you laugh.',
	'Text someone a simple "thinking of you".',
	'Do a short, gentle stretch for your neck and shoulders.',
	'Solve a small puzzle: a crossword, a sudoku or a word game.',
	'Look up pictures of an animal you love.',
	'Water a plant or look closely at something green.',
	'Read a few pages of a comfortable, familiar book.',
	'Cook or assemble a simple snack, paying attention to each step.',
	'Take a slow walk around the block, or around your room.',
	'Write a list of five things you are looking forward to, however small.',
	'Rearrange your playlist or make a new one for a mood you would like to feel.',
];

export const CHALLENGES: readonly string[] = [
	'Drink a full glass of water in the next ten minutes.',
	'Send a kind message to someone you have not talked to in a while.',
	'Spend five minutes outside, even just at the door.',
	'Write down three things that went okay today, however small.',
	'Stand up and stretch your arms over your head for thirty seconds.',
	'Eat something nourishing in the next hour.',
	'Put your phone in another room for fifteen minutes.',
	'Tidy just one surface near you.',
	'Give yourself one genuine compliment, out loud if you can.',
	'Take a shower or wash your face with warm water.',
	'Write down one worry, then one small step you could take about it.',
	'Listen to a song that reminds you of a good memory.',
	'Change into something comfortable.',
	'Open a window and take five slow breaths of fresh air.',
	'Say no to one thing today that you do not have the energy for.',
	'Do one thing today just because you enjoy it.',
];

export const JOURNAL_PROMPTS: readonly string[] = [
	'What is taking up the most space in your mind right now? Write it down without editing.',
	'What would you say to a friend who felt the way you feel today?',
	'What is one thing that helped, even a little, the last time you felt like this?',
	'What are three things you can control today, and three you cannot?',
	'Describe a place where you feel safe, in as much detail as you can.',
	'What do you need more of this week? What do you need less of?',
	'Write about a small moment from this week that you would like to remember.',
	'If your feelings could talk right now, what would they ask you for?',
	'What is something you have been carrying that you could set down, even for a day?',
	'Who or what made you smile recently, and why?',
	'What would "good enough" look like today?',
	'Write a short letter to yourself one year from now.',
];

/** One exercise from Haven's own pool. */
export function copingFallback(kind: CopingKind, random: () => number = Math.random): string {
	switch (kind) {
		case 'breathing':
			return pick(BREATHING, random);
		case 'grounding':
			return pick(GROUNDING, random);
		case 'affirmation':
			return sample(AFFIRMATIONS, 3, random)
				.map((line) => `> ${line}`)
				.join('\n');
		case 'distraction':
			return `A few ideas, pick whichever feels doable:\n${sample(DISTRACTIONS, 3, random)
				.map((line) => `- ${line}`)
				.join('\n')}`;
		case 'challenge':
			return `Your small challenge: **${pick(CHALLENGES, random)}**\nNo pressure: if it is not doable today, that is okay too.`;
		case 'journal':
			return `${pick(JOURNAL_PROMPTS, random)}\nWrite for yourself: nobody else needs to read it. \`/ghostletter keep\` can store it privately, encrypted.`;
	}
}

export const COPING_TEXT_MAX = 1_200;

/** The model's exercise, or undefined when it is unusable (empty, too long). */
export function parseCoping(text: string): string | undefined {
	const trimmed = text.trim();
	return trimmed.length >= 10 && trimmed.length <= COPING_TEXT_MAX ? trimmed : undefined;
}

export interface CopingRequest {
	kind: CopingKind;
	feeling: string | null;
	shownPublicly: boolean;
	careful: boolean;
	/** Provider safety identifier. */
	user?: string;
}

export async function copingExercise(ai: Ai, request: CopingRequest, random: () => number = Math.random): Promise<Generated<string>> {
	const fallback = () => copingFallback(request.kind, random);
	if (!request.feeling) return { value: fallback(), fromAi: false };
	return generate(ai, {
		system: copingSystemPrompt(request.kind, request.shownPublicly),
		prompt: `How I'm feeling: ${request.feeling}`,
		parse: parseCoping,
		fallback,
		user: request.user,
		careful: request.careful,
		maxTokens: 350,
	});
}

export function renderCoping(kind: CopingKind, exercise: Generated<string>): View {
	const info = COPING[kind];
	return {
		embeds: [
			{
				title: `${info.emoji} ${info.title}`,
				color: COLOR,
				description: exercise.value,
				footer: {
					text: exercise.fromAi
						? 'Adapted to what you shared, with AI. Not medical advice. /crisis lists free support lines.'
						: "One of Haven's exercises. Not medical advice. /crisis lists free support lines.",
				},
			},
		],
	};
}
