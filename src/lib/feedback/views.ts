import { ButtonStyle, ComponentType, escapeMarkdown, type APIButtonComponentWithCustomId, type APIEmbed } from 'discord.js';
import type { FeedbackFilter, FeedbackView } from './store.ts';
import type { OwnFeedback } from './owner-loop.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { discordTime, excerpt, plural } from '../discord/text.ts';

/**
 * Views of `/feedback` and `/feedback-manage`, and the custom ids of their buttons. Pure.
 * Custom ids: `fbm:list:<filter>:<page>` (a page of the list) and `fbm:<action>:<id>` (an action on one item).
 */

export const FEEDBACK_PAGE_SIZE = 5;
export const FEEDBACK_PREFIX = 'fbm';

export const FEEDBACK_ACTIONS = [
	'view',
	'approve-public',
	'approve-private',
	'feature',
	'unfeature',
	'unapprove',
	'reject',
	'delete',
	'delete-confirm',
	'reply',
] as const;
export type FeedbackAction = (typeof FEEDBACK_ACTIONS)[number];

export type FeedbackButton = { kind: 'list'; filter: FeedbackFilter; page: number } | { kind: 'action'; action: FeedbackAction; id: number };

const FILTERS: readonly FeedbackFilter[] = ['queued', 'approved', 'rejected', 'all'];

export function listId(filter: FeedbackFilter, page: number): string {
	return `${FEEDBACK_PREFIX}:list:${filter}:${page}`;
}

export function actionId(action: FeedbackAction, id: number): string {
	return `${FEEDBACK_PREFIX}:${action}:${id}`;
}

export function parseFeedbackButton(customId: string): FeedbackButton | null {
	const parts = customId.split(':');
	if (parts[0] !== FEEDBACK_PREFIX) return null;
	if (parts[1] === 'list' && parts.length === 4) {
		const filter = parts[2] as FeedbackFilter;
		const page = Number(parts[3]);
		return FILTERS.includes(filter) && Number.isSafeInteger(page) ? { kind: 'list', filter, page } : null;
	}
	const action = parts[1] as FeedbackAction;
	const id = Number(parts[2]);
	if (parts.length !== 3 || !FEEDBACK_ACTIONS.includes(action) || !Number.isSafeInteger(id) || id < 1) return null;
	return { kind: 'action', action, id };
}

const button = (custom_id: string, label: string, style: ButtonStyle, disabled = false): APIButtonComponentWithCustomId => ({
	type: ComponentType.Button,
	style: style as APIButtonComponentWithCustomId['style'],
	custom_id,
	label,
	disabled,
});

const row = (...components: APIButtonComponentWithCustomId[]) => ({ type: ComponentType.ActionRow as const, components });

// -------------------------------------------------------------------------------------------------------------------
// /feedback

export function renderFeedbackReceived(consentPublic: boolean): View {
	return {
		content: [
			"Thank you. Your feedback is in the owners' review queue.",
			consentPublic
				? 'You said it may be quoted publicly: if an owner approves it, it may appear as a testimonial, without your name.'
				: 'It stays private: it will not be shown publicly.',
		].join(' '),
	};
}

const OWN_STATE: Record<OwnFeedback['state'], string> = {
	queued: 'queued: waiting for an owner to read it',
	approved: 'approved: read and kept, not shown publicly',
	published: 'published: shown as a testimonial, without your name',
	not_published: 'reviewed: it will not be shown publicly',
};

/** `/feedback` without a message: what became of what the person sent. */
export function renderOwnFeedback(items: readonly OwnFeedback[], total: number): View {
	if (!items.length) return { content: "You haven't sent any feedback yet. Write some with `/feedback message:`." };
	const description = items
		.map(
			(item) =>
				`**#${item.id}** · ${discordTime(item.createdAt, 'd')} · ${OWN_STATE[item.state]}\n> ${escapeMarkdown(excerpt(item.message, 120)) || '(empty)'}`,
		)
		.join('\n\n');
	return {
		embeds: [
			{
				title: 'Your feedback',
				color: COLOR,
				description,
				footer: { text: total > items.length ? `The last ${items.length} of ${plural(total, 'message')}` : plural(total, 'message') },
			},
		],
	};
}

// -------------------------------------------------------------------------------------------------------------------
// /feedback-manage

function marks(item: FeedbackView): string {
	const list: string[] = [item.status];
	if (item.public) list.push('public');
	if (item.featured) list.push('featured');
	if (item.consentPublic) list.push('may be quoted');
	return list.join(' · ');
}

export interface FeedbackListInput {
	items: readonly FeedbackView[];
	filter: FeedbackFilter;
	page: number;
	pages: number;
	total: number;
	notice?: string;
}

