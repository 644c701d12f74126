import type { EntityManager } from '@mikro-orm/postgresql';
import { ButtonStyle, ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData } from 'discord.js';
import { resourcesFor } from '../crisis/resources.ts';
import { SafetyPlan } from '../db/index.ts';
import { button } from '../discord/buttons.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';

/**
 * Safety plans (`/safetyplan`): the seven parts of the plan clinicians make with people after a crisis, in the person's
 * own words. Each part is stored encrypted and bound to its row (the column type); only its author sees it, in
 * ephemeral messages. Editing goes one part at a time (a modal holds one part, prefilled with what is there), each part
 * skippable. Every custom id carries the author's id and is refused to anyone else.
 */

export const PART_MAX_LENGTH = 700;

export const PLAN_PARTS = [
	{
		key: 'warningSigns',
		title: 'Warning signs',
		label: 'Warning signs',
		prompt: 'Thoughts, feelings, moods or situations that tell you a crisis may be building.',
		placeholder: 'e.g. not sleeping, pulling away from friends, thinking "what is the point"',
	},
	{
		key: 'coping',
		title: 'Things I can do on my own to cope',
		label: 'Things I can do on my own to cope',
		prompt: 'What helps you get through a hard moment without anyone else: anything that calms or grounds you.',
		placeholder: 'e.g. a walk, a cold shower, music, breathing slowly for a few minutes',
	},
	{
		key: 'distractions',
		title: 'People and places that take my mind off things',
		label: 'People and places that distract me',
		prompt: 'People to be around and places to go that take your mind off things (you need not talk about how you feel).',
		placeholder: 'e.g. the library, my cousin, the park, a Discord voice channel with friends',
	},
	{
		key: 'people',
		title: 'People I can ask for help',
		label: 'People I can ask for help',
		prompt: 'People you can tell that you are struggling, and how to reach them.',
		placeholder: 'e.g. my sister (phone), my best friend (DM)',
	},
	{
		key: 'professionals',
		title: 'Professionals and services',
		label: 'Professionals and services',
		prompt: 'Your doctor or therapist, and crisis lines. The crisis lines of your country are filled in: change them as you like.',
		placeholder: 'e.g. my GP, my therapist, a crisis line',
	},
	{
		key: 'environment',
		title: 'Making my surroundings safer',
		label: 'Making my surroundings safer',
		prompt: 'What you can do to make the place you are in safer in a crisis (put things away, ask someone to keep them, go somewhere else).',
		placeholder: 'e.g. give my medication to my partner to keep',
	},
	{
		key: 'reasons',
		title: 'Reasons for living',
		label: 'Reasons for living',
		prompt: 'What matters to you and is worth staying for: people, pets, plans, things you love.',
		placeholder: 'e.g. my dog, my little brother, the concert in June',
	},
] as const;

export type PlanPart = (typeof PLAN_PARTS)[number]['key'];
export type Plan = Record<PlanPart, string | null>;

export const PART_COUNT = PLAN_PARTS.length;

// ---------------------------------------------------------------------------------------------------------------------
// Storage

/** The person's plan, decrypted; null when they have none. */
export async function getPlan(em: EntityManager, userId: string): Promise<Plan | null> {
	const row = await em.findOne(SafetyPlan, { userId });
	if (!row) return null;
	return Object.fromEntries(PLAN_PARTS.map(({ key }) => [key, row[key] ?? null])) as Plan;
}

/** Does the person have a plan with anything written in it? Reads no encrypted column. */
export async function hasPlan(em: EntityManager, userId: string): Promise<boolean> {
	const columns = ['warning_signs', 'coping', 'distractions', 'people', 'professionals', 'environment', 'reasons'];
	const rows = await em
		.getConnection()
		.execute<{ one: number }[]>(
			`select 1 as one from safety_plans where user_id = ? and (${columns.map((c) => `"${c}" is not null`).join(' or ')})`,
			[userId],
		);
	return rows.length > 0;
}

/** Writes one part (empty text clears it), creating the plan when needed. */
export async function savePart(em: EntityManager, userId: string, part: PlanPart, text: string | null, now = new Date()): Promise<void> {
	const value = text?.trim().slice(0, PART_MAX_LENGTH) || null;
	const row = (await em.findOne(SafetyPlan, { userId })) ?? em.create(SafetyPlan, { userId, usedAt: now });
	row[part] = value;
	row.usedAt = now;
	await em.flush();
}

