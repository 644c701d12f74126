import { InvalidArgumentError, type Command } from 'commander';
import {
	approveFeedback,
	deleteFeedback,
	FEEDBACK_FILTERS,
	listFeedback,
	rejectFeedback,
	setFeatured,
	unapproveFeedback,
	viewFeedback,
	type FeedbackFilter,
	type FeedbackView,
} from '../../lib/feedback/store.ts';
import { describeReply, dmThroughRest, replyToFeedback } from '../../lib/feedback/owner-loop.ts';
import { oneOffRest } from '../../lib/operations/owner-actions.ts';
import { withDatabase } from '../context.ts';
import { examples, printJson } from '../output.ts';

/** `haven feedback ...`: the owners' review queue without Discord. `--json` prints machine-readable output. */

const id = (value: string) => {
	if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1)
		throw new InvalidArgumentError('must be a feedback id (a positive whole number)');
	return Number(value);
};

const filter = (value: string): FeedbackFilter => {
	if (!FEEDBACK_FILTERS.includes(value as FeedbackFilter)) throw new InvalidArgumentError(`must be one of ${FEEDBACK_FILTERS.join(', ')}`);
	return value as FeedbackFilter;
};

const count = (value: string) => {
	if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1000) throw new InvalidArgumentError('must be a whole number from 1 to 1000');
	return Number(value);
};

function flags(item: FeedbackView): string {
	const marks: string[] = [item.status];
	if (item.public) marks.push('public');
	if (item.featured) marks.push('featured');
	if (item.consentPublic) marks.push('author consents to publishing');
	return marks.join(', ');
}

function describe(item: FeedbackView): string {
	const message = item.message.replace(/\s+/g, ' ');
	return `#${item.id}  ${item.createdAt}  ${flags(item)}  from ${item.userId} via ${item.source}\n    ${message}`;
}

function print(json: boolean | undefined, value: FeedbackView | FeedbackView[], human: string): void {
	if (json) printJson(value);
	else console.log(human);
}

const MIGRATED = { migrated: true };

export default function register(program: Command): void {
	const feedback = program.command('feedback').description('review the feedback queue: what owners approve and mark public becomes a testimonial');
	examples(feedback, ['haven feedback list', 'haven feedback approve 12 --public', 'haven feedback list --status all --json']);

	examples(
		feedback
			.command('list')
			.description('list feedback: the queue (oldest first) by default')
			.option('--status <status>', `queued, approved, rejected or all`, filter, 'queued' as FeedbackFilter)
			.option('--limit <n>', 'at most this many', count, 50)
			.option('--json', 'print JSON')
			.action(async (options: { status: FeedbackFilter; limit: number; json?: boolean }) => {
				await withDatabase(async (db) => {
					const items = (await listFeedback(db.orm.em.fork(), options.status, options.limit)).map(viewFeedback);
					print(
						options.json,
						items,
						items.length ? items.map(describe).join('\n') : `No ${options.status === 'all' ? '' : `${options.status} `}feedback.`,
					);
				}, MIGRATED);
			}),
		['haven feedback list', 'haven feedback list --status approved --limit 10 --json'],
	);

	examples(
		feedback
			.command('approve')
			.description('approve feedback; it stays private unless --public')
			.argument('<id>', 'feedback id', id)
			.option('--public', 'show it in GET /v1/testimonials')
			.option('--featured', 'show it first among testimonials (needs --public)')
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { public?: boolean; featured?: boolean; json?: boolean }) => {
				await withDatabase(async (db) => {
					const item = viewFeedback(
						await approveFeedback(db.orm.em.fork(), feedbackId, { public: options.public, featured: options.featured }),
					);
					print(options.json, item, `Approved #${item.id} (${flags(item)})${item.public ? ': it is now a public testimonial' : ''}`);
				}, MIGRATED);
			}),
		['haven feedback approve 12', 'haven feedback approve 12 --public --featured --json'],
	);

	examples(
		feedback
			.command('reject')
			.description('reject feedback; it is never shown')
			.argument('<id>', 'feedback id', id)
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { json?: boolean }) => {
				await withDatabase(async (db) => {
					const item = viewFeedback(await rejectFeedback(db.orm.em.fork(), feedbackId));
					print(options.json, item, `Rejected #${item.id}`);
				}, MIGRATED);
			}),
		['haven feedback reject 12'],
	);

	examples(
		feedback
			.command('feature')
			.description('feature an approved public testimonial (or stop featuring it with --off)')
			.argument('<id>', 'feedback id', id)
			.option('--off', 'stop featuring it')
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { off?: boolean; json?: boolean }) => {
				await withDatabase(async (db) => {
					const item = viewFeedback(await setFeatured(db.orm.em.fork(), feedbackId, !options.off));
					print(options.json, item, `${item.featured ? 'Featured' : 'No longer featuring'} #${item.id}`);
				}, MIGRATED);
			}),
		['haven feedback feature 12', 'haven feedback feature 12 --off'],
	);

	examples(
		feedback
			.command('unapprove')
			.description('take an approval back: to the queue, no longer public or featured')
			.argument('<id>', 'feedback id', id)
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { json?: boolean }) => {
				await withDatabase(async (db) => {
					const item = viewFeedback(await unapproveFeedback(db.orm.em.fork(), feedbackId));
					print(options.json, item, `#${item.id} is back in the queue and no longer public`);
				}, MIGRATED);
			}),
		['haven feedback unapprove 12'],
	);

	examples(
		feedback
			.command('delete')
			.description('delete feedback for good')
			.argument('<id>', 'feedback id', id)
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { json?: boolean }) => {
				await withDatabase(async (db) => {
					await deleteFeedback(db.orm.em.fork(), feedbackId);
					if (options.json) printJson({ id: feedbackId, deleted: true });
					else console.log(`Deleted feedback #${feedbackId}`);
				}, MIGRATED);
			}),
		['haven feedback delete 12'],
	);

	examples(
		feedback
			.command('reply')
			.description("reply to feedback's author by Discord DM (needs TOKEN, the bot's token)")
			.argument('<id>', 'feedback id', id)
			.requiredOption('--message <text>', 'the reply (2 to 1,500 characters)')
			.option('--json', 'print JSON')
			.action(async (feedbackId: number, options: { message: string; json?: boolean }) => {
				await withDatabase(async (db, config) => {
					const token = config.discord.token;
					if (!token)
						throw new Error(
							"TOKEN is not set: replying sends a Discord DM as the bot, so set TOKEN (the bot's token) in the environment. Nothing was sent.",
						);
					const rest = oneOffRest(config.discord.apiUrl, token);
					const result = await replyToFeedback(db.orm.em.fork(), feedbackId, options.message, (userId, content) =>
						dmThroughRest(rest, userId, content),
					);
					if (options.json) printJson({ id: feedbackId, outcome: result.outcome });
					else console.log(describeReply(feedbackId, result));
					if (result.outcome !== 'sent') process.exitCode = 1;
				}, MIGRATED);
			}),
		['haven feedback reply 12 --message "Thank you, this is fixed in the next release."'],
	);
}
