import type { EntityManager } from '@mikro-orm/postgresql';
import { ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData } from 'discord.js';
import type { Ai } from '../ai/index.ts';
import { JournalEntry } from '../db/index.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { excerpt, plural } from '../discord/text.ts';
import { generate, parsePlain, type Generated } from './ai.ts';
import { isMood, moodOf } from './checkins.ts';
import { pageButtonIds, pagerRow, renderClearConfirm as confirmClear, type PrivatePages } from './private-pages.ts';

/**
 * The private journal: entries written in a writing box (modal), with an optional mood, stored encrypted (the
 * column type, bound to the row and its author). Listed by date, read one at a time, deleted one at a time or all
 * after a confirmation. Every button carries its author's id and is refused to anyone else. After writing, the
 * person may ask for a short supportive reflection (the AI, or a fixed one without it); it is stored encrypted with
 * the entry.
 */

export const ENTRY_MAX_LENGTH = 4_000;
/** Entries one person can keep; beyond it they are asked to delete some. */
export const MAX_ENTRIES = 500;
export const LIST_SIZE = 10;
export const REFLECTION_MAX_LENGTH = 400;

// ---------------------------------------------------------------------------------------------------------------------
// Custom ids

export const MODAL_PREFIX = 'journal-modal';
export const MODAL_FIELD = 'entry';
export const BUTTON_PREFIX = 'journal';

export interface JournalModal {
	mood: string | null;
	reflect: boolean;
}

export const JOURNAL_BUTTONS = pageButtonIds(BUTTON_PREFIX);

export function modalId(options: JournalModal): string {
	return `${MODAL_PREFIX}:${options.mood ?? '-'}:${options.reflect ? 'r' : '-'}`;
}

export function parseModalId(customId: string): JournalModal | null {
	const match = /^journal-modal:([a-z]{1,32}|-):(r|-)$/.exec(customId);
	if (!match) return null;
	const mood = match[1] === '-' ? null : match[1]!;
	if (mood !== null && !isMood(mood)) return null;
	return { mood, reflect: match[2] === 'r' };
}

export function journalModal(options: JournalModal): APIModalInteractionResponseCallbackData {
	const mood = options.mood ? moodOf(options.mood) : null;
	return {
		custom_id: modalId(options),
		title: mood ? `Journal (${mood.label.toLowerCase()})` : 'Journal (only you can read it)',
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.TextInput,
						custom_id: MODAL_FIELD,
						label: 'What is on your mind?',
						style: TextInputStyle.Paragraph,
						min_length: 1,
						max_length: ENTRY_MAX_LENGTH,
						required: true,
						placeholder: 'Stored encrypted. Nobody else can read it.',
					},
				],
			},
		],
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Data

export interface EntryRow {
	id: number;
	mood: string | null;
	content: string;
	reflection: string | null;
	createdAt: Date;
}

const toRow = (row: { id: number; mood?: string | null; content: string; reflection?: string | null; createdAt: Date }): EntryRow => ({
	id: row.id,
	mood: row.mood ?? null,
	content: row.content,
	reflection: row.reflection ?? null,
	createdAt: row.createdAt,
});

export async function countEntries(em: EntityManager, userId: string): Promise<number> {
	return em.count(JournalEntry, { userId });
}

/** Saves an entry; null when the person already keeps the maximum. */
export async function writeEntry(
	em: EntityManager,
	input: { userId: string; mood: string | null; content: string },
): Promise<{ id: number; total: number } | null> {
	const total = await countEntries(em, input.userId);
	if (total >= MAX_ENTRIES) return null;
	const entry = em.create(JournalEntry, { userId: input.userId, mood: input.mood, content: input.content, reflection: null });
	await em.flush();
	return { id: entry.id, total: total + 1 };
}

export async function saveReflection(em: EntityManager, userId: string, entryId: number, reflection: string): Promise<void> {
	const entry = await em.findOne(JournalEntry, { id: entryId, userId });
	if (!entry) return;
	entry.reflection = reflection;
	await em.flush();
}

