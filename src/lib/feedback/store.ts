import type { EntityManager } from '@mikro-orm/postgresql';
import { DecryptionError } from '../db/field-cipher.ts';
import { Feedback, FEEDBACK_STATUSES, type FeedbackStatus, type IFeedback } from '../db/index.ts';

/**
 * The owners' feedback queue, shared by `POST /v1/feedback`, `GET /v1/testimonials`, `haven feedback ...` and the
 * Discord `/feedback-manage` command. Each function takes a forked EntityManager and flushes its own changes.
 *
 * Lifecycle: submitted -> `queued` (never public) -> `approved` (private unless the owner marks it public, and only
 * public approved feedback can be featured) or `rejected`. Messages are encrypted at rest by the column type.
 */

export class FeedbackError extends Error {
	readonly kind: 'not_found' | 'invalid';
	constructor(kind: FeedbackError['kind'], message: string) {
		super(message);
		this.name = 'FeedbackError';
		this.kind = kind;
	}
}

export type FeedbackFilter = FeedbackStatus | 'all';
export const FEEDBACK_FILTERS: readonly FeedbackFilter[] = [...FEEDBACK_STATUSES, 'all'];

export interface FeedbackView {
	id: number;
	userId: string;
	message: string;
	source: string;
	status: FeedbackStatus;
	consentPublic: boolean;
	public: boolean;
	featured: boolean;
	reviewerId: string | null;
	reviewedAt: string | null;
	createdAt: string;
}

export function viewFeedback(row: IFeedback): FeedbackView {
	return {
		id: row.id,
		userId: row.userId,
		message: row.message ?? '',
		source: row.source,
		status: row.status as FeedbackStatus,
		consentPublic: row.consentPublic,
		public: row.public,
		featured: row.featured,
		reviewerId: row.reviewerId ?? null,
		reviewedAt: row.reviewedAt?.toISOString() ?? null,
		createdAt: row.createdAt.toISOString(),
	};
}

export interface Submission {
	userId: string;
	message: string;
	/** Where it came from: 'api', 'discord' ... */
	source: string;
	/** The author agreed that it may be shown publicly (the owner still decides). */
	consentPublic?: boolean;
}

/** Stores feedback in the queue; resolves once it is committed. */
export async function submitFeedback(em: EntityManager, submission: Submission): Promise<IFeedback> {
	const row = em.create(Feedback, {
		userId: submission.userId,
		message: submission.message,
		source: submission.source,
		status: 'queued',
		consentPublic: submission.consentPublic ?? false,
	});
	await em.flush();
	return row;
}

/** Oldest first for the queue (review order), newest first otherwise. */
export async function listFeedback(em: EntityManager, filter: FeedbackFilter = 'queued', limit = 50): Promise<IFeedback[]> {
	return em.find(Feedback, filter === 'all' ? {} : { status: filter }, {
		orderBy: { createdAt: filter === 'queued' ? 'asc' : 'desc', id: filter === 'queued' ? 'asc' : 'desc' },
		limit,
	});
}

async function load(em: EntityManager, id: number): Promise<IFeedback> {
	const row = Number.isSafeInteger(id) && id > 0 ? await em.findOne(Feedback, { id }) : null;
	if (!row) throw new FeedbackError('not_found', `No feedback with id ${id}`);
	return row;
}

export interface Review {
	reviewerId?: string | null;
	now?: Date;
}

export async function approveFeedback(
	em: EntityManager,
	id: number,
	options: Review & { public?: boolean; featured?: boolean } = {},
): Promise<IFeedback> {
	if (options.featured && !options.public) throw new FeedbackError('invalid', 'Only public feedback can be featured: approve it as public too');
	return review(em, await load(em, id), { status: 'approved', public: options.public ?? false, featured: options.featured ?? false }, options);
}

export async function rejectFeedback(em: EntityManager, id: number, options: Review = {}): Promise<IFeedback> {
	return review(em, await load(em, id), { status: 'rejected', public: false, featured: false }, options);
}

/** Records a review decision: the new status and visibility, who decided and when. */
async function review(
	em: EntityManager,
	row: IFeedback,
	decision: Pick<IFeedback, 'status' | 'public' | 'featured'>,
	options: Review,
): Promise<IFeedback> {
	em.assign(row, { ...decision, reviewerId: options.reviewerId ?? null, reviewedAt: options.now ?? new Date() });
	await em.flush();
	return row;
}

export async function setFeatured(em: EntityManager, id: number, featured: boolean): Promise<IFeedback> {
	const row = await load(em, id);
	if (featured && !(row.status === 'approved' && row.public)) {
		throw new FeedbackError('invalid', `Feedback ${id} is not approved and public, so it cannot be featured`);
	}
	row.featured = featured;
	await em.flush();
	return row;
}

export async function deleteFeedback(em: EntityManager, id: number): Promise<void> {
	const row = await load(em, id);
	await em.remove(row).flush();
}

/**
 * Approved public feedback only: featured first, then newest. A message that does not decrypt (tampered, or copied
 * from another row) is left out, never served; the column type has logged its row id.
 */
export async function listTestimonials(em: EntityManager, limit: number): Promise<{ message: string; createdAt: string; featured: boolean }[]> {
	const where = { status: 'approved', public: true } as const;
	const orderBy = { featured: 'desc', createdAt: 'desc', id: 'desc' } as const;
	let rows: IFeedback[];
	try {
		rows = await em.fork().find(Feedback, where, { orderBy, limit });
	} catch (error) {
		if (!(error instanceof DecryptionError)) throw error;
		// One unreadable row must not take the others down: load them one by one and skip what does not decrypt.
		const ids = await em.fork().find(Feedback, where, { orderBy, limit, fields: ['id'] });
		rows = [];
		for (const { id } of ids) {
			try {
				const row = await em.fork().findOne(Feedback, { id });
				if (row) rows.push(row);
			} catch (failure) {
				if (!(failure instanceof DecryptionError)) throw failure;
			}
		}
	}
	return rows.map((row) => ({ message: row.message ?? '', createdAt: row.createdAt.toISOString(), featured: row.featured }));
}

// ---------------------------------------------------------------------------------------------------------------------
// For the Discord `/feedback-manage` command: paging through the queue and taking an approval back.

export interface FeedbackPage {
	items: IFeedback[];
	total: number;
	/** 0-based, clamped to the last page. */
	page: number;
	pages: number;
}

/** One page of `listFeedback`'s order, with the total count. */
export async function pageFeedback(em: EntityManager, filter: FeedbackFilter, page: number, pageSize: number): Promise<FeedbackPage> {
	const where = filter === 'all' ? {} : { status: filter };
	const total = await em.count(Feedback, where);
	const pages = Math.max(1, Math.ceil(total / pageSize));
	const current = Math.min(Math.max(0, Math.floor(page)), pages - 1);
	const asc = filter === 'queued';
	const items = await em.find(Feedback, where, {
		orderBy: { createdAt: asc ? 'asc' : 'desc', id: asc ? 'asc' : 'desc' },
		limit: pageSize,
		offset: current * pageSize,
	});
	return { items, total, page: current, pages };
}

/** Approved -> back to the queue: no longer public or featured. */
export async function unapproveFeedback(em: EntityManager, id: number, options: Review = {}): Promise<IFeedback> {
	const row = await load(em, id);
	if (row.status !== 'approved') throw new FeedbackError('invalid', `Feedback ${id} is not approved`);
	return review(em, row, { status: 'queued', public: false, featured: false }, options);
}
