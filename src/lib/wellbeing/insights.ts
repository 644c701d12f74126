import type { EntityManager } from '@mikro-orm/postgresql';
import type { APIEmbed } from 'discord.js';
import { MoodCheckIn } from '../db/index.ts';
import { COLOR } from '../discord/info-views.ts';
import { plural } from '../discord/text.ts';
import { moodOf, score, type CheckInRow } from './checkins.ts';
import { dayOf, gratitudeSince, type GratitudeRow } from './gratitude.ts';
import { entriesSince } from './journal.ts';
import type { ChartPoint } from './mood-chart.ts';

/**
 * `/insights [days]`: a private summary of a person's own check-ins, journal and gratitude over 7, 30 or 90 days. The
 * streaks count days (UTC) with any of the three. The observations are simple counts and comparisons of their own
 * data, worded gently: patterns in what they logged, never a diagnosis and never the AI.
 */

export const INSIGHT_DAYS = [7, 30, 90] as const;
export type InsightDays = (typeof INSIGHT_DAYS)[number];
export const DEFAULT_DAYS: InsightDays = 30;
/** Check-ins in the period needed before a chart is drawn. */
export const MIN_CHART_CHECKINS = 3;

const DAY_MS = 86_400_000;

export interface InsightData {
	days: InsightDays;
	from: Date;
	to: Date;
	/** Oldest first. */
	checkIns: CheckInRow[];
	journalMoods: (string | null)[];
	journalCount: number;
	gratitude: GratitudeRow[];
	/** Every day (YYYY-MM-DD, UTC) with a check-in, an entry or a good thing, whatever the period. */
	activeDays: Set<string>;
}