/** A view of the plan counts as using it (its retention starts again). */
export async function touchPlan(em: EntityManager, userId: string, now = new Date()): Promise<void> {
	await em.getConnection().execute('update safety_plans set used_at = ? where user_id = ?', [now, userId], 'run');
}

/** Deletes the plan; false when there was none. */
export async function clearPlan(em: EntityManager, userId: string): Promise<boolean> {
	const rows = await em.getConnection().execute<{ user_id: string }[]>('delete from safety_plans where user_id = ? returning user_id', [userId]);
	return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------------------------------
// Custom ids

export const PLAN_BUTTON_PREFIX = 'plan';
export const PLAN_MODAL_PREFIX = 'plan-modal';
export const PLAN_FIELD = 'text';

/**
 * `view` and `start` answer with a new private message (they sit on crisis replies and follow-ups, which stay as they
 * are); `step`, `write`, `done` and `clear` work on the plan's own messages.
 */
export type PlanButton =
	| { kind: 'view' | 'start' | 'done'; userId: string }
	| { kind: 'step' | 'write'; userId: string; index: number }
	| { kind: 'clear'; userId: string; confirm: boolean };

export function planButtonId(kind: 'view' | 'start' | 'done', userId: string): string;
export function planButtonId(kind: 'step' | 'write', userId: string, index: number): string;
export function planButtonId(kind: 'clear', userId: string, confirm: boolean): string;
export function planButtonId(kind: PlanButton['kind'], userId: string, arg?: number | boolean): string {
	if (typeof arg === 'boolean') return `${PLAN_BUTTON_PREFIX}:${kind}:${userId}:${arg ? 'yes' : 'no'}`;
	return arg === undefined ? `${PLAN_BUTTON_PREFIX}:${kind}:${userId}` : `${PLAN_BUTTON_PREFIX}:${kind}:${userId}:${arg}`;
}

export function parsePlanButton(customId: string): PlanButton | null {
	const match = /^plan:(view|start|done|step|write|clear):(\d{17,20})(?::(\d{1,2}|yes|no))?$/.exec(customId);
	if (!match) return null;
	const [, kind, userId, arg] = match as unknown as [string, PlanButton['kind'], string, string | undefined];
	if (kind === 'view' || kind === 'start' || kind === 'done') return arg === undefined ? { kind, userId } : null;
	if (kind === 'clear') return arg === 'yes' || arg === 'no' ? { kind, userId, confirm: arg === 'yes' } : null;
	if (arg === undefined || !/^\d+$/.test(arg) || Number(arg) > PART_COUNT) return null;
	return { kind, userId, index: Number(arg) };
}

export function parsePlanModal(customId: string): { userId: string; index: number } | null {
	const match = /^plan-modal:(\d{17,20}):(\d)$/.exec(customId);
	if (!match || Number(match[2]) >= PART_COUNT) return null;
	return { userId: match[1]!, index: Number(match[2]) };
}

// ---------------------------------------------------------------------------------------------------------------------
// Views

export const NOT_YOUR_PLAN = 'This belongs to someone else’s safety plan: only they can use it. `/safetyplan` makes your own.';

/** The crisis lines of the person's country, as a starting point for "Professionals and services". */
export function professionalsPrefill(country: string | null): string {
	const resources = resourcesFor(country);
	const lines = resources.emergency.length ? [`Emergency: ${resources.emergency.join(' or ')}`] : [];
	for (const service of resources.services) {
		const how = [
			service.phone?.length ? `call ${service.phone[0]}` : '',
			service.text ? `text ${service.text.to}` : '',
			service.chat ?? service.url,
		]
			.filter(Boolean)
			.join(', ');
		lines.push(`${service.name}: ${how}`);
	}
	lines.push('My doctor or therapist: ');
	let text = '';
	for (const line of lines) if (`${text}${line}\n`.length <= PART_MAX_LENGTH) text += `${line}\n`;
	return text.trim();
}

const quoteBlock = (text: string) =>
	text
		.split('\n')
		.map((line) => `> ${line}`)
		.join('\n');

/** The whole plan, privately. */
export function renderPlan(userId: string, plan: Plan | null): View {
	const filled = plan ? PLAN_PARTS.filter(({ key }) => plan[key]) : [];
	if (!plan || !filled.length) {
		return {
			content:
				'You have no safety plan yet. It is a short list, in your own words, of what helps when things get hard. Making one takes a few minutes.',
			embeds: [],
			components: [
				{ type: ComponentType.ActionRow, components: [button('Make my safety plan', planButtonId('start', userId), ButtonStyle.Primary)] },
			],
		};
	}
	return {
		content: '',
		embeds: [
			{
				title: 'My safety plan',
				color: COLOR,
				description: 'Go through it from the top when things get hard: you can stop at any step that helps.',
				fields: PLAN_PARTS.map(({ key, title }, index) => ({
					name: `${index + 1}. ${title}`,
					value: plan[key] ? plan[key]!.slice(0, 1_000) : '_(empty)_',
				})),
				footer: { text: 'Only you can see this. /safetyplan edit changes it; /safetyplan clear deletes it.' },
			},
		],
		components: [{ type: ComponentType.ActionRow, components: [button('Edit', planButtonId('start', userId), ButtonStyle.Secondary)] }],
	};
}

/** One step of the editing walk: the part, what is written there now, and Write / Skip (or Next part) / Done. */
export function renderStep(userId: string, index: number, plan: Plan | null, notice?: string): View {
	if (index >= PART_COUNT) return renderDone(plan);
	const part = PLAN_PARTS[index]!;
	const current = plan?.[part.key] ?? null;
	const lines = [
		...(notice ? [notice, ''] : []),
		`**Part ${index + 1} of ${PART_COUNT}: ${part.title}**`,
		part.prompt,
		'',
		current ? quoteBlock(current) : '_Nothing written here yet._',
	];
	return {
		content: lines.join('\n'),
		embeds: [],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button(current ? 'Change' : 'Write', planButtonId('write', userId, index), ButtonStyle.Primary),
					button(current ? 'Next part' : 'Skip', planButtonId('step', userId, index + 1), ButtonStyle.Secondary),
					button('Done', planButtonId('done', userId), ButtonStyle.Success),
				],
			},
		],
	};
}