export function renderFeedbackList({ items, filter, page, pages, total, notice }: FeedbackListInput): View {
	const what = filter === 'all' ? 'feedback' : `${filter} feedback`;
	const description = items.length
		? items
				.map(
					(item) =>
						`**#${item.id}** · ${discordTime(item.createdAt, 'd')} · ${marks(item)} · via ${item.source}\n> ${escapeMarkdown(excerpt(item.message, 160)) || '(empty)'}`,
				)
				.join('\n\n')
		: `No ${what}.`;
	const embed: APIEmbed = {
		title: `Feedback: ${filter}`,
		color: COLOR,
		description,
		footer: { text: `Page ${page + 1} of ${pages} · ${plural(total, 'item')}` },
	};
	const components: View['components'] = [
		row(
			button(listId(filter, page - 1), 'Previous', ButtonStyle.Secondary, page <= 0),
			button(listId(filter, page), 'Refresh', ButtonStyle.Secondary),
			button(listId(filter, page + 1), 'Next', ButtonStyle.Secondary, page >= pages - 1),
		),
	];
	if (items.length)
		components.push(row(...items.slice(0, 5).map((item) => button(actionId('view', item.id), `Open #${item.id}`, ButtonStyle.Primary))));
	return { content: notice ?? '', embeds: [embed], components };
}

export function renderFeedbackItem(item: FeedbackView, notice?: string): View {
	const fields = [
		{ name: 'Status', value: item.status, inline: true },
		{ name: 'Public', value: item.public ? 'yes' : 'no', inline: true },
		{ name: 'Featured', value: item.featured ? 'yes' : 'no', inline: true },
		{ name: 'Author agreed to be quoted', value: item.consentPublic ? 'yes' : 'no', inline: true },
		{ name: 'From', value: `<@${item.userId}> (${item.userId}) via ${item.source}`, inline: true },
		{ name: 'Received', value: discordTime(item.createdAt), inline: true },
	];
	if (item.reviewedAt)
		fields.push({
			name: 'Reviewed',
			value: `${discordTime(item.reviewedAt)}${item.reviewerId ? ` by <@${item.reviewerId}>` : ''}`,
			inline: true,
		});
	const approved = item.status === 'approved';
	const warning = !item.consentPublic && !item.public ? '\n\n_The author did not agree to be quoted publicly._' : '';
	return {
		content: notice ?? '',
		embeds: [{ title: `Feedback #${item.id}`, color: COLOR, description: `${escapeMarkdown(item.message) || '(empty)'}${warning}`, fields }],
		components: [
			row(
				button(actionId('approve-public', item.id), 'Approve as public', ButtonStyle.Success, approved && item.public),
				button(actionId('approve-private', item.id), 'Approve privately', ButtonStyle.Success, approved && !item.public),
				item.featured
					? button(actionId('unfeature', item.id), 'Unfeature', ButtonStyle.Secondary)
					: button(actionId('feature', item.id), 'Feature', ButtonStyle.Secondary, !(approved && item.public)),
				button(actionId('unapprove', item.id), 'Unapprove', ButtonStyle.Secondary, !approved),
			),
			row(
				button(actionId('reject', item.id), 'Reject', ButtonStyle.Danger, item.status === 'rejected'),
				button(actionId('delete', item.id), 'Delete', ButtonStyle.Danger),
				button(actionId('reply', item.id), 'Reply by DM', ButtonStyle.Primary),
				button(listId(item.status, 0), `Back to ${item.status}`, ButtonStyle.Secondary),
			),
		],
	};
}

export function renderDeleteConfirm(item: FeedbackView): View {
	return {
		content: `Delete feedback #${item.id} for good? This cannot be undone.`,
		embeds: [{ title: `Feedback #${item.id}`, color: COLOR, description: escapeMarkdown(excerpt(item.message, 500)) || '(empty)' }],
		components: [
			row(
				button(actionId('delete-confirm', item.id), 'Delete for good', ButtonStyle.Danger),
				button(actionId('view', item.id), 'Cancel', ButtonStyle.Secondary),
			),
		],
	};
}

export function renderFeedbackNotice(content: string): View {
	return { content, embeds: [], components: [] };
}

/** What an action did, in one line for the owner. */
export function actionNotice(action: FeedbackAction, item: FeedbackView): string {
	switch (action) {
		case 'approve-public':
			return `Approved #${item.id} as public: it is now a testimonial.`;
		case 'approve-private':
			return `Approved #${item.id}; it stays private.`;
		case 'feature':
			return `Featured #${item.id}: it is shown first among testimonials.`;
		case 'unfeature':
			return `#${item.id} is no longer featured.`;
		case 'unapprove':
			return `#${item.id} is back in the queue and no longer public.`;
		case 'reject':
			return `Rejected #${item.id}; it will never be shown.`;
		default:
			return '';
	}
}
