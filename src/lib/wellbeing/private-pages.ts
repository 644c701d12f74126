import type { EntityManager } from '@mikro-orm/postgresql';
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponent } from 'discord.js';
import { button } from '../discord/buttons.ts';
import type { View } from '../discord/reply.ts';

/**
 * A private collection of a person's own writing (journal entries, kept ghost letters), read one item at a time in
 * ephemeral messages: Newer / Older / Delete this one, and "delete them all" after a confirmation. Each button carries
 * its author's id (the handlers refuse anyone else) and the collection's prefix.
 */

export type PageButton =
	| { kind: 'page'; userId: string; index: number }
	| { kind: 'delete'; userId: string; id: number }
	| { kind: 'clear'; userId: string; confirm: boolean };

export interface PageButtonIds {
	page(userId: string, index: number): string;
	remove(userId: string, id: number): string;
	clear(userId: string, confirm: boolean): string;
	parse(customId: string): PageButton | null;
}

export function pageButtonIds(prefix: string): PageButtonIds {
	const pattern = new RegExp(`^${prefix}:(page|delete|clear):(\\d{17,20}):(\\d{1,9}|yes|no)$`);
	return {
		page: (userId, index) => `${prefix}:page:${userId}:${index}`,
		remove: (userId, id) => `${prefix}:delete:${userId}:${id}`,
		clear: (userId, confirm) => `${prefix}:clear:${userId}:${confirm ? 'yes' : 'no'}`,
		parse(customId) {
			const match = pattern.exec(customId);
			if (!match) return null;
			const [, kind, userId, arg] = match as unknown as [string, 'page' | 'delete' | 'clear', string, string];
			if (kind === 'clear') return arg === 'yes' || arg === 'no' ? { kind, userId, confirm: arg === 'yes' } : null;
			if (!/^\d+$/.test(arg)) return null;
			return kind === 'page' ? { kind, userId, index: Number(arg) } : { kind, userId, id: Number(arg) };
		},
	};
}

/** Newer / Older / Delete this one, for the item at `index` (0 = newest) of `total`. */
export function pagerRow(
	ids: PageButtonIds,
	page: { userId: string; index: number; total: number; id: number },
	deleteLabel: string,
): APIActionRowComponent<APIButtonComponent> {
	const { userId, index, total, id } = page;
	return {
		type: ComponentType.ActionRow,
		components: [
			button('Newer', ids.page(userId, index - 1), ButtonStyle.Secondary, index === 0),
			button('Older', ids.page(userId, index + 1), ButtonStyle.Secondary, index >= total - 1),
			button(deleteLabel, ids.remove(userId, id), ButtonStyle.Danger),
		],
	};
}

/** "Delete them all?" with the confirm and cancel buttons. */
export function renderClearConfirm(ids: PageButtonIds, userId: string, question: string, confirmLabel: string): View {
	return {
		content: `${question} This cannot be undone.`,
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button(confirmLabel, ids.clear(userId, true), ButtonStyle.Danger),
					button('Cancel', ids.clear(userId, false), ButtonStyle.Secondary),
				],
			},
		],
	};
}

/** What a collection stores and shows; `Page` is what `at` returns for one item and its place. */
export interface PrivatePages<Page> {
	at(em: EntityManager, userId: string, index: number): Promise<Page>;
	remove(em: EntityManager, userId: string, id: number): Promise<boolean>;
	clear(em: EntityManager, userId: string): Promise<number>;
	render(userId: string, page: Page, notice?: string): View;
	renderCleared(deleted: number): View;
	cancelled: View;
	/** What one item is called in "Deleted that entry for good." */
	noun: string;
}

/** What pressing one of the collection's buttons does, as the view that replaces the message. */
export async function pressPageButton<Page>(pages: PrivatePages<Page>, em: () => EntityManager, pressed: PageButton): Promise<View> {
	const { userId } = pressed;
	switch (pressed.kind) {
		case 'page':
			return pages.render(userId, await pages.at(em(), userId, pressed.index));
		case 'delete': {
			const deleted = await pages.remove(em(), userId, pressed.id);
			const notice = deleted ? `🗑️ Deleted that ${pages.noun} for good.` : `That ${pages.noun} was already deleted.`;
			return pages.render(userId, await pages.at(em(), userId, 0), notice);
		}
		case 'clear':
			return pressed.confirm ? pages.renderCleared(await pages.clear(em(), userId)) : pages.cancelled;
	}
}
