import type { EntityManager } from '@mikro-orm/postgresql';
import { GratitudeItem } from '../db/index.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { plural } from '../discord/text.ts';

/**
 * "Three good things": up to three short items a day (the UTC calendar day), encrypted by their column, listed by
 * day. A day with an item counts towards the streaks of /insights, like a check-in or a journal entry.
 */

export const ITEM_MAX_LENGTH = 200;
export const ITEMS_PER_DAY = 3;
/** Days `/gratitude list` shows. */
export const LIST_DAYS = 7;

export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

export interface GratitudeRow {
	id: number;
	day: string;
	content: string;
	createdAt: Date;
}

/** Adds as many of `items` as today still has room for; returns what was added and today's items. */
export async function addGratitude(
	em: EntityManager,
	userId: string,
	items: readonly string[],
	now = new Date(),
): Promise<{ added: number; refused: number; today: GratitudeRow[] }> {
	const day = dayOf(now);
	const existing = await em.count(GratitudeItem, { userId, day });
	const room = Math.max(0, ITEMS_PER_DAY - existing);
	const taken = items.slice(0, room);
	for (const content of taken) em.create(GratitudeItem, { userId, day, content, createdAt: now });
	await em.flush();
	const today = await em.find(GratitudeItem, { userId, day }, { orderBy: { createdAt: 'asc', id: 'asc' } });
	return { added: taken.length, refused: items.length - taken.length, today: today.map(toRow) };
}

const toRow = (row: { id: number; day: string; content: string; createdAt: Date }): GratitudeRow => ({
	id: row.id,
	day: row.day,
	content: row.content,
	createdAt: row.createdAt,
});

/** Items of the last `days` days that have any, newest day first. */
export async function recentGratitude(em: EntityManager, userId: string, days = LIST_DAYS, now = new Date()): Promise<Map<string, GratitudeRow[]>> {
	const since = dayOf(new Date(now.getTime() - (days - 1) * 86_400_000));
	const rows = await em.find(GratitudeItem, { userId, day: { $gte: since } }, { orderBy: { day: 'desc', createdAt: 'asc', id: 'asc' } });
	const byDay = new Map<string, GratitudeRow[]>();
	for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), toRow(row)]);
	return byDay;
}

/** Every item since `since` (for /insights), oldest first. */
export async function gratitudeSince(em: EntityManager, userId: string, since: Date): Promise<GratitudeRow[]> {
	const rows = await em.find(GratitudeItem, { userId, day: { $gte: dayOf(since) } }, { orderBy: { day: 'asc', id: 'asc' } });
	return rows.map(toRow);
}

/** The items a person typed: one to three non-empty options, trimmed, in order. */
export function cleanItems(values: readonly (string | null | undefined)[]): string[] {
	return values.map((value) => value?.replace(/\s+/g, ' ').trim().slice(0, ITEM_MAX_LENGTH) ?? '').filter(Boolean);
}

// ---------------------------------------------------------------------------------------------------------------------
// Views (ephemeral)

export function renderAdded(result: { added: number; refused: number; today: GratitudeRow[] }): View {
	const lines = result.today.map((row, i) => `${i + 1}. ${row.content}`);
	const head =
		result.added === 0
			? `You already have ${ITEMS_PER_DAY} good things today, the most for one day. Come back tomorrow.`
			: `🌱 Saved ${plural(result.added, 'good thing')} for today${result.refused ? ` (${result.refused} more did not fit: ${ITEMS_PER_DAY} a day)` : ''}.`;
	const room = ITEMS_PER_DAY - result.today.length;
	return {
		embeds: [
			{
				title: 'Three good things',
				color: COLOR,
				description: [head, '', ...lines].join('\n'),
				footer: {
					text: `${room > 0 ? `Room for ${room} more today. ` : ''}Only you can see this. Stored encrypted; counts towards your streak in /insights.`,
				},
			},
		],
	};
}

export function renderGratitudeList(byDay: Map<string, GratitudeRow[]>): View {
	if (byDay.size === 0) {
		return { content: `No good things in the last ${LIST_DAYS} days yet. \`/gratitude add\` takes up to three, however small.` };
	}
	const fields = [...byDay.entries()].map(([day, rows]) => ({
		name: new Date(`${day}T12:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }),
		value: rows.map((row) => `• ${row.content}`).join('\n'),
	}));
	return {
		embeds: [
			{
				title: `Your good things, last ${LIST_DAYS} days`,
				color: COLOR,
				fields,
				footer: { text: 'Only you can see this. Stored encrypted.' },
			},
		],
	};
}
