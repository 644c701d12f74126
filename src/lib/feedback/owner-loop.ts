import {
	DiscordAPIError,
	RESTJSONErrorCodes,
	Routes,
	TextInputStyle,
	ComponentType,
	type APIModalInteractionResponseCallbackData,
	type REST,
} from 'discord.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Feedback, type FeedbackStatus, type IFeedback } from '../db/index.ts';
import { NO_MENTIONS } from '../discord/reply.ts';

/**
 * The owners' side of the feedback loop: they hear of new feedback (an id and the queue's size, never the text, in
 * LOG_CHANNEL_ID or else by DM), they can answer the author by DM (`/feedback-manage reply`, `haven feedback reply`),
 * and the author can see what became of what they sent (`/feedback` without a message).
 */

// ---------------------------------------------------------------------------------------------------------------------
// New feedback

/** The line owners get: no text, no author, only where to look. */
export function newFeedbackLine(id: number, queued: number): string {
	return `New feedback #${id}: ${queued} waiting in the review queue. Open it with \`/feedback-manage view id:${id}\`.`;
}

export interface OwnerChannels {
	/** LOG_CHANNEL_ID, when set: the line goes there. */
	logChannel?: (line: string) => void;
	/** Otherwise a DM to each owner. */
	ownerIds: readonly string[];
	dm: (userId: string, content: string) => Promise<Delivery>;
	warn: (message: string) => void;
}

/** Tells the owners; never throws (a failure is logged). */
export async function announceFeedback(em: EntityManager, id: number, channels: OwnerChannels): Promise<void> {
	try {
		const line = newFeedbackLine(id, await em.count(Feedback, { status: 'queued' }));
		if (channels.logChannel) return channels.logChannel(line);
		for (const ownerId of channels.ownerIds) await channels.dm(ownerId, line);
	} catch (error) {
		channels.warn(`Feedback: could not tell the owners about #${id} (${error instanceof Error ? error.name : 'error'})`);
	}
}

// ---------------------------------------------------------------------------------------------------------------------
// Replying to the author

export type Delivery = 'sent' | 'closed' | 'failed';

/** A DM through Discord's REST API (the bot's client or the CLI's own REST client). */
export async function dmThroughRest(rest: REST, userId: string, content: string): Promise<Delivery> {
	try {
		const channel = (await rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as { id: string };
		await rest.post(Routes.channelMessages(channel.id), { body: { content, allowed_mentions: NO_MENTIONS } });
		return 'sent';
	} catch (error) {
		if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.CannotSendMessagesToThisUser) return 'closed';
		return 'failed';
	}
}

export const REPLY_MAX_LENGTH = 1_500;
export const REPLY_MODAL_PREFIX = 'fbr';
export const REPLY_FIELD = 'reply';

export function replyModal(id: number): APIModalInteractionResponseCallbackData {
	return {
		custom_id: `${REPLY_MODAL_PREFIX}:${id}`,
		title: `Reply to feedback #${id}`,
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.TextInput,
						custom_id: REPLY_FIELD,
						label: 'Your reply (sent to the author by DM)',
						style: TextInputStyle.Paragraph,
						min_length: 2,
						max_length: REPLY_MAX_LENGTH,
						required: true,
					},
				],
			},
		],
	};
}

export function parseReplyModal(customId: string): number | null {
	const [prefix, id, ...rest] = customId.split(':');
	const value = Number(id);
	return prefix === REPLY_MODAL_PREFIX && rest.length === 0 && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** The DM the author gets. It does not quote their feedback back (a DM can be seen over their shoulder). */
export function renderReplyDm(id: number, text: string): string {
	return `Haven's owners replied to your feedback #${id}:\n\n${text.trim()}\n\n_You can't answer this message; use \`/feedback\` to write to them again._`;
}

export type ReplyOutcome = Delivery | 'not_found' | 'empty';

export async function replyToFeedback(
	em: EntityManager,
	id: number,
	text: string,
	dm: (userId: string, content: string) => Promise<Delivery>,
): Promise<{ outcome: ReplyOutcome; userId?: string }> {
	const reply = text.trim().slice(0, REPLY_MAX_LENGTH);
	if (reply.length < 2) return { outcome: 'empty' };
	const row = await em.findOne(Feedback, { id }, { fields: ['id', 'userId'] });
	if (!row) return { outcome: 'not_found' };
	return { outcome: await dm(row.userId, renderReplyDm(id, reply)), userId: row.userId };
}

/** What the owner is told. */
export function describeReply(id: number, result: { outcome: ReplyOutcome; userId?: string }): string {
	switch (result.outcome) {
		case 'sent':
			return `Reply to feedback #${id} sent to its author by DM.`;
		case 'closed':
			return `Could not DM the author of feedback #${id}: they do not accept direct messages from Haven. Nothing was sent.`;
		case 'failed':
			return `Could not DM the author of feedback #${id}: Discord refused or did not answer. Nothing was sent; try again later.`;
		case 'not_found':
			return `There is no feedback #${id} (it may have been deleted).`;
		case 'empty':
			return 'The reply is empty: nothing was sent.';
	}
}

// ---------------------------------------------------------------------------------------------------------------------
// The author's own view

export const OWN_FEEDBACK_SHOWN = 5;

export interface OwnFeedback {
	id: number;
	message: string;
	state: 'queued' | 'approved' | 'published' | 'not_published';
	createdAt: string;
	reviewedAt: string | null;
}

export function ownState(row: Pick<IFeedback, 'status' | 'public'>): OwnFeedback['state'] {
	const status = row.status as FeedbackStatus;
	if (status === 'approved') return row.public ? 'published' : 'approved';
	return status === 'rejected' ? 'not_published' : 'queued';
}

/** The person's last few submissions, newest first. */
export async function ownFeedback(em: EntityManager, userId: string, limit = OWN_FEEDBACK_SHOWN): Promise<{ items: OwnFeedback[]; total: number }> {
	const [rows, total] = await em.findAndCount(Feedback, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
	return {
		items: rows.map((row) => ({
			id: row.id,
			message: row.message ?? '',
			state: ownState(row),
			createdAt: row.createdAt.toISOString(),
			reviewedAt: row.reviewedAt?.toISOString() ?? null,
		})),
		total,
	};
}
