import type { EntityMetadata, EntityProperty, MetadataStorage } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Conversation, CrisisEvent, Feedback, GhostLetter, MemoryTurn, MoodCheckIn, UserProfile } from '../db/index.ts';

/**
 * A person's own data: what `/privacy export` gives them and what `/privacy delete` removes. Both are driven by the
 * ORM metadata, so a table added later cannot be forgotten:
 *
 * - `userColumns(metadata)` finds every column that can hold a user id: snowflake columns (`varchar(20)`, the model's
 *   `snowflake()`), columns named like a person (`...UserId`, `...By`, `authorId` ...) and relations to UserProfile,
 *   minus columns that hold other kinds of Discord id (servers, channels, messages, roles).
 * - `USER_DATA_POLICY` says, for each of them, what deletion does and how the export shows it. A column without an
 *   entry still gets deleted (rows, or the id set to null where the column allows it), and `unclassifiedColumns`
 *   lists it so that the test in test/privacy fails until someone decides.
 *
 * What survives a deletion is only what counts without naming anyone: the `stat_counters` totals (kept by insert
 * triggers, never decreased), anonymous `conversations` rows and anonymous crisis events (both used for per-server
 * counts).
 */

export interface ColumnRef {
	/** Entity class name, e.g. `MoodCheckIn`. */
	entity: string;
	table: string;
	property: string;
	column: string;
	nullable: boolean;
	primary: boolean;
}

export interface UserColumnPolicy {
	/** `rows`: delete the rows where the column is the person. `nullify`: set it to null (the row stays, anonymous). */
	delete: 'rows' | 'nullify';
	/** Properties cleared with the id when nullifying: content that belongs to the person. */
	alsoClear?: readonly string[];
	/**
	 * How `/privacy export` shows it: `section` (its own section, written in `exportUserData`), `rows` (every column of
	 * the person's rows, decrypted; other people's ids left out), `count` (only how many: these rows are about someone
	 * else, e.g. an alert the person acknowledged as a moderator).
	 */
	export: 'section' | 'rows' | 'count';
	why: string;
}

export const USER_DATA_POLICY: Readonly<Record<string, UserColumnPolicy>> = {
	'UserProfile.id': { delete: 'rows', export: 'section', why: 'preferences (country, screening, memory)' },
	'MoodCheckIn.userId': { delete: 'rows', export: 'section', why: 'check-ins and their notes' },
	'GhostLetter.userId': { delete: 'rows', export: 'section', why: 'ghost letters' },
	'Feedback.userId': { delete: 'rows', export: 'section', why: 'feedback, testimonials included' },
	'Feedback.reviewerId': { delete: 'nullify', export: 'count', why: "an owner's review of someone else's feedback" },
	'MemoryTurn.userId': { delete: 'rows', export: 'section', why: 'conversation memory' },
	'Conversation.userId': {
		delete: 'nullify',
		export: 'section',
		why: 'a row per answered turn, without content: it only counts, so it stays for per-server counts without the id',
	},
	'CrisisEvent.userId': {
		delete: 'nullify',
		alsoClear: ['details'],
		export: 'section',
		why: "a crisis event about the person: the row stays for counts, without the person's id or the message excerpt",
	},
	'CrisisEvent.acknowledgedBy': { delete: 'nullify', export: 'count', why: 'a moderator acknowledging an alert about someone else' },
	'CrisisEvent.resolvedBy': { delete: 'nullify', export: 'count', why: 'a moderator resolving an alert about someone else' },
	'CheckInReminder.userId': { delete: 'rows', export: 'rows', why: 'check-in reminder settings' },
	// startedBy is required, so a round someone started goes with them (its votes too, by the foreign key's cascade):
	// rounds are short-lived games, and keeping one would keep who started it.
	'GameRound.startedBy': { delete: 'rows', export: 'rows', why: 'games the person started' },
	'GameVote.userId': { delete: 'rows', export: 'rows', why: "the person's answers and votes in games" },
	'SafetyPlan.userId': { delete: 'rows', export: 'rows', why: 'the safety plan (/safetyplan), every part decrypted' },
	'CrisisFollowUp.userId': { delete: 'rows', export: 'rows', why: 'a follow-up DM the person asked for after a crisis reply (when it is due)' },
	'JournalEntry.userId': { delete: 'rows', export: 'rows', why: 'journal entries, their mood and reflection' },
	'GratitudeItem.userId': { delete: 'rows', export: 'rows', why: 'gratitude items ("three good things")' },
	'ServedUser.userId': { delete: 'rows', export: 'rows', why: 'when Haven first served the person (the users total keeps counting)' },
	// A block names its target in one column for people and servers (a server id never equals a person's id). The
	// person sees their block and its reason in an export. A blocked person cannot run /privacy (every command but
	// crisis help is refused to them); their request goes through the owners (`haven user export|delete`).
	'Block.targetId': { delete: 'rows', export: 'rows', why: 'a block the owners placed on the person, with its reason' },
	'Block.blockedBy': { delete: 'nullify', export: 'count', why: 'an owner blocking someone else (or a server)' },
	'Block.liftedBy': { delete: 'nullify', export: 'count', why: "an owner lifting someone else's block" },
};

