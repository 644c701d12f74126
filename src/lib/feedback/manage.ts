import type { EntityManager } from '@mikro-orm/postgresql';
import { Feedback } from '../db/index.ts';
import {
	approveFeedback,
	deleteFeedback,
	FeedbackError,
	pageFeedback,
	rejectFeedback,
	setFeatured,
	unapproveFeedback,
	viewFeedback,
	type FeedbackFilter,
} from './store.ts';
import {
	actionNotice,
	FEEDBACK_PAGE_SIZE,
	renderDeleteConfirm,
	renderFeedbackItem,
	renderFeedbackList,
	renderFeedbackNotice,
	type FeedbackAction,
} from './views.ts';
import type { View } from '../discord/reply.ts';

/**
 * What `/feedback-manage` and its buttons do, on the queue operations of src/lib/feedback/store.ts. Each call gets its own
 * forked EntityManager. A missing id or an action that does not apply is an answer for the owner, not an error.
 */

export async function feedbackListView(em: EntityManager, filter: FeedbackFilter, page: number, notice?: string): Promise<View> {
	const result = await pageFeedback(em, filter, page, FEEDBACK_PAGE_SIZE);
	return renderFeedbackList({ items: result.items.map(viewFeedback), filter, page: result.page, pages: result.pages, total: result.total, notice });
}

export async function feedbackActionView(em: EntityManager, action: FeedbackAction, id: number, reviewerId: string): Promise<View> {
	try {
		switch (action) {
			case 'view':
			case 'reply': // a modal, opened by the button handler; anywhere else it shows the item
			case 'delete': {
				const row = await em.findOne(Feedback, { id });
				if (!row) throw new FeedbackError('not_found', `No feedback with id ${id}`);
				return action === 'delete' ? renderDeleteConfirm(viewFeedback(row)) : renderFeedbackItem(viewFeedback(row));
			}
			case 'delete-confirm':
				await deleteFeedback(em, id);
				return renderFeedbackNotice(`Deleted feedback #${id}.`);
			case 'approve-public':
			case 'approve-private': {
				const row = await approveFeedback(em, id, { public: action === 'approve-public', reviewerId });
				const item = viewFeedback(row);
				return renderFeedbackItem(item, actionNotice(action, item));
			}
			case 'feature':
			case 'unfeature': {
				const item = viewFeedback(await setFeatured(em, id, action === 'feature'));
				return renderFeedbackItem(item, actionNotice(action, item));
			}
			case 'unapprove': {
				const item = viewFeedback(await unapproveFeedback(em, id, { reviewerId }));
				return renderFeedbackItem(item, actionNotice(action, item));
			}
			case 'reject': {
				const item = viewFeedback(await rejectFeedback(em, id, { reviewerId }));
				return renderFeedbackItem(item, actionNotice(action, item));
			}
		}
	} catch (error) {
		if (error instanceof FeedbackError)
			return renderFeedbackNotice(error.kind === 'not_found' ? `There is no feedback #${id} (it may have been deleted).` : `${error.message}.`);
		throw error;
	}
}

/** `approve` with both flags, as the slash command offers them: featured implies public. */
export async function approveView(em: EntityManager, id: number, options: { public: boolean; featured: boolean }, reviewerId: string): Promise<View> {
	try {
		const isPublic = options.public || options.featured;
		const item = viewFeedback(await approveFeedback(em, id, { public: isPublic, featured: options.featured, reviewerId }));
		const notice = options.featured
			? `Approved #${id} as a featured public testimonial.`
			: actionNotice(isPublic ? 'approve-public' : 'approve-private', item);
		return renderFeedbackItem(item, notice);
	} catch (error) {
		if (error instanceof FeedbackError)
			return renderFeedbackNotice(error.kind === 'not_found' ? `There is no feedback #${id} (it may have been deleted).` : `${error.message}.`);
		throw error;
	}
}