export function renderDone(plan: Plan | null): View {
	const filled = plan ? PLAN_PARTS.filter(({ key }) => plan[key]).length : 0;
	return {
		content: filled
			? `Your safety plan is saved (${filled} of ${PART_COUNT} parts written), encrypted, and only you can see it. \`/safetyplan view\` shows it any time; when you reach out to Haven in a hard moment, it will offer it to you.`
			: 'Nothing is written in your safety plan yet. `/safetyplan edit` whenever you feel like it.',
		embeds: [],
		components: [],
	};
}

/** The writing box for one part, prefilled with what is there (or, for services, the crisis lines of the country). */
export function planModal(userId: string, index: number, current: string | null): APIModalInteractionResponseCallbackData {
	const part = PLAN_PARTS[index]!;
	return {
		custom_id: `${PLAN_MODAL_PREFIX}:${userId}:${index}`,
		title: `Safety plan: part ${index + 1} of ${PART_COUNT}`,
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.TextInput,
						custom_id: PLAN_FIELD,
						label: part.label,
						style: TextInputStyle.Paragraph,
						max_length: PART_MAX_LENGTH,
						required: false,
						placeholder: part.placeholder,
						...(current ? { value: current.slice(0, PART_MAX_LENGTH) } : {}),
					},
				],
			},
		],
	};
}

export function renderClearConfirm(userId: string, exists: boolean): View {
	if (!exists) return { content: 'You have no safety plan: there is nothing to clear.', components: [] };
	return {
		content: 'Delete your safety plan? Every part goes, for good.',
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button('Delete my plan', planButtonId('clear', userId, true), ButtonStyle.Danger),
					button('Cancel', planButtonId('clear', userId, false), ButtonStyle.Secondary),
				],
			},
		],
	};
}

export function renderCleared(deleted: boolean): View {
	return { content: deleted ? '🗑️ Your safety plan is deleted.' : 'There was no safety plan to delete.', embeds: [], components: [] };
}

export const CLEAR_CANCELLED: View = { content: 'Cancelled: your safety plan is untouched.', embeds: [], components: [] };
