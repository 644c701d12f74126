import type { EntityManager } from '@mikro-orm/postgresql';
import { ButtonStyle, ComponentType } from 'discord.js';
import { button } from '../discord/buttons.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { outsideQuietHours, type QuietHours } from '../wellbeing/reminders.ts';
import { planButtonId } from './safety-plan.ts';

/**
 * Care after a crisis reply: what the private crisis reply offers next (the person's safety plan, or making one; a
 * follow-up DM later), and the follow-ups themselves.
 *
 * A follow-up exists only when the person pressed "Check on me ...". It is one row (who, when), nothing they wrote.
 * It lands outside their check-in reminder quiet hours, in their timezone, when they set them (`/checkin reminders`).
 * It is sent once: the scheduler claims it by deleting the row where `due_at` is still what it read (compare-and-set),
 * so of two schedulers one sends. Cancelling deletes it. Discord's "cannot DM this user" drops it quietly.
 */

export const FOLLOW_UP_CHOICES = {
	'4h': { minutes: 240, label: 'Check on me in 4 hours' },
	'1d': { minutes: 1_440, label: 'Check on me tomorrow' },
} as const;
export type FollowUpChoice = keyof typeof FOLLOW_UP_CHOICES;

export const FOLLOW_UP_ANSWERS = ['better', 'same', 'worse'] as const;
export type FollowUpAnswer = (typeof FOLLOW_UP_ANSWERS)[number];

// ---------------------------------------------------------------------------------------------------------------------
// Custom ids

export type CareButton =
	| { kind: 'follow'; userId: string; choice: FollowUpChoice }
	| { kind: 'cancel'; userId: string }
	| { kind: 'answer'; userId: string; answer: FollowUpAnswer };

export const careButtonId = {
	follow: (userId: string, choice: FollowUpChoice) => `care:follow:${userId}:${choice}`,
	cancel: (userId: string) => `care:cancel:${userId}`,
	answer: (userId: string, answer: FollowUpAnswer) => `care:answer:${userId}:${answer}`,
};

export function parseCareButton(customId: string): CareButton | null {
	const match = /^care:(follow|cancel|answer):(\d{17,20})(?::([a-z0-9]{2,6}))?$/.exec(customId);
	if (!match) return null;
	const [, kind, userId, arg] = match as unknown as [string, CareButton['kind'], string, string | undefined];
	if (kind === 'cancel') return arg === undefined ? { kind, userId } : null;
	if (kind === 'follow') return arg && arg in FOLLOW_UP_CHOICES ? { kind, userId, choice: arg as FollowUpChoice } : null;
	return arg && (FOLLOW_UP_ANSWERS as readonly string[]).includes(arg) ? { kind, userId, answer: arg as FollowUpAnswer } : null;
}

// ---------------------------------------------------------------------------------------------------------------------
// Storage

interface ReminderHours {
	timezone: string | null;
	quiet_start: number | null;
	quiet_end: number | null;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));
const quietOf = (row: ReminderHours | undefined): QuietHours | null =>
	row?.quiet_start === null || row?.quiet_start === undefined || row.quiet_end === null
		? null
		: { start: Number(row.quiet_start), end: Number(row.quiet_end) };

/** When a follow-up asked for at `now` is due: after the delay, moved out of the person's quiet hours if they set any. */
export async function followUpDueAt(em: EntityManager, userId: string, choice: FollowUpChoice, now: Date): Promise<Date> {
	const rows = await em
		.getConnection()
		.execute<ReminderHours[]>('select timezone, quiet_start, quiet_end from check_in_reminders where user_id = ?', [userId]);
	const at = new Date(now.getTime() + FOLLOW_UP_CHOICES[choice].minutes * 60_000);
	const row = rows[0];
	return row?.timezone ? outsideQuietHours(at, row.timezone, quietOf(row)) : at;
}

/** Schedules (or moves) the person's follow-up; returns when it is due. */
export async function scheduleFollowUp(em: EntityManager, userId: string, choice: FollowUpChoice, now: Date): Promise<Date> {
	const due = await followUpDueAt(em, userId, choice, now);
	await em
		.getConnection()
		.execute(
			'insert into crisis_follow_ups (user_id, due_at, created_at) values (?, ?, ?) on conflict (user_id) do update set due_at = excluded.due_at, created_at = excluded.created_at',
			[userId, due, now],
			'run',
		);
	return due;
}

/** Cancels the person's follow-up; false when none was pending. */
export async function cancelFollowUp(em: EntityManager, userId: string): Promise<boolean> {
	const rows = await em
		.getConnection()
		.execute<{ user_id: string }[]>('delete from crisis_follow_ups where user_id = ? returning user_id', [userId]);
	return rows.length === 1;
}

export async function pendingFollowUp(em: EntityManager, userId: string): Promise<Date | null> {
	const rows = await em.getConnection().execute<{ due_at: Date | string }[]>('select due_at from crisis_follow_ups where user_id = ?', [userId]);
	return rows[0] ? asDate(rows[0].due_at) : null;
}

export interface DueFollowUp {
	userId: string;
	dueAt: Date;
	timezone: string | null;
	quiet: QuietHours | null;
}

