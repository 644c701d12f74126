import type { EntityManager } from '@mikro-orm/postgresql';
import type { APIEmbed } from 'discord.js';
import { MoodCheckIn } from '../db/index.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { chunkLines, excerpt, plural } from '../discord/text.ts';

/**
 * Mood check-ins: a mood from a fixed list, an intensity from 1 to 5 and an optional note (encrypted by its column).
 * Each insert counts in `moodCheckIns` (the table's trigger). The trend compares the newer half of the recent
 * check-ins with the older half on a simple score: the mood's direction (pleasant +1, neutral 0, hard -1) times
 * its intensity.
 */

export interface Mood {
	value: string;
	label: string;
	emoji: string;
	/** +1 pleasant, 0 neutral, -1 hard. */
	valence: 1 | 0 | -1;
}

export const MOODS: readonly Mood[] = Object.freeze([
	{ value: 'great', label: 'Great', emoji: '😄', valence: 1 },
	{ value: 'good', label: 'Good', emoji: '🙂', valence: 1 },
	{ value: 'calm', label: 'Calm', emoji: '😌', valence: 1 },
	{ value: 'grateful', label: 'Grateful', emoji: '🥰', valence: 1 },
	{ value: 'okay', label: 'Okay', emoji: '😐', valence: 0 },
	{ value: 'tired', label: 'Tired', emoji: '😴', valence: 0 },
	{ value: 'anxious', label: 'Anxious', emoji: '😟', valence: -1 },
	{ value: 'stressed', label: 'Stressed', emoji: '😣', valence: -1 },
	{ value: 'sad', label: 'Sad', emoji: '😢', valence: -1 },
	{ value: 'lonely', label: 'Lonely', emoji: '😔', valence: -1 },
	{ value: 'angry', label: 'Angry', emoji: '😠', valence: -1 },
	{ value: 'overwhelmed', label: 'Overwhelmed', emoji: '😵', valence: -1 },
	{ value: 'numb', label: 'Numb', emoji: '😶', valence: -1 },
] as const satisfies readonly Mood[]);

export const NOTE_MAX_LENGTH = 500;
/** Check-ins the trend looks at. */
export const TREND_SIZE = 7;
export const HISTORY_DEFAULT = 10;
export const HISTORY_MAX = 15;

export function moodOf(value: string): Mood {
	return MOODS.find((mood) => mood.value === value) ?? { value, label: value, emoji: '•', valence: 0 };
}

export function isMood(value: unknown): value is string {
	return typeof value === 'string' && MOODS.some((mood) => mood.value === value);
}

export interface CheckInRow {
	id: number;
	mood: string;
	intensity: number;
	note: string | null;
	createdAt: Date;
}

export type TrendDirection = 'first' | 'brighter' | 'steady' | 'heavier';

export interface Trend {
	direction: TrendDirection;
	/** Oldest first. */
	recent: CheckInRow[];
	averageIntensity: number;
}

export function score(row: Pick<CheckInRow, 'mood' | 'intensity'>): number {
	return moodOf(row.mood).valence * row.intensity;
}

/** The trend of check-ins given newest first (at most TREND_SIZE are used). */
export function trendOf(newestFirst: readonly CheckInRow[]): Trend {
	const recent = newestFirst.slice(0, TREND_SIZE).reverse();
	const averageIntensity = recent.length ? recent.reduce((sum, row) => sum + row.intensity, 0) / recent.length : 0;
	if (recent.length < 2) return { direction: 'first', recent, averageIntensity };
	const half = Math.floor(recent.length / 2);
	const mean = (rows: CheckInRow[]) => rows.reduce((sum, row) => sum + score(row), 0) / rows.length;
	const older = mean(recent.slice(0, half));
	const newer = mean(recent.slice(recent.length - half));
	const delta = newer - older;
	return { direction: delta >= 1 ? 'brighter' : delta <= -1 ? 'heavier' : 'steady', recent, averageIntensity };
}

const TREND_WORDS: Record<TrendDirection, string> = {
	first: 'This is your first check-in here. Checking in regularly helps you notice patterns over time.',
	brighter: 'Lately things look a little brighter than before.',
	steady: 'Lately things look fairly steady.',
	heavier: 'Lately things look a bit heavier than before. Be gentle with yourself.',
};

export function trendLine(trend: Trend): string {
	if (trend.direction === 'first') return TREND_WORDS.first;
	const strip = trend.recent.map((row) => `${moodOf(row.mood).emoji}${row.intensity}`).join(' → ');
	return `Your last ${plural(trend.recent.length, 'check-in')} (oldest first): ${strip}\n${TREND_WORDS[trend.direction]}`;
}

