import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EncryptedText } from './encrypted-text.ts';

/**
 * The data model. Sensitive free text goes through `EncryptedText` (one instance per property, naming the owner
 * column its values are bound to besides the table, column and primary key).
 * Discord IDs are snowflakes kept as text. Timestamps are `timestamptz`.
 */

const createdAt = () => p.datetime().onCreate(() => new Date());
const snowflake = () => p.string().length(20);

/**
 * Keeps a monotonic total in `stat_counters` for `GET /v1/stats`: inside the inserting transaction, so the counts
 * cost the same to read at any table size and survive retention purges and privacy deletions.
 */
const countsInserts = (counter: string) => [
	{
		name: 'count_inserts',
		timing: 'after' as const,
		events: ['insert' as const],
		forEach: 'row' as const,
		body: `insert into stat_counters (name, value) values ('${counter}', 1) on conflict (name) do update set value = stat_counters.value + 1; return null;`,
	},
];

export const FEEDBACK_STATUSES = ['queued', 'approved', 'rejected'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
export const CRISIS_LEVELS = ['concern', 'high', 'imminent'] as const;
export const CRISIS_TRIGGERS = ['command', 'context_menu', 'dm', 'mention', 'api'] as const;

export const UserProfile = defineEntity({
	name: 'UserProfile',
	tableName: 'users',
	// A preferences row means the person was served: it records them in served_users, whose trigger counts them once.
	triggers: [
		{
			name: 'count_inserts',
			timing: 'after' as const,
			events: ['insert' as const],
			forEach: 'row' as const,
			body: 'insert into served_users (user_id, first_seen_at) values (new.id, new.created_at) on conflict (user_id) do nothing; return null;',
		},
	],
	properties: {
		id: snowflake().primary(),
		country: p.string().length(8).nullable(),
		screeningOptOut: p.boolean().default(false),
		memoryEnabled: p.boolean().default(true),
		createdAt: createdAt(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
	},
});

export const Guild = defineEntity({
	name: 'Guild',
	tableName: 'guilds',
	properties: {
		id: snowflake().primary(),
		settings: p.json<Record<string, unknown>>().default('{}'),
		joinedAt: createdAt(),
		leftAt: p.datetime().nullable(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
	},
});

export const MoodCheckIn = defineEntity({
	name: 'MoodCheckIn',
	tableName: 'mood_check_ins',
	indexes: [{ properties: ['userId', 'createdAt'] }],
	triggers: countsInserts('moodCheckIns'),
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		guildId: snowflake().nullable(),
		mood: p.string().length(32),
		intensity: p.smallint(),
		note: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		createdAt: createdAt(),
	},
});

export const GhostLetter = defineEntity({
	name: 'GhostLetter',
	tableName: 'ghost_letters',
	indexes: [{ properties: ['userId', 'createdAt'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		content: p.type(new EncryptedText({ owner: 'userId' })),
		createdAt: createdAt(),
	},
});

/** One answered companion turn (Discord or `POST /v1/chat`); what the `conversations` stat counts. No content. */
export const Conversation = defineEntity({
	name: 'Conversation',
	tableName: 'conversations',
	indexes: [{ properties: ['userId'] }, { properties: ['guildId'] }, { properties: ['createdAt'] }],
	triggers: countsInserts('conversations'),
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake().nullable(),
		guildId: snowflake().nullable(),
		source: p.string().length(16),
		createdAt: createdAt(),
	},
});

/** Short-lived conversation memory, encrypted, expiring. */
export const MemoryTurn = defineEntity({
	name: 'MemoryTurn',
	tableName: 'memory_turns',
	indexes: [{ properties: ['userId', 'channelId', 'createdAt'] }, { properties: ['expiresAt'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		channelId: snowflake(),
		role: p.string().length(16),
		content: p.type(new EncryptedText({ owner: 'userId' })),
		createdAt: createdAt(),
		expiresAt: p.datetime(),
	},
});

export const CrisisEvent = defineEntity({
	name: 'CrisisEvent',
	tableName: 'crisis_events',
	indexes: [{ properties: ['guildId', 'createdAt'] }, { properties: ['userId', 'createdAt'] }, { properties: ['createdAt'] }],
	triggers: countsInserts('crisisEvents'),
	properties: {
		id: p.integer().primary().autoincrement(),
		guildId: snowflake().nullable(),
		userId: snowflake().nullable(),
		level: p.string().length(16),
		categories: p.array().default([]),
		trigger: p.string().length(16),
		details: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		alertMessageId: snowflake().nullable(),
		acknowledgedBy: snowflake().nullable(),
		acknowledgedAt: p.datetime().nullable(),
		resolvedBy: snowflake().nullable(),
		resolvedAt: p.datetime().nullable(),
		/** When an unacknowledged alert was raised again (guild setting `alertEscalateMinutes`). */
		escalatedAt: p.datetime().nullable(),
		createdAt: createdAt(),
	},
});

export const Feedback = defineEntity({
	name: 'Feedback',
	tableName: 'feedback',
	indexes: [{ properties: ['status', 'createdAt'] }, { properties: ['userId'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		message: p.type(new EncryptedText({ owner: 'userId' })),
		source: p.string().length(16),
		status: p.string().length(16).default('queued'),
		consentPublic: p.boolean().default(false),
		public: p.boolean().default(false),
		featured: p.boolean().default(false),
		reviewerId: snowflake().nullable(),
		reviewedAt: p.datetime().nullable(),
		createdAt: createdAt(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
	},
});

/** Small durable key/value state: command registration hash, rotate-salt progress, and the like. */
export const AppState = defineEntity({
	name: 'AppState',
	tableName: 'app_state',
	properties: {
		key: p.string().length(64).primary(),
		value: p.json<unknown>(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
	},
});

/** Monotonic totals kept by the `count_inserts` triggers. */
export const StatCounter = defineEntity({
	name: 'StatCounter',
	tableName: 'stat_counters',
	properties: {
		name: p.string().length(32).primary(),
		value: p.bigint('number').default(0),
	},
});

export const entities = [UserProfile, Guild, MoodCheckIn, GhostLetter, Conversation, MemoryTurn, CrisisEvent, Feedback, AppState, StatCounter];

export type IFeedback = InferEntity<typeof Feedback>;
export type ICrisisEvent = InferEntity<typeof CrisisEvent>;

// =====================================================================================================================
// Wellbeing and community (check-in reminders, games), used by the wellbeing commands; their migration is
// Migration20261121010000Wellbeing.

/**
 * One person's check-in reminders (opt-in). `nextDueAt` is when the next DM is due; the scheduler claims a due row by
 * moving `nextDueAt` forward with a compare-and-set, so two instances never send the same reminder twice. Quiet hours
 * are whole local hours in `timezone` (IANA); a reminder never lands inside them. Closed DMs turn reminders off
 * (`disabledReason`).
 */
export const CheckInReminder = defineEntity({
	name: 'CheckInReminder',
	tableName: 'check_in_reminders',
	indexes: [{ properties: ['enabled', 'nextDueAt'] }],
	properties: {
		userId: snowflake().primary(),
		enabled: p.boolean().default(true),
		intervalMinutes: p.integer(),
		timezone: p.string().length(64),
		quietStart: p.smallint().nullable(),
		quietEnd: p.smallint().nullable(),
		nextDueAt: p.datetime(),
		lastSentAt: p.datetime().nullable(),
		disabledReason: p.string().length(32).nullable(),
		createdAt: createdAt(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
	},
});

/** A round of /trivia or /wouldyourather: the generated content (no user text) and who started it. */
export const GameRound = defineEntity({
	name: 'GameRound',
	tableName: 'game_rounds',
	indexes: [{ properties: ['createdAt'] }, { properties: ['startedBy'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		kind: p.string().length(16),
		guildId: snowflake().nullable(),
		startedBy: snowflake(),
		content: p.json<Record<string, unknown>>(),
		revealedAt: p.datetime().nullable(),
		createdAt: createdAt(),
	},
});

/** One answer or vote in a round. The primary key (round, user) is the "one vote per person" rule. */
export const GameVote = defineEntity({
	name: 'GameVote',
	tableName: 'game_votes',
	indexes: [{ properties: ['userId'] }],
	properties: {
		round: () => p.manyToOne(GameRound).primary().deleteRule('cascade'),
		userId: snowflake().primary(),
		choice: p.smallint(),
		createdAt: createdAt(),
	},
});

(entities as unknown[]).push(CheckInReminder, GameRound, GameVote);

// =====================================================================================================================
// Care after a crisis (safety plans, follow-ups, alert reminders); their migration is Migration20261124200000Care.

/**
 * A person's safety plan (`/safetyplan`): seven parts, each the person's own words, encrypted and bound to the row.
 * One row per person; `usedAt` (the last view or edit) drives its retention.
 */
export const SafetyPlan = defineEntity({
	name: 'SafetyPlan',
	tableName: 'safety_plans',
	indexes: [{ properties: ['usedAt'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake().unique(),
		warningSigns: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		coping: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		distractions: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		people: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		professionals: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		environment: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		reasons: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		createdAt: createdAt(),
		updatedAt: p
			.datetime()
			.onCreate(() => new Date())
			.onUpdate(() => new Date()),
		usedAt: p.datetime().onCreate(() => new Date()),
	},
});

/**
 * A follow-up DM a person asked for after a crisis reply ("Check on me tomorrow"): who and when, nothing they wrote.
 * One per person (asking again moves it). Claimed by deleting the row (compare-and-set on `dueAt`), so it is sent once.
 */
export const CrisisFollowUp = defineEntity({
	name: 'CrisisFollowUp',
	tableName: 'crisis_follow_ups',
	indexes: [{ properties: ['dueAt'] }],
	properties: {
		userId: snowflake().primary(),
		dueAt: p.datetime(),
		createdAt: createdAt(),
	},
});

(entities as unknown[]).push(SafetyPlan, CrisisFollowUp);

// =====================================================================================================================
// Operator controls; their migration is Migration20261122000000Blocks.

/**
 * A block the owners placed on a person (`kind` 'user') or a server ('guild'), with the reason, who placed it and,
 * once lifted, who lifted it and when. Only rows with `liftedAt` null are in force (src/lib/operations/blocks.ts).
 * The target is one `targetId` column for both kinds, so a server's retention purge does not lift its block.
 */
export const Block = defineEntity({
	name: 'Block',
	tableName: 'blocks',
	indexes: [{ properties: ['kind', 'targetId'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		kind: p.string().length(8),
		targetId: snowflake(),
		reason: p.string().length(500),
		blockedBy: snowflake().nullable(),
		createdAt: createdAt(),
		liftedAt: p.datetime().nullable(),
		liftedBy: snowflake().nullable(),
	},
});

export type IBlock = InferEntity<typeof Block>;

(entities as unknown[]).push(Block);

// =====================================================================================================================
// Care after the first contact (journal, gratitude) and the people Haven has served; their migration is
// Migration20261123000000Journal.

/** A private journal entry: the text (encrypted), an optional mood, and the optional AI reflection (encrypted). */
export const JournalEntry = defineEntity({
	name: 'JournalEntry',
	tableName: 'journal_entries',
	indexes: [{ properties: ['userId', 'createdAt'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		mood: p.string().length(32).nullable(),
		content: p.type(new EncryptedText({ owner: 'userId' })),
		reflection: p.type(new EncryptedText({ owner: 'userId' })).nullable(),
		createdAt: createdAt(),
	},
});

/** One of a day's "three good things" (encrypted). `day` is the UTC calendar day it was written, `YYYY-MM-DD`. */
export const GratitudeItem = defineEntity({
	name: 'GratitudeItem',
	tableName: 'gratitude_items',
	indexes: [{ properties: ['userId', 'day'] }],
	properties: {
		id: p.integer().primary().autoincrement(),
		userId: snowflake(),
		day: p.string().length(10),
		content: p.type(new EncryptedText({ owner: 'userId' })),
		createdAt: createdAt(),
	},
});

/**
 * Everyone Haven has served (a command, a DM or a mention), once: what the `users` total of `GET /v1/stats` counts,
 * by its insert trigger. Only the id and the first time; the row goes with `/privacy delete`, the count stays.
 */
export const ServedUser = defineEntity({
	name: 'ServedUser',
	tableName: 'served_users',
	triggers: countsInserts('users'),
	properties: {
		userId: snowflake().primary(),
		firstSeenAt: createdAt(),
	},
});

(entities as unknown[]).push(JournalEntry, GratitudeItem, ServedUser);

// =====================================================================================================================
// A fleet of instances on one database (src/lib/fleet); their migration is Migration20261124100000Fleet. No user data.

/** Which instance connects a gateway shard, the shard's state as that instance last saw it, and its heartbeat. */
export const FleetShard = defineEntity({
	name: 'FleetShard',
	tableName: 'fleet_shards',
	properties: {
		shardId: p.integer().primary().autoincrement(false),
		shardCount: p.integer(),
		instanceId: p.string().length(64).nullable(),
		state: p.string().length(32),
		latencyMs: p.integer().nullable(),
		guilds: p.integer().default(0),
		lastReady: p.datetime().nullable(),
		resumes: p.integer().default(0),
		heartbeatAt: p.datetime(),
	},
});

/** One lease per max_concurrency bucket: taken for 5.5 s by each IDENTIFY of any instance (Discord's 5 s and a margin). */
export const FleetIdentify = defineEntity({
	name: 'FleetIdentify',
	tableName: 'fleet_identify',
	properties: {
		bucket: p.integer().primary().autoincrement(false),
		instanceId: p.string().length(64),
		until: p.datetime(),
	},
});

/** The last run of each fleet-wide job (retention purge, release check, bot-list post) and who ran it. */
export const FleetJob = defineEntity({
	name: 'FleetJob',
	tableName: 'fleet_jobs',
	properties: {
		job: p.string().length(64).primary(),
		instanceId: p.string().length(64),
		lastRunAt: p.datetime(),
	},
});

(entities as unknown[]).push(FleetShard, FleetIdentify, FleetJob);