export interface FollowUpStore {
	due(now: Date, limit: number): Promise<DueFollowUp[]>;
	/** Takes the follow-up for sending (deletes it) if it is still due at `expected`; true when this caller won. */
	claim(userId: string, expected: Date): Promise<boolean>;
	/** Moves a due follow-up (inside quiet hours) to `next`, if still at `expected`. */
	defer(userId: string, expected: Date, next: Date): Promise<boolean>;
	/** Puts back a follow-up whose DM failed for a passing reason (unless a new one was asked for meanwhile). */
	retry(userId: string, at: Date): Promise<void>;
}

export function followUpStore(em: () => EntityManager): FollowUpStore {
	const run = <T>(sql: string, params: unknown[]) => em().getConnection().execute(sql, params) as Promise<T>;
	return {
		async due(now, limit) {
			const rows = await run<({ user_id: string; due_at: Date | string } & ReminderHours)[]>(
				`select f.user_id, f.due_at, r.timezone, r.quiet_start, r.quiet_end from crisis_follow_ups f
				 left join check_in_reminders r on r.user_id = f.user_id where f.due_at <= ? order by f.due_at limit ?`,
				[now, limit],
			);
			return rows.map((row) => ({ userId: row.user_id, dueAt: asDate(row.due_at), timezone: row.timezone ?? null, quiet: quietOf(row) }));
		},
		async claim(userId, expected) {
			const rows = await run<{ user_id: string }[]>('delete from crisis_follow_ups where user_id = ? and due_at = ? returning user_id', [
				userId,
				expected,
			]);
			return rows.length === 1;
		},
		async defer(userId, expected, next) {
			const rows = await run<{ user_id: string }[]>(
				'update crisis_follow_ups set due_at = ? where user_id = ? and due_at = ? returning user_id',
				[next, userId, expected],
			);
			return rows.length === 1;
		},
		async retry(userId, at) {
			await run('insert into crisis_follow_ups (user_id, due_at, created_at) values (?, ?, ?) on conflict (user_id) do nothing', [
				userId,
				at,
				at,
			]);
		},
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Views

/**
 * Sent after the crisis reply, never in its place: the person's safety plan (when they have one), a follow-up later,
 * and, for someone without a plan, the offer to make one.
 */
export function renderCareOffer(userId: string, withPlan: boolean): View {
	const lines = withPlan
		? ['Your safety plan is here whenever you want it.', '', 'If you like, I can check on you later. Only if you press, and you can cancel it.']
		: [
				'If you like, I can check on you later. Only if you press, and you can cancel it.',
				'',
				'When you feel up to it, a safety plan can help: a short list, in your own words, of what helps when things get hard. Only you can see it.',
			];
	return {
		content: lines.join('\n'),
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					...(withPlan ? [button('Show my safety plan', planButtonId('view', userId), ButtonStyle.Primary)] : []),
					button(FOLLOW_UP_CHOICES['4h'].label, careButtonId.follow(userId, '4h'), ButtonStyle.Secondary),
					button(FOLLOW_UP_CHOICES['1d'].label, careButtonId.follow(userId, '1d'), ButtonStyle.Secondary),
					...(withPlan ? [] : [button('Make a safety plan', planButtonId('start', userId), ButtonStyle.Secondary)]),
				],
			},
		],
	};
}

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

export function renderFollowUpScheduled(userId: string, due: Date): View {
	return {
		content: `Okay. I'll send you a direct message <t:${unix(due)}:R> (<t:${unix(due)}:f>) to see how you are. Your direct messages need to stay open to Haven for it to reach you.`,
		components: [
			{ type: ComponentType.ActionRow, components: [button('Cancel the check-in', careButtonId.cancel(userId), ButtonStyle.Secondary)] },
		],
	};
}

export function renderFollowUpCancelled(cancelled: boolean): View {
	return { content: cancelled ? "Cancelled: I won't send the check-in." : 'There was no check-in to cancel.', components: [] };
}

/** The follow-up DM. Answering is optional. */
export function renderFollowUpDm(userId: string): View {
	return {
		embeds: [
			{
				color: COLOR,
				title: 'Checking in, as you asked',
				description: "Hi, it's Haven. You asked me to check on you, so here I am. How are you doing now, compared with then?",
				footer: { text: "No need to answer if you'd rather not." },
			},
		],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button('Better', careButtonId.answer(userId, 'better'), ButtonStyle.Success),
					button('About the same', careButtonId.answer(userId, 'same'), ButtonStyle.Secondary),
					button('Worse', careButtonId.answer(userId, 'worse'), ButtonStyle.Secondary),
				],
			},
		],
	};
}

export const ANSWER_REPLIES: Record<Exclude<FollowUpAnswer, 'worse'>, string> = {
	better: "I'm really glad to hear that. Thank you for letting me know. I'm here whenever you want to talk.",
	same: "Thank you for telling me. Hard stretches can last a while, and it's okay if they do. You can write to me here any time, and `/crisis` always has the lines for your country.",
};

/** The close of "worse", after the resources: an offer to talk, and the plan when there is one. */
export function renderWorseFollowUp(userId: string, withPlan: boolean): View {
	return {
		content: "I'm sorry it's harder. You don't have to go through it alone: if you'd like to talk, just write to me here, I'm listening.",
		components: withPlan
			? [{ type: ComponentType.ActionRow, components: [button('Show my safety plan', planButtonId('view', userId), ButtonStyle.Primary)] }]
			: [],
	};
}

export const NOT_YOUR_CHECK_IN = 'This check-in belongs to someone else: only they can use it.';