/** Snowflake columns that are not people: servers, channels, messages, roles. */
const NOT_A_PERSON =
	/^(?:guild|channel|message|role|thread|application|webhook|emoji|sticker|interaction)Id$|(?:Guild|Channel|Message|Role|Thread|Application|Webhook|Emoji|Sticker|Interaction)Id$/;
/** The primary keys that are ids of something else than a person. */
const NOT_A_PERSON_KEYS: ReadonlySet<string> = new Set(['Guild.id']);
/** Names that say "a person" whatever the column's type. */
const PERSON_NAME =
	/(?:^|[a-z])(?:[Uu]ser|[Mm]ember|[Aa]uthor|[Rr]eviewer|[Rr]eporter|[Vv]oter|[Oo]wner|[Ss]ender|[Rr]ecipient|[Mm]oderator)Ids?$|^user$|[a-z]By$/;
const SNOWFLAKE_LENGTH = 20;

function isSnowflake(prop: EntityProperty): boolean {
	return prop.kind === 'scalar' && prop.runtimeType === 'string' && prop.length === SNOWFLAKE_LENGTH;
}

function ref(meta: EntityMetadata, prop: EntityProperty): ColumnRef {
	return {
		entity: meta.className,
		table: meta.tableName,
		property: prop.name,
		column: prop.fieldNames[0]!,
		nullable: prop.nullable === true,
		primary: prop.primary === true,
	};
}

/** The metadata of an entity by class name. */
export function metaOf(metadata: MetadataStorage, entity: string): EntityMetadata | undefined {
	return allMeta(metadata).find((meta) => meta.className === entity);
}

function allMeta(metadata: MetadataStorage): EntityMetadata[] {
	return [...metadata.getAll().values()]
		.filter((meta) => !meta.embeddable && !meta.virtual && meta.tableName)
		.sort((a, b) => a.className.localeCompare(b.className));
}

/** Every column of the model that can hold a user id (see the module comment). */
export function userColumns(metadata: MetadataStorage): ColumnRef[] {
	const columns: ColumnRef[] = [];
	for (const meta of allMeta(metadata)) {
		for (const prop of Object.values(meta.properties) as EntityProperty[]) {
			const key = `${meta.className}.${prop.name}`;
			const toUser = (prop.kind === 'm:1' || prop.kind === '1:1') && prop.targetMeta?.className === 'UserProfile';
			if (toUser && prop.fieldNames.length === 1) {
				columns.push(ref(meta, prop));
				continue;
			}
			if (prop.kind !== 'scalar' || NOT_A_PERSON_KEYS.has(key) || NOT_A_PERSON.test(prop.name)) continue;
			if (isSnowflake(prop) || PERSON_NAME.test(prop.name)) columns.push(ref(meta, prop));
		}
	}
	return columns;
}

const keyOf = (column: Pick<ColumnRef, 'entity' | 'property'>) => `${column.entity}.${column.property}`;

/** The policy of a column: its entry, or the default for a column nobody classified yet. */
export function policyFor(column: ColumnRef): UserColumnPolicy {
	return (
		USER_DATA_POLICY[keyOf(column)] ?? {
			delete: column.nullable && !column.primary ? 'nullify' : 'rows',
			export: 'rows',
			why: 'not classified yet: default',
		}
	);
}