/** The newest entries first. */
export async function listEntries(em: EntityManager, userId: string, limit = LIST_SIZE): Promise<EntryRow[]> {
	const rows = await em.find(JournalEntry, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
	return rows.map(toRow);
}

/** Entries written since `since`, oldest first (for /insights). */
export async function entriesSince(em: EntityManager, userId: string, since: Date): Promise<EntryRow[]> {
	const rows = await em.find(JournalEntry, { userId, createdAt: { $gte: since } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
	return rows.map(toRow);
}

/** The `index`-th entry, newest first (0 = newest), and how many there are. */
export async function entryAt(em: EntityManager, userId: string, index: number): Promise<{ entry: EntryRow | null; total: number; index: number }> {
	const total = await countEntries(em, userId);
	if (total === 0) return { entry: null, total, index: 0 };
	const at = Math.min(Math.max(0, index), total - 1);
	const [row] = await em.find(JournalEntry, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, offset: at, limit: 1 });
	return { entry: row ? toRow(row) : null, total, index: at };
}

export async function deleteEntry(em: EntityManager, userId: string, entryId: number): Promise<boolean> {
	return (await em.nativeDelete(JournalEntry, { id: entryId, userId })) > 0;
}

export async function clearEntries(em: EntityManager, userId: string): Promise<number> {
	return em.nativeDelete(JournalEntry, { userId });
}

// ---------------------------------------------------------------------------------------------------------------------
// Reflection

export const REFLECTION_FALLBACK =
	'Thank you for taking a moment to write this down. Putting things into words is a way of looking after yourself, whatever the day held.';

const REFLECTION_SYSTEM = [
	'The person just wrote a private journal entry and asked for a short reflection on it.',
	`Answer in at most three sentences (under ${REFLECTION_MAX_LENGTH} characters), warm and plain, in the language they wrote in.`,
	'Reflect back what they seem to feel and one thing that sounds like a strength or a small step. No advice lists, no',
	'questions they must answer, no diagnosis or labels, no promises. Do not quote their words at length.',
].join(' ');

export async function reflect(
	ai: Ai,
	entry: { content: string; mood: string | null },
	options: { careful: boolean; user?: string },
): Promise<Generated<string>> {
	const mood = entry.mood ? `Mood they picked: ${moodOf(entry.mood).label}.\n` : '';
	return generate(ai, {
		system: REFLECTION_SYSTEM,
		prompt: `${mood}Journal entry:\n${entry.content}`,
		parse: (text) => parsePlain(text, { max: REFLECTION_MAX_LENGTH, min: 10 }),
		fallback: () => REFLECTION_FALLBACK,
		careful: options.careful,
		user: options.user,
		maxTokens: 200,
	});
}

// ---------------------------------------------------------------------------------------------------------------------
// Views (all ephemeral)

const unix = (date: Date) => Math.floor(date.getTime() / 1000);
const moodText = (mood: string | null) => (mood ? `${moodOf(mood).emoji} ${moodOf(mood).label}` : 'no mood');

export function renderWritten(total: number, reflection?: Generated<string>): View {
	const lines = [
		`📓 Saved. Your entry is stored encrypted and only you can read it (\`/journal read\`). You keep ${plural(total, 'entry', 'entries')}.`,
	];
	if (reflection) {
		lines.push('', `> ${reflection.value.replace(/\n+/g, '\n> ')}`);
		if (reflection.fromAi) lines.push('-# A short reflection written by AI. It may be wrong about you.');
	}
	return { content: lines.join('\n') };
}

export const LIMIT_REACHED = `You already keep ${MAX_ENTRIES} journal entries, the most Haven stores. \`/journal read\` lets you delete some, or \`/journal delete\` deletes them all.`;

export function renderList(rows: readonly EntryRow[], total: number): View {
	if (rows.length === 0) return { content: 'Your journal is empty. `/journal write` opens a private writing box.' };
	const lines = rows.map((row, i) => `**${i + 1}.** <t:${unix(row.createdAt)}:f> · ${moodText(row.mood)} · ${excerpt(row.content, 60)}`);
	return {
		embeds: [
			{
				title: `Your journal: ${plural(total, 'entry', 'entries')}${total > rows.length ? ` (newest ${rows.length})` : ''}`,
				color: COLOR,
				description: lines.join('\n'),
				footer: { text: 'Only you can see this. /journal read number:N opens one; stored encrypted.' },
			},
		],
	};
}

export function renderEntry(userId: string, page: { entry: EntryRow | null; total: number; index: number }, notice?: string): View {
	if (!page.entry) {
		return {
			content: `${notice ? `${notice}\n` : ''}Your journal is empty. \`/journal write\` opens a private writing box.`,
			embeds: [],
			components: [],
		};
	}
	const { entry, total, index } = page;
	const fields = [
		{ name: 'Written', value: `<t:${unix(entry.createdAt)}:f>`, inline: true },
		{ name: 'Mood', value: moodText(entry.mood), inline: true },
	];
	if (entry.reflection) fields.push({ name: 'Reflection', value: entry.reflection, inline: false });
	return {
		content: notice ?? '',
		embeds: [
			{
				title: `Journal entry ${index + 1} of ${total}`,
				color: COLOR,
				description: entry.content,
				fields,
				footer: { text: 'Only you can see this. Stored encrypted.' },
			},
		],
		components: [pagerRow(JOURNAL_BUTTONS, { userId, index, total, id: entry.id }, 'Delete this entry')],
	};
}

export function renderClearConfirm(userId: string, total: number): View {
	if (total === 0) return { content: 'Your journal is empty: there is nothing to delete.', components: [] };
	return confirmClear(
		JOURNAL_BUTTONS,
		userId,
		`Delete all ${plural(total, 'journal entry', 'journal entries')}?`,
		`Delete ${plural(total, 'entry', 'entries')}`,
	);
}

export function renderCleared(deleted: number): View {
	return {
		content: deleted
			? `🗑️ Deleted ${plural(deleted, 'journal entry', 'journal entries')}. They are gone for good.`
			: 'There was nothing to delete.',
		embeds: [],
		components: [],
	};
}

export const CLEAR_CANCELLED: View = { content: 'Cancelled: your journal is untouched.', embeds: [], components: [] };

export const NOT_YOURS = 'These buttons belong to someone else’s private journal.';

export const JOURNAL_PAGES: PrivatePages<Awaited<ReturnType<typeof entryAt>>> = {
	at: entryAt,
	remove: deleteEntry,
	clear: clearEntries,
	render: renderEntry,
	renderCleared,
	cancelled: CLEAR_CANCELLED,
	noun: 'entry',
};
