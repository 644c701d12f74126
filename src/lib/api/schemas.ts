import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

/**
 * The HTTP API's data, once: these schemas validate requests, type the routes and generate `/openapi.json`.
 * Each `.openapi('Name')` becomes `#/components/schemas/Name`.
 */
extendZodWithOpenApi(z);

/** Longest `message` accepted by `POST /v1/chat` and `POST /v1/feedback`, in characters (UTF-16 code units), after trimming. */
export const MAX_MESSAGE_LENGTH = 2000;
/** Shortest feedback `message`, after trimming: keeps out empty and one-key submissions. */
export const MIN_FEEDBACK_LENGTH = 3;
/** Largest request body, in bytes, whether announced by Content-Length or sent chunked. */
export const MAX_BODY_BYTES = 16 * 1024;
export const TESTIMONIALS_DEFAULT_LIMIT = 20;
export const TESTIMONIALS_MAX_LIMIT = 100;

const MAX_SNOWFLAKE = 2n ** 64n - 1n;

/** A Discord user id: a snowflake, 17 to 20 digits without a leading zero, at most 2^64 - 1. */
export function isSnowflake(value: string): boolean {
	return /^[1-9]\d{16,19}$/.test(value) && BigInt(value) <= MAX_SNOWFLAKE;
}

const timestamp = (description: string) => z.iso.datetime().openapi({ description, example: '2026-11-21T12:00:00.000Z' });
const count = (description: string) => z.number().int().min(0).openapi({ description });

const trimmedMessage = (what: string, min: number) =>
	z
		.string({ error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`) })
		.trim()
		.min(min, min === 1 ? `${what} must not be blank` : `${what} must be at least ${min} characters`)
		.max(MAX_MESSAGE_LENGTH, `${what} must be at most ${MAX_MESSAGE_LENGTH} characters`);

export const ErrorBody = z.object({ error: z.string().openapi({ example: 'Not found' }) }).openapi('Error', { description: 'Every error response.' });

export const Health = z.object({ status: z.literal('ok') }).openapi('Health');

export const Stats = z
	.object({
		users: count('People who have used Haven on Discord: users with a profile, counted once, ever.'),
		guilds: count('Servers Haven is in now (live from Discord; from the database in API-only mode).'),
		conversations: count('Answered companion turns, on Discord and through POST /v1/chat, ever.'),
		moodCheckIns: count('Mood check-ins recorded, ever.'),
		crisisEvents: count('Messages the crisis screen answered with support resources, ever.'),
	})
	.openapi('Stats', { description: 'Community totals. The four lifetime totals never decrease, even when data is deleted.' });

export const SHARD_STATES = [
	'ready',
	'connecting',
	'reconnecting',
	'idle',
	'nearly',
	'disconnected',
	'waitingForGuilds',
	'identifying',
	'resuming',
] as const;

export const Shard = z
	.object({
		id: z.number().int().min(0).openapi({ description: 'Shard index.' }),
		state: z.enum(SHARD_STATES).openapi({ description: 'Gateway state of the shard; only `ready` serves events.' }),
		latencyMs: z.number().int().min(0).nullable().openapi({ description: 'Last gateway heartbeat round trip; null until measured.' }),
		guilds: count('Servers on this shard.'),
		lastReady: timestamp('When the shard last became ready; null until it first does.').nullable(),
		resumes: count('Sessions resumed since the process started.'),
	})
	.openapi('Shard');

export const STATUS_VALUES = ['ok', 'degraded', 'starting'] as const;

export const Status = z
	.object({
		status: z.enum(STATUS_VALUES).openapi({
			description:
				'`starting` until every shard has been ready once; `degraded` when a shard is not ready or the bot is not running (API-only mode); `ok` otherwise.',
		}),
		version: z.string().openapi({ description: 'Build stamp (tag or commit).', example: 'v0.1.0' }),
		startedAt: timestamp('When the process started.'),
		uptimeSeconds: count('Seconds since startedAt.'),
		shardCount: count('Shards the bot runs; 0 in API-only mode.'),
		guilds: count('Servers Haven is in now.'),
		generatedAt: timestamp('When this response was made.'),
		shards: z.array(Shard),
	})
	.openapi('Status');

export const Testimonial = z
	.object({
		message: z.string().openapi({ description: "The person's own words." }),
		createdAt: timestamp('When the feedback was sent.'),
		featured: z.boolean(),
	})
	.openapi('Testimonial');

export const Testimonials = z.array(Testimonial).openapi('Testimonials', { description: 'Featured first, then newest first.' });

export const TestimonialsQuery = z.object({
	limit: z.coerce
		.number({ error: 'limit must be a whole number' })
		.int('limit must be a whole number')
		.min(1, 'limit must be at least 1')
		.max(TESTIMONIALS_MAX_LIMIT, `limit must be at most ${TESTIMONIALS_MAX_LIMIT}`)
		.default(TESTIMONIALS_DEFAULT_LIMIT)
		.openapi({
			param: { description: `How many to return (default ${TESTIMONIALS_DEFAULT_LIMIT}, at most ${TESTIMONIALS_MAX_LIMIT}).` },
			example: 10,
		}),
});

export const ChatRequest = z
	.object({ message: trimmedMessage('message', 1).openapi({ description: `What the person wrote (1 to ${MAX_MESSAGE_LENGTH} characters).` }) })
	.openapi('ChatRequest');

export const ChatResponse = z
	.object({
		reply: z
			.string()
			.openapi({ description: 'A supportive reply. When the message may be about a crisis, it starts with vetted support resources.' }),
	})
	.openapi('ChatResponse');

export const FeedbackRequest = z
	.object({
		userId: z
			.string({ error: (issue) => (issue.input === undefined ? 'userId is required' : 'userId must be a string') })
			.regex(/^[1-9]\d{16,19}$/, 'userId must be a Discord user ID (17 to 20 digits)')
			.refine(isSnowflake, 'userId must be a Discord user ID (17 to 20 digits)')
			.openapi({ description: 'Discord user ID of the author.', example: '123456789012345678' }),
		// PostgreSQL text cannot hold NUL: refused here rather than failing the write (found by test/reliability/fuzz.test.ts).
		message: trimmedMessage('message', MIN_FEEDBACK_LENGTH)
			.refine((text) => !text.includes('\u0000'), 'message must not contain NUL characters')
			.openapi({ description: `The feedback (${MIN_FEEDBACK_LENGTH} to ${MAX_MESSAGE_LENGTH} characters).` }),
	})
	.openapi('FeedbackRequest');

export const FeedbackResponse = z.object({ status: z.literal('received') }).openapi('FeedbackResponse');

export type StatsBody = z.output<typeof Stats>;
export type StatusBody = z.output<typeof Status>;
export type ShardBody = z.output<typeof Shard>;
export type TestimonialBody = z.output<typeof Testimonial>;