export async function gatherInsights(em: EntityManager, userId: string, days: InsightDays, now = new Date()): Promise<InsightData> {
	const from = new Date(now.getTime() - days * DAY_MS);
	const [checkIns, entries, gratitude, active] = await Promise.all([
		em.fork().find(MoodCheckIn, { userId, createdAt: { $gte: from } }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
		entriesSince(em.fork(), userId, from),
		gratitudeSince(em.fork(), userId, from),
		em.getConnection().execute<{ day: string }[]>(
			`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day from mood_check_ins where user_id = ?
			union select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') from journal_entries where user_id = ?
			union select day from gratitude_items where user_id = ?`,
			[userId, userId, userId],
		),
	]);
	return {
		days,
		from,
		to: now,
		checkIns: checkIns.map((row) => ({ id: row.id, mood: row.mood, intensity: row.intensity, note: null, createdAt: row.createdAt })),
		journalMoods: entries.map((entry) => entry.mood),
		journalCount: entries.length,
		gratitude,
		activeDays: new Set(active.map((row) => row.day)),
	};
}

/** Current streak (ending today, or yesterday when today has nothing yet) and longest streak, in days. Pure. */
export function streaks(activeDays: ReadonlySet<string>, now: Date): { current: number; longest: number } {
	const sorted = [...activeDays].sort();
	let longest = 0;
	let run = 0;
	let previous: number | undefined;
	for (const day of sorted) {
		const t = Date.parse(`${day}T00:00:00Z`);
		run = previous !== undefined && t - previous === DAY_MS ? run + 1 : 1;
		longest = Math.max(longest, run);
		previous = t;
	}
	let current = 0;
	let cursor = Date.parse(`${dayOf(now)}T00:00:00Z`);
	if (!activeDays.has(dayOf(new Date(cursor)))) cursor -= DAY_MS;
	while (activeDays.has(dayOf(new Date(cursor)))) {
		current++;
		cursor -= DAY_MS;
	}
	return { current, longest };
}

/** The most frequent moods of check-ins and journal entries, most frequent first (ties: the earlier in MOODS). */
export function topMoods(data: Pick<InsightData, 'checkIns' | 'journalMoods'>, limit = 3): { mood: string; count: number }[] {
	const counts = new Map<string, number>();
	for (const mood of [...data.checkIns.map((row) => row.mood), ...data.journalMoods]) if (mood) counts.set(mood, (counts.get(mood) ?? 0) + 1);
	return [...counts.entries()]
		.map(([mood, count]) => ({ mood, count }))
		.sort((a, b) => b.count - a.count)
		.slice(0, limit);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** A few gentle observations from the person's own data (pure; at most four). */
export function observations(data: InsightData): string[] {
	const out: string[] = [];
	const rows = data.checkIns;
	if (rows.length >= 4) {
		const half = Math.floor(rows.length / 2);
		const delta = mean(rows.slice(rows.length - half).map(score)) - mean(rows.slice(0, half).map(score));
		if (delta >= 1) out.push('Your more recent check-ins lean brighter than the earlier ones in this period.');
		else if (delta <= -1) out.push('Your more recent check-ins lean heavier than the earlier ones. It may help to go gently on yourself.');
		else out.push('Your check-ins have stayed fairly steady across this period.');
	}
	const byWeekday = new Map<number, number[]>();
	for (const row of rows) byWeekday.set(row.createdAt.getUTCDay(), [...(byWeekday.get(row.createdAt.getUTCDay()) ?? []), score(row)]);
	const weekdays = [...byWeekday.entries()].filter(([, scores]) => scores.length >= 2);
	if (weekdays.length >= 2) {
		const best = weekdays.reduce((a, b) => (mean(b[1]) > mean(a[1]) ? b : a));
		if (mean(best[1]) > 0) out.push(`${WEEKDAYS[best[0]]}s tend to be among your better days in what you logged.`);
	}
	const gratitudeDays = new Set(data.gratitude.map((row) => row.day));
	const withGratitude = rows.filter((row) => gratitudeDays.has(dayOf(row.createdAt))).map(score);
	const without = rows.filter((row) => !gratitudeDays.has(dayOf(row.createdAt))).map(score);
	if (withGratitude.length >= 2 && without.length >= 2 && mean(withGratitude) - mean(without) >= 1) {
		out.push('On days you noted good things, your check-ins were brighter on average.');
	}
	if (rows.length >= 3) {
		const hard = rows.filter((row) => moodOf(row.mood).valence < 0 && row.intensity >= 4).length;
		if (hard >= Math.ceil(rows.length / 2)) {
			out.push(
				'Many of your check-ins were strong, hard feelings. `/coping` has small things that may help, and `/crisis` lists people you can talk to.',
			);
		}
	}
	if (data.journalCount >= 3)
		out.push(`You wrote in your journal ${plural(data.journalCount, 'time')} in this period: that is time you gave yourself.`);
	return out.slice(0, 4);
}

/** The chart's points, or what is missing for a chart. */
export function chartPoints(data: InsightData): { points: ChartPoint[] } | { missing: string } {
	if (data.checkIns.length < MIN_CHART_CHECKINS) {
		const have = data.checkIns.length;
		return {
			missing: `The mood chart needs at least ${MIN_CHART_CHECKINS} check-ins in the last ${data.days} days; you have ${have}. \`/checkin log\` adds one in a few seconds${have ? '' : ', and the chart appears after the third'}.`,
		};
	}
	return { points: data.checkIns.map((row) => ({ at: row.createdAt, mood: row.mood, intensity: row.intensity })) };
}

export function insightsEmbed(data: InsightData, now: Date, missing?: string, chartName?: string): APIEmbed {
	const { current, longest } = streaks(data.activeDays, now);
	const moods = topMoods(data);
	const lines = [
		`${plural(data.checkIns.length, 'check-in')}, ${plural(data.journalCount, 'journal entry', 'journal entries')} and ${plural(data.gratitude.length, 'good thing')} in the last ${data.days} days.`,
	];
	if (missing) lines.push('', missing);
	const notes = observations(data);
	const fields = [
		{ name: 'Current streak', value: plural(current, 'day'), inline: true },
		{ name: 'Longest streak', value: plural(longest, 'day'), inline: true },
		{
			name: 'Most frequent moods',
			value: moods.length
				? moods.map(({ mood, count }) => `${moodOf(mood).emoji} ${moodOf(mood).label} ×${count}`).join(', ')
				: 'None logged yet',
			inline: false,
		},
	];
	if (notes.length) fields.push({ name: 'Noticed', value: notes.map((note) => `• ${note}`).join('\n'), inline: false });
	return {
		title: `Your insights, last ${data.days} days`,
		color: COLOR,
		description: lines.join('\n'),
		fields,
		...(chartName ? { image: { url: `attachment://${chartName}` } } : {}),
		footer: {
			text: 'Only you can see this. Patterns in what you logged, not a diagnosis. A day counts towards a streak with a check-in, an entry or a good thing (UTC).',
		},
	};
}