/** A gentle next step after a check-in, by mood and intensity. */
export function suggestion(mood: Mood, intensity: number): string {
	if (mood.valence < 0 && intensity >= 4) {
		return 'That sounds heavy. `/coping breathing` or `/coping grounding` might help for a moment, and `/crisis` lists free, confidential support lines if you need someone now.';
	}
	if (mood.valence < 0) return 'Thanks for being honest with yourself. `/coping` has a few small things that might help.';
	if (mood.valence > 0) return "Glad to hear it. Maybe notice what's helping, so you can come back to it.";
	return 'Thanks for checking in.';
}

// ---------------------------------------------------------------------------------------------------------------------
// Data

export interface NewCheckIn {
	userId: string;
	guildId: string | null;
	mood: string;
	intensity: number;
	note: string | null;
}

export async function logCheckIn(em: EntityManager, input: NewCheckIn): Promise<CheckInRow> {
	const row = em.create(MoodCheckIn, {
		userId: input.userId,
		guildId: input.guildId,
		mood: input.mood,
		intensity: input.intensity,
		note: input.note,
	});
	await em.flush();
	return { id: row.id, mood: row.mood, intensity: row.intensity, note: row.note ?? null, createdAt: row.createdAt };
}

export async function recentCheckIns(em: EntityManager, userId: string, limit: number): Promise<CheckInRow[]> {
	const rows = await em.find(MoodCheckIn, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
	return rows.map((row) => ({ id: row.id, mood: row.mood, intensity: row.intensity, note: row.note ?? null, createdAt: row.createdAt }));
}

export async function countCheckIns(em: EntityManager, userId: string): Promise<number> {
	return em.count(MoodCheckIn, { userId });
}

// ---------------------------------------------------------------------------------------------------------------------
// Views (ephemeral)

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

export function renderCheckInLogged(row: CheckInRow, newestFirst: readonly CheckInRow[], reminderNote?: string): View {
	const mood = moodOf(row.mood);
	const lines = [
		`${mood.emoji} Logged: **${mood.label}**, intensity ${row.intensity}/5${row.note ? ', with a private note (stored encrypted)' : ''}.`,
		'',
		trendLine(trendOf(newestFirst)),
		'',
		suggestion(mood, row.intensity),
	];
	if (reminderNote) lines.push('', reminderNote);
	return {
		embeds: [
			{
				title: 'Check-in saved',
				color: COLOR,
				description: lines.join('\n'),
				footer: { text: 'Only you can see this. /checkin history shows your recent check-ins.' },
			},
		],
	};
}

export function renderHistory(newestFirst: readonly CheckInRow[], total: number): View {
	if (newestFirst.length === 0) {
		return { content: "You haven't checked in yet. `/checkin log` takes a few seconds: pick a mood and how strong it is." };
	}
	const lines = newestFirst.map((row) => {
		const mood = moodOf(row.mood);
		const note = row.note ? ` · ${excerpt(row.note, 100)}` : '';
		return `<t:${unix(row.createdAt)}:f> ${mood.emoji} **${mood.label}** ${row.intensity}/5${note}`;
	});
	const counts = new Map<string, number>();
	for (const row of newestFirst) counts.set(row.mood, (counts.get(row.mood) ?? 0) + 1);
	const common = [...counts.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 3)
		.map(([value, count]) => `${moodOf(value).emoji} ${moodOf(value).label} ×${count}`);
	const trend = trendOf(newestFirst);
	const chunks = chunkLines(lines, 3_000);
	const embeds: APIEmbed[] = chunks.map((description, index) => ({
		...(index === 0 ? { title: `Your last ${plural(newestFirst.length, 'check-in')}${total > newestFirst.length ? ` (of ${total})` : ''}` } : {}),
		color: COLOR,
		description,
	}));
	const last = embeds[embeds.length - 1]!;
	last.fields = [
		{ name: 'Most often', value: common.join(', '), inline: true },
		{ name: 'Average intensity', value: `${trend.averageIntensity.toFixed(1)}/5`, inline: true },
		{ name: 'Trend', value: trend.direction === 'first' ? 'Not enough check-ins yet' : TREND_WORDS[trend.direction] },
	];
	last.footer = { text: 'Only you can see this. Notes are stored encrypted. /privacy explains what Haven keeps.' };
	return { embeds };
}
