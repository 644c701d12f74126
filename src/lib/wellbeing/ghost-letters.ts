import type { EntityManager } from '@mikro-orm/postgresql';
import { ComponentType, TextInputStyle, type APIModalInteractionResponseCallbackData } from 'discord.js';
import { GhostLetter } from '../db/index.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { plural } from '../discord/text.ts';
import { pageButtonIds, pagerRow, renderClearConfirm as confirmClear, type PrivatePages } from './private-pages.ts';

/**
 * Ghost letters: something a person needs to let out. "keep" stores it encrypted (the column type) and only its author
 * can read it back, one letter at a time, in ephemeral messages; "letgo" stores nothing at all, not even a count.
 * Every button carries its author's id and is refused to anyone else.
 */

export const LETTER_MAX_LENGTH = 4_000;
/** Letters one person can keep; beyond it they are asked to clear some. */
export const MAX_KEPT_LETTERS = 100;

export type LetterMode = 'keep' | 'letgo';

// ---------------------------------------------------------------------------------------------------------------------
// Custom ids

export const MODAL_PREFIX = 'ghostletter-modal';
export const MODAL_FIELD = 'letter';
export const BUTTON_PREFIX = 'ghostletter';

export const LETTER_BUTTONS = pageButtonIds(BUTTON_PREFIX);

export function parseModalId(customId: string): LetterMode | null {
	const match = /^ghostletter-modal:(keep|letgo)$/.exec(customId);
	return match ? (match[1] as LetterMode) : null;
}

export function letterModal(mode: LetterMode): APIModalInteractionResponseCallbackData {
	return {
		custom_id: `${MODAL_PREFIX}:${mode}`,
		title: mode === 'keep' ? 'A letter to keep (only you can read it)' : 'A letter to let go (nothing is stored)',
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.TextInput,
						custom_id: MODAL_FIELD,
						label: 'Write whatever you need to let out',
						style: TextInputStyle.Paragraph,
						min_length: 1,
						max_length: LETTER_MAX_LENGTH,
						required: true,
						placeholder: mode === 'keep' ? 'Stored encrypted. Nobody else can read it.' : 'Nothing you write here is saved.',
					},
				],
			},
		],
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Data

export interface LetterRow {
	id: number;
	content: string;
	createdAt: Date;
}

export async function countLetters(em: EntityManager, userId: string): Promise<number> {
	return em.count(GhostLetter, { userId });
}

/** Keeps a letter; null when the person already keeps the maximum. */
export async function keepLetter(em: EntityManager, userId: string, content: string): Promise<{ id: number; total: number } | null> {
	const total = await countLetters(em, userId);
	if (total >= MAX_KEPT_LETTERS) return null;
	const letter = em.create(GhostLetter, { userId, content });
	await em.flush();
	return { id: letter.id, total: total + 1 };
}

/** The `index`-th letter, newest first (0 = newest), and how many there are. */
export async function letterAt(
	em: EntityManager,
	userId: string,
	index: number,
): Promise<{ letter: LetterRow | null; total: number; index: number }> {
	const total = await countLetters(em, userId);
	if (total === 0) return { letter: null, total, index: 0 };
	const at = Math.min(Math.max(0, index), total - 1);
	const [row] = await em.find(GhostLetter, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, offset: at, limit: 1 });
	return { letter: row ? { id: row.id, content: row.content, createdAt: row.createdAt } : null, total, index: at };
}

export async function deleteLetter(em: EntityManager, userId: string, letterId: number): Promise<boolean> {
	return (await em.nativeDelete(GhostLetter, { id: letterId, userId })) > 0;
}

export async function clearLetters(em: EntityManager, userId: string): Promise<number> {
	return em.nativeDelete(GhostLetter, { userId });
}

// ---------------------------------------------------------------------------------------------------------------------
// Views (all ephemeral)

export function renderKept(total: number): View {
	return {
		content: `🔒 Kept. Your letter is stored encrypted and only you can read it, with \`/ghostletter read\`. You keep ${plural(total, 'letter')}. \`/ghostletter clear\` deletes them all.`,
	};
}

export const LIMIT_REACHED = `You already keep ${MAX_KEPT_LETTERS} letters, the most Haven stores. \`/ghostletter read\` lets you delete some, or \`/ghostletter clear\` deletes them all. (\`/ghostletter letgo\` always works: it stores nothing.)`;

export const LET_GO = [
	'💨 Let go. Nothing you wrote was saved: not the words, not a trace.',
	'',
	'Writing things down can take a little of their weight. Take a slow breath before you go back to your day.',
].join('\n');

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

export function renderLetter(userId: string, page: { letter: LetterRow | null; total: number; index: number }, notice?: string): View {
	if (!page.letter) {
		return {
			content: `${notice ? `${notice}\n` : ''}You have no kept letters. \`/ghostletter keep\` writes one; only you will ever read it.`,
			embeds: [],
			components: [],
		};
	}
	const { letter, total, index } = page;
	return {
		content: notice ?? '',
		embeds: [
			{
				title: `Ghost letter ${index + 1} of ${total}`,
				color: COLOR,
				description: letter.content,
				fields: [{ name: 'Written', value: `<t:${unix(letter.createdAt)}:f>` }],
				footer: { text: 'Only you can see this. Stored encrypted.' },
			},
		],
		components: [pagerRow(LETTER_BUTTONS, { userId, index, total, id: letter.id }, 'Delete this letter')],
	};
}

export function renderClearConfirm(userId: string, total: number): View {
	if (total === 0) return { content: 'You have no kept letters: there is nothing to clear.', components: [] };
	return confirmClear(LETTER_BUTTONS, userId, `Delete all ${plural(total, 'kept letter')}?`, `Delete ${plural(total, 'letter')}`);
}

export function renderCleared(deleted: number): View {
	return {
		content: deleted ? `🗑️ Deleted ${plural(deleted, 'letter')}. They are gone for good.` : 'There was nothing to delete.',
		embeds: [],
		components: [],
	};
}

export const CLEAR_CANCELLED: View = { content: 'Cancelled: your letters are untouched.', embeds: [], components: [] };

export const NOT_YOURS = 'These buttons belong to someone else’s private letters.';

export const LETTER_PAGES: PrivatePages<Awaited<ReturnType<typeof letterAt>>> = {
	at: letterAt,
	remove: deleteLetter,
	clear: clearLetters,
	render: renderLetter,
	renderCleared,
	cancelled: CLEAR_CANCELLED,
	noun: 'letter',
};