/** User-id columns without a policy entry, and policy entries that match no column (both should be empty). */
export function unclassifiedColumns(metadata: MetadataStorage): { missing: string[]; stale: string[] } {
	const found = new Set(userColumns(metadata).map(keyOf));
	return {
		missing: [...found].filter((key) => !(key in USER_DATA_POLICY)).sort(),
		stale: Object.keys(USER_DATA_POLICY)
			.filter((key) => !found.has(key))
			.sort(),
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Server-scoped data (used by the retention job when Haven has left a server)

/** `rows`: delete the server's rows. `nullify`: keep the rows (they belong to a person) without the server. */
export type GuildColumnPolicy = 'rows' | 'nullify';

export const GUILD_DATA_POLICY: Readonly<Record<string, GuildColumnPolicy>> = {
	'Guild.id': 'rows',
	'CrisisEvent.guildId': 'rows',
	'Conversation.guildId': 'rows',
	'MoodCheckIn.guildId': 'nullify',
	'GameRound.guildId': 'rows',
};

/** Every column that holds a server id: `guildId`-named columns, the `guilds` table's key, relations to Guild. */
export function guildColumns(metadata: MetadataStorage): ColumnRef[] {
	const columns: ColumnRef[] = [];
	for (const meta of allMeta(metadata)) {
		for (const prop of Object.values(meta.properties) as EntityProperty[]) {
			const toGuild = (prop.kind === 'm:1' || prop.kind === '1:1') && prop.targetMeta?.className === 'Guild';
			const named = prop.kind === 'scalar' && /(?:^g|G)uildId$/.test(prop.name);
			const key = meta.className === 'Guild' && prop.primary && prop.kind === 'scalar';
			if ((toGuild && prop.fieldNames.length === 1) || named || key) columns.push(ref(meta, prop));
		}
	}
	return columns;
}

export function guildPolicyFor(column: ColumnRef): GuildColumnPolicy {
	return GUILD_DATA_POLICY[keyOf(column)] ?? (column.nullable && !column.primary ? 'nullify' : 'rows');
}

export function unclassifiedGuildColumns(metadata: MetadataStorage): { missing: string[]; stale: string[] } {
	const found = new Set(guildColumns(metadata).map(keyOf));
	return {
		missing: [...found].filter((key) => !(key in GUILD_DATA_POLICY)).sort(),
		stale: Object.keys(GUILD_DATA_POLICY)
			.filter((key) => !found.has(key))
			.sort(),
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Deletion

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

function affected(result: unknown): number {
	const value = (result as { affectedRows?: number; rowCount?: number } | undefined) ?? {};
	return value.affectedRows ?? value.rowCount ?? 0;
}

/** The advisory lock every change to one person's data takes (memory writes, memory switch, deletion). */
export async function lockUser(em: EntityManager, userId: string): Promise<void> {
	await em.execute('select pg_advisory_xact_lock(7264191, hashtext(?))', [`haven-user:${userId}`]);
}

export interface DeletionStep {
	table: string;
	column: string;
	action: 'deleted' | 'anonymised';
	rows: number;
}

export interface DeletionReport {
	steps: DeletionStep[];
	/** Rows removed or anonymised, in all. */
	total: number;
	/** Columns that had no policy entry (handled by the default): should always be empty. */
	unclassified: string[];
}

/**
 * Deletes everything about one person, in one transaction: rows that are theirs go, rows that only count keep
 * counting without their id (see `USER_DATA_POLICY`). `stat_counters` is never touched.
 */
export async function deleteUserData(em: EntityManager, userId: string): Promise<DeletionReport> {
	const metadata = em.getMetadata();
	const columns = userColumns(metadata);
	// Anonymise first, then delete, so a row both kept and referenced (none today) is never deleted by accident.
	const ordered = [...columns].sort((a, b) => Number(policyFor(a).delete === 'rows') - Number(policyFor(b).delete === 'rows'));
	return em.transactional(async (tx) => {
		await lockUser(tx, userId);
		const steps: DeletionStep[] = [];
		for (const column of ordered) {
			const policy = policyFor(column);
			let result: unknown;
			if (policy.delete === 'nullify' && column.nullable && !column.primary) {
				const meta = metaOf(metadata, column.entity)!;
				const clear = (policy.alsoClear ?? [])
					.map((name) => meta.properties[name as keyof typeof meta.properties]?.fieldNames[0])
					.filter((name): name is string => Boolean(name));
				const sets = [column.column, ...clear].map((name) => `${quote(name)} = null`).join(', ');
				result = await tx.execute(`update ${quote(column.table)} set ${sets} where ${quote(column.column)} = ?`, [userId], 'run');
				steps.push({ table: column.table, column: column.column, action: 'anonymised', rows: affected(result) });
			} else {
				result = await tx.execute(`delete from ${quote(column.table)} where ${quote(column.column)} = ?`, [userId], 'run');
				steps.push({ table: column.table, column: column.column, action: 'deleted', rows: affected(result) });
			}
		}
		const { missing } = unclassifiedColumns(metadata);
		return { steps, total: steps.reduce((sum, step) => sum + step.rows, 0), unclassified: missing };
	});
}

/** Rows that still reference the person, per `table.column` (empty after `deleteUserData`). For tests and checks. */
export async function remainingReferences(em: EntityManager, userId: string): Promise<Record<string, number>> {
	const left: Record<string, number> = {};
	for (const column of userColumns(em.getMetadata())) {
		const rows = await em.execute<{ count: string | number }[]>(
			`select count(*) as count from ${quote(column.table)} where ${quote(column.column)} = ?`,
			[userId],
		);
		const count = Number(rows[0]?.count ?? 0);
		if (count > 0) left[`${column.table}.${column.column}`] = count;
	}
	return left;
}

// ---------------------------------------------------------------------------------------------------------------------
// Export

export const EXPORT_FORMAT = 'haven-user-data';
export const EXPORT_VERSION = 1;

export interface UserDataExport {
	format: typeof EXPORT_FORMAT;
	version: typeof EXPORT_VERSION;
	generatedAt: string;
	userId: string;
	about: string[];
	preferences: { country: string | null; crisisScreening: boolean; conversationMemory: boolean; createdAt: string; updatedAt: string } | null;
	checkIns: { id: number; guildId: string | null; mood: string; intensity: number; note: string | null; createdAt: string }[];
	ghostLetters: { id: number; content: string; createdAt: string }[];
	feedback: {
		id: number;
		message: string;
		source: string;
		status: string;
		agreedToBeQuoted: boolean;
		public: boolean;
		featured: boolean;
		createdAt: string;
		updatedAt: string;
	}[];
	conversationMemory: { channelId: string; role: string; content: string; createdAt: string; expiresAt: string }[];
	conversations: { guildId: string | null; source: string; createdAt: string }[];
	crisisEvents: {
		id: number;
		guildId: string | null;
		level: string;
		categories: string[];
		trigger: string;
		details: string | null;
		acknowledged: boolean;
		resolved: boolean;
		createdAt: string;
	}[];
	/** Tables without a section of their own: every column of the person's rows. */
	other: Record<string, Record<string, unknown>[]>;
	/** Rows about other people that name this person (as a moderator or reviewer): counts only. */
	actionsAboutOthers: Record<string, number>;
}

const iso = (value: Date | string | null | undefined) => (value === null || value === undefined ? null : new Date(value).toISOString());

function plain(value: unknown): unknown {
	if (value instanceof Date) return value.toISOString();
	if (typeof value === 'bigint') return value.toString();
	if (value && typeof value === 'object' && !Array.isArray(value)) {
		// A reference to another entity: its primary key.
		const helper = (value as { __helper?: { getPrimaryKey(): unknown } }).__helper;
		if (helper) return helper.getPrimaryKey();
	}
	return value;
}

/** Everything about the person, decrypted, as one JSON-ready object. Reads only. */
export async function exportUserData(em: EntityManager, userId: string, now = new Date()): Promise<UserDataExport> {
	const metadata = em.getMetadata();
	const columns = userColumns(metadata);
	const byAge = { orderBy: { createdAt: 'asc' as const } };
	const [profile, checkIns, letters, feedback, memory, conversations, crisis] = await Promise.all([
		em.fork().findOne(UserProfile, { id: userId }),
		em.fork().find(MoodCheckIn, { userId }, byAge),
		em.fork().find(GhostLetter, { userId }, byAge),
		em.fork().find(Feedback, { userId }, byAge),
		em.fork().find(MemoryTurn, { userId }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
		em.fork().find(Conversation, { userId }, byAge),
		em.fork().find(CrisisEvent, { userId }, byAge),
	]);

	const other: UserDataExport['other'] = {};
	const actionsAboutOthers: UserDataExport['actionsAboutOthers'] = {};
	const people = new Set(columns.map(keyOf));
	for (const column of columns) {
		const policy = policyFor(column);
		if (policy.export === 'count') {
			const rows = await em.execute<{ count: string | number }[]>(
				`select count(*) as count from ${quote(column.table)} where ${quote(column.column)} = ?`,
				[userId],
			);
			actionsAboutOthers[`${column.table}.${column.column}`] = Number(rows[0]?.count ?? 0);
		} else if (policy.export === 'rows') {
			const meta = metaOf(metadata, column.entity)!;
			const rows = (await em.fork().find(meta.class, { [column.property]: userId } as never)) as Record<string, unknown>[];
			const out = rows.map((row) => {
				const record: Record<string, unknown> = {};
				for (const prop of Object.values(meta.properties) as EntityProperty[]) {
					if (prop.kind !== 'scalar' && prop.kind !== 'm:1' && prop.kind !== '1:1') continue;
					const value = plain(row[prop.name]);
					// Another person's id is not this person's data.
					if (people.has(`${meta.className}.${prop.name}`) && value !== userId && value !== null && value !== undefined) continue;
					record[prop.name] = value ?? null;
				}
				return record;
			});
			if (out.length) other[column.table] = [...(other[column.table] ?? []), ...out];
		}
	}

	return {
		format: EXPORT_FORMAT,
		version: EXPORT_VERSION,
		generatedAt: now.toISOString(),
		userId,
		about: [
			'Everything Haven stores about you, decrypted. Times are UTC (ISO 8601).',
			'Crisis events list what was recorded about you (level, categories, a short excerpt when the server had alerts on); who handled an alert is not shown, only whether it was.',
			'Conversation memory expires on its own; "conversations" are counts of answered messages without content.',
			'"actionsAboutOthers" counts rows about other people that name you (as a moderator or reviewer); their content is theirs.',
		],
		preferences: profile
			? {
					country: profile.country ?? null,
					crisisScreening: !profile.screeningOptOut,
					conversationMemory: profile.memoryEnabled,
					createdAt: iso(profile.createdAt)!,
					updatedAt: iso(profile.updatedAt)!,
				}
			: null,
		checkIns: checkIns.map((row) => ({
			id: row.id,
			guildId: row.guildId ?? null,
			mood: row.mood,
			intensity: row.intensity,
			note: row.note ?? null,
			createdAt: iso(row.createdAt)!,
		})),
		ghostLetters: letters.map((row) => ({ id: row.id, content: row.content ?? '', createdAt: iso(row.createdAt)! })),
		feedback: feedback.map((row) => ({
			id: row.id,
			message: row.message ?? '',
			source: row.source,
			status: row.status,
			agreedToBeQuoted: row.consentPublic,
			public: row.public,
			featured: row.featured,
			createdAt: iso(row.createdAt)!,
			updatedAt: iso(row.updatedAt)!,
		})),
		conversationMemory: memory.map((row) => ({
			channelId: row.channelId,
			role: row.role,
			content: row.content ?? '',
			createdAt: iso(row.createdAt)!,
			expiresAt: iso(row.expiresAt)!,
		})),
		conversations: conversations.map((row) => ({ guildId: row.guildId ?? null, source: row.source, createdAt: iso(row.createdAt)! })),
		crisisEvents: crisis.map((row) => ({
			id: row.id,
			guildId: row.guildId ?? null,
			level: row.level,
			categories: [...(row.categories ?? [])],
			trigger: row.trigger,
			details: row.details ?? null,
			acknowledged: row.acknowledgedAt !== null && row.acknowledgedAt !== undefined,
			resolved: row.resolvedAt !== null && row.resolvedAt !== undefined,
			createdAt: iso(row.createdAt)!,
		})),
		other,
		actionsAboutOthers,
	};
}

/** The export as the attached file's bytes and name. */
export function exportFile(data: UserDataExport): { name: string; bytes: Buffer } {
	const day = data.generatedAt.slice(0, 10).replace(/-/g, '');
	return { name: `haven-data-${data.userId}-${day}.json`, bytes: Buffer.from(`${JSON.stringify(data, null, 2)}\n`, 'utf8') };
}
