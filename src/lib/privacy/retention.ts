import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RECENT_TURNS } from '../companion/memory.ts';
import { guildColumns, guildPolicyFor, type ColumnRef } from './user-data.ts';

/**
 * Retention: how long personal data is kept, and the job that removes it when its time is up.
 *
 * The policy is pure data (`retentionRules`, `retentionTable`), the job is `purge(orm, now, { dryRun })`, which
 * returns how many rows each rule removed or anonymised (or, in a dry run, would). `startRetentionScheduler` runs it
 * on an interval (PURGE_INTERVAL_MS, hourly by default; `startHaven` starts it and stops it on shutdown);
 * `haven purge [--dry-run]` runs it once from the command line.
 *
 * Servers Haven has left: after GUILD_PURGE_GRACE_DAYS (7 by default) the server's settings and its server-scoped rows
 * go (see `GUILD_DATA_POLICY` in user-data.ts: crisis events, conversation counts and game rounds of that server are
 * deleted; check-ins, which belong to their author, lose only the server id). Rejoining within the grace period clears
 * `guilds.left_at`, which cancels the purge.
 *
 * `stat_counters` (the public totals) are never touched: they only ever grow.
 */

export interface RetentionSettings {
	/** Conversation memory: each turn is deleted this long after it was said. */
	memoryTtlHours: number;
	/** Crisis events: the message excerpt and the person's id are removed after this many days; the row stays (counts). */
	crisisDetailsDays: number;
	/** Mood check-ins (with their notes) are deleted after this many days. */
	checkInDays: number;
	/** Ghost letters are deleted after this many days. */
	ghostLetterDays: number;
	/** Conversation counts lose their user id after this many days. */
	conversationUserDays: number;
	/** Rejected feedback is deleted this many days after it was rejected. */
	rejectedFeedbackDays: number;
	/** A server Haven has left is purged this many days after it left. */
	guildGraceDays: number;
}

export const DEFAULT_RETENTION: Readonly<RetentionSettings> = Object.freeze({
	memoryTtlHours: 24,
	crisisDetailsDays: 30,
	checkInDays: 365,
	ghostLetterDays: 90,
	conversationUserDays: 30,
	rejectedFeedbackDays: 90,
	guildGraceDays: 7,
});

/** Game rounds (and their votes) are short-lived: kept this many days. */
export const GAME_ROUND_DAYS = 30;
/** A safety plan nobody opened or edited for this long is deleted (each view or edit restarts the count). */
export const SAFETY_PLAN_DAYS = 730;
/** A follow-up still unsent this long after it was due (the bot was down) is dropped: it would come far too late. */
export const FOLLOW_UP_STALE_DAYS = 2;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface RetentionRule {
	/** Stable key, used in reports: `memory_turns`, `crisis_events.details` ... */
	key: string;
	table: string;
	action: 'delete' | 'anonymise';
	/** What happens, in a sentence (for the report and the README). */
	description: string;
	/** `where` clause and its parameters, for `now`. */
	where: (now: Date) => { sql: string; params: unknown[] };
	/** For `anonymise`: the `set` clause. */
	set?: string;
	/** The table's key column, when it is not `id`. */
	idColumn?: string;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);

/** Rows of `table` whose `column` is more than `days` old are deleted. */
const deleteAfterDays = (table: string, days: number, description: string, column = 'created_at'): RetentionRule => ({
	key: table,
	table,
	action: 'delete',
	description,
	where: (now) => ({ sql: `${column} < ?`, params: [before(now, days * DAY_MS)] }),
});

/** The per-row rules, in the order the job applies them (pure). */
export function retentionRules(settings: RetentionSettings = DEFAULT_RETENTION): RetentionRule[] {
	return [
		{
			key: 'memory_turns',
			table: 'memory_turns',
			action: 'delete',
			description: `conversation memory older than ${settings.memoryTtlHours} h (expired) deleted`,
			where: (now) => ({ sql: 'expires_at <= ?', params: [now] }),
		},
		{
			key: 'crisis_events.details',
			table: 'crisis_events',
			action: 'anonymise',
			description: `crisis events older than ${settings.crisisDetailsDays} days: message excerpt and person's id removed (the event still counts)`,
			set: 'details = null, user_id = null',
			where: (now) => ({
				sql: 'created_at < ? and (details is not null or user_id is not null)',
				params: [before(now, settings.crisisDetailsDays * DAY_MS)],
			}),
		},
		deleteAfterDays('mood_check_ins', settings.checkInDays, `check-ins older than ${settings.checkInDays} days deleted`),
		deleteAfterDays('ghost_letters', settings.ghostLetterDays, `ghost letters older than ${settings.ghostLetterDays} days deleted`),
		deleteAfterDays('journal_entries', settings.checkInDays, `journal entries older than ${settings.checkInDays} days deleted (as check-ins)`),
		deleteAfterDays('gratitude_items', settings.checkInDays, `gratitude items older than ${settings.checkInDays} days deleted (as check-ins)`),
		{
			key: 'conversations.user_id',
			table: 'conversations',
			action: 'anonymise',
			description: `conversation counts older than ${settings.conversationUserDays} days lose their user id`,
			set: 'user_id = null',
			where: (now) => ({ sql: 'user_id is not null and created_at < ?', params: [before(now, settings.conversationUserDays * DAY_MS)] }),
		},
		{
			key: 'feedback.rejected',
			table: 'feedback',
			action: 'delete',
			description: `rejected feedback deleted ${settings.rejectedFeedbackDays} days after it was rejected`,
			where: (now) => ({
				sql: "status = 'rejected' and coalesce(reviewed_at, updated_at) < ?",
				params: [before(now, settings.rejectedFeedbackDays * DAY_MS)],
			}),
		},
		deleteAfterDays('game_rounds', GAME_ROUND_DAYS, `game rounds and their votes older than ${GAME_ROUND_DAYS} days deleted`),
		deleteAfterDays('safety_plans', SAFETY_PLAN_DAYS, `safety plans neither opened nor edited for ${SAFETY_PLAN_DAYS} days deleted`, 'used_at'),
		{
			...deleteAfterDays(
				'crisis_follow_ups',
				FOLLOW_UP_STALE_DAYS,
				`follow-ups still unsent ${FOLLOW_UP_STALE_DAYS} days after they were due deleted`,
				'due_at',
			),
			idColumn: 'user_id',
		},
	];
}

/** The retention table for people (README, `/privacy info`): what, how long, then what. Pure. */
export function retentionTable(settings: RetentionSettings = DEFAULT_RETENTION): { data: string; kept: string; then: string }[] {
	const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;
	return [
		{ data: 'Conversation memory', kept: `${settings.memoryTtlHours} hours (last ${RECENT_TURNS} turns per channel)`, then: 'deleted' },
		{ data: 'Crisis event details (message excerpt, who)', kept: days(settings.crisisDetailsDays), then: 'removed; the event stays as a count' },
		{ data: 'Mood check-ins and notes', kept: days(settings.checkInDays), then: 'deleted' },
		{ data: 'Ghost letters', kept: days(settings.ghostLetterDays), then: 'deleted' },
		{ data: 'Journal entries and gratitude items', kept: days(settings.checkInDays), then: 'deleted' },
		{ data: 'Who a conversation count belongs to', kept: days(settings.conversationUserDays), then: 'removed; the count stays' },
		{ data: 'Rejected feedback', kept: `${days(settings.rejectedFeedbackDays)} after review`, then: 'deleted' },
		{ data: 'Game rounds and votes', kept: days(GAME_ROUND_DAYS), then: 'deleted' },
		{ data: 'Safety plan', kept: `${days(SAFETY_PLAN_DAYS)} after you last opened or edited it`, then: 'deleted (`/safetyplan clear` any time)' },
		{ data: 'A follow-up you asked for ("check on me")', kept: 'until it is sent or cancelled', then: 'deleted; nothing of it is kept' },
		{
			data: "A server's settings and server data, after Haven leaves",
			kept: days(settings.guildGraceDays),
			then: 'deleted (rejoining in time cancels)',
		},
		{
			data: 'Preferences, feedback, check-in reminders',
			kept: 'until you change or delete them',
			then: 'gone with `/privacy delete` at any time',
		},
	];
}

export interface PurgeItem {
	key: string;
	table: string;
	action: 'delete' | 'anonymise';
	description: string;
	rows: number;
}

export interface PurgeReport {
	dryRun: boolean;
	now: string;
	items: PurgeItem[];
	/** Rows per item key (what went, or in a dry run what would go). */
	counts: Record<string, number>;
	/** Servers whose data went (or would go). */
	guilds: string[];
	total: number;
}

export interface PurgeOptions {
	dryRun?: boolean;
	settings?: RetentionSettings;
	/** Rows per statement, so a large backlog never holds one long lock. */
	batchSize?: number;
	/** Called after each rule, and after each server left long enough ago, with the rows it changed (or would). */
	onProgress?: (step: { key: string; rows: number }) => void;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

function affected(result: unknown): number {
	const value = (result as { affectedRows?: number; rowCount?: number } | undefined) ?? {};
	return value.affectedRows ?? value.rowCount ?? 0;
}

async function tableExists(em: EntityManager, table: string): Promise<boolean> {
	const rows = await em.execute<{ present: boolean }[]>('select to_regclass(?) is not null as present', [quote(table)]);
	return rows[0]?.present === true;
}

async function count(em: EntityManager, table: string, where: { sql: string; params: unknown[] }): Promise<number> {
	const rows = await em.execute<{ count: string | number }[]>(`select count(*) as count from ${quote(table)} where ${where.sql}`, where.params);
	return Number(rows[0]?.count ?? 0);
}

async function applyRule(em: EntityManager, rule: RetentionRule, now: Date, batchSize: number): Promise<number> {
	const where = rule.where(now);
	let total = 0;
	for (;;) {
		const id = quote(rule.idColumn ?? 'id');
		const inner = `select ${id} from ${quote(rule.table)} where ${where.sql} limit ${batchSize}`;
		const sql =
			rule.action === 'delete'
				? `delete from ${quote(rule.table)} where ${id} in (${inner})`
				: `update ${quote(rule.table)} set ${rule.set} where ${id} in (${inner})`;
		const rows = affected(await em.execute(sql, where.params, 'run'));
		total += rows;
		if (rows < batchSize) return total;
	}
}

/** Per-server steps for one left server, in order: every server column from the metadata, the `guilds` row last. */
function guildSteps(orm: MikroORM): ColumnRef[] {
	return guildColumns(orm.getMetadata()).sort(
		(a, b) => Number(a.table === 'guilds') - Number(b.table === 'guilds') || a.table.localeCompare(b.table),
	);
}

/**
 * Runs every retention rule once for `now`. A dry run counts and changes nothing. Each rule runs in batches; each
 * left server is purged in its own transaction, under a lock on its `guilds` row so a rejoin (which clears `left_at`)
 * either happens first and cancels, or waits and finds a fresh row.
 */
export async function purge(orm: MikroORM, now: Date, options: PurgeOptions = {}): Promise<PurgeReport> {
	const settings = options.settings ?? DEFAULT_RETENTION;
	const dryRun = options.dryRun === true;
	const batchSize = options.batchSize ?? 5_000;
	const em = orm.em.fork();
	const items: PurgeItem[] = [];

	for (const rule of retentionRules(settings)) {
		if (!(await tableExists(em, rule.table))) continue;
		const rows = dryRun ? await count(em, rule.table, rule.where(now)) : await applyRule(em, rule, now, batchSize);
		items.push({ key: rule.key, table: rule.table, action: rule.action, description: rule.description, rows });
		options.onProgress?.({ key: rule.key, rows });
	}

	const cutoff = before(now, settings.guildGraceDays * DAY_MS);
	const left = await em.execute<{ id: string }[]>('select id from guilds where left_at is not null and left_at <= ? order by left_at', [cutoff]);
	const steps = guildSteps(orm);
	const guildTotals = new Map<string, PurgeItem>();
	const purged: string[] = [];
	for (const { id } of left) {
		const done = await em.fork().transactional(async (tx) => {
			const still = await tx.execute<{ id: string }[]>(
				`select id from guilds where id = ? and left_at is not null and left_at <= ?${dryRun ? '' : ' for update'}`,
				[id, cutoff],
			);
			if (!still.length) return false; // rejoined meanwhile
			let serverRows = 0;
			for (const column of steps) {
				const policy = guildPolicyFor(column);
				const action = policy === 'nullify' && column.nullable && !column.primary ? 'anonymise' : 'delete';
				const key = `${column.table}${action === 'anonymise' ? `.${column.column}` : ''} (left servers)`;
				let rows: number;
				if (dryRun) {
					rows = await count(tx, column.table, { sql: `${quote(column.column)} = ?`, params: [id] });
				} else if (action === 'anonymise') {
					rows = affected(
						await tx.execute(
							`update ${quote(column.table)} set ${quote(column.column)} = null where ${quote(column.column)} = ?`,
							[id],
							'run',
						),
					);
				} else {
					rows = affected(await tx.execute(`delete from ${quote(column.table)} where ${quote(column.column)} = ?`, [id], 'run'));
				}
				const item = guildTotals.get(key) ?? {
					key,
					table: column.table,
					action,
					description:
						action === 'anonymise'
							? `${column.table}: server id removed (rows kept)`
							: `${column.table}: rows of servers left over ${settings.guildGraceDays} days ago deleted`,
					rows: 0,
				};
				item.rows += rows;
				serverRows += rows;
				guildTotals.set(key, item);
			}
			return serverRows;
		});
		if (done === false) continue;
		purged.push(id);
		options.onProgress?.({ key: `server ${id}`, rows: done });
	}
	// Always report the server steps, zero or not, so the output has the same shape every time.
	for (const column of steps) {
		const action = guildPolicyFor(column) === 'nullify' && column.nullable && !column.primary ? 'anonymise' : 'delete';
		const key = `${column.table}${action === 'anonymise' ? `.${column.column}` : ''} (left servers)`;
		if (!guildTotals.has(key)) {
			guildTotals.set(key, {
				key,
				table: column.table,
				action,
				description:
					action === 'anonymise'
						? `${column.table}: server id removed (rows kept)`
						: `${column.table}: rows of servers left over ${settings.guildGraceDays} days ago deleted`,
				rows: 0,
			});
		}
	}
	items.push(...guildTotals.values());

	const counts = Object.fromEntries(items.map((item) => [item.key, item.rows]));
	return { dryRun, now: now.toISOString(), items, counts, guilds: purged, total: items.reduce((sum, item) => sum + item.rows, 0) };
}

/** The report as lines for a terminal or a log (counts only, never content). */
export function describePurge(report: PurgeReport): string[] {
	const verb = (item: PurgeItem) =>
		report.dryRun ? (item.action === 'delete' ? 'would be deleted' : 'would be anonymised') : item.action === 'delete' ? 'deleted' : 'anonymised';
	const width = Math.max(...report.items.map((item) => item.key.length), 10);
	return [
		`${report.dryRun ? 'Dry run (nothing changed)' : 'Purge'} at ${report.now}`,
		...report.items.map((item) => `${item.key.padEnd(width)}  ${String(item.rows).padStart(7)} ${verb(item)}`),
		`Servers left more than the grace period ago: ${report.guilds.length}${report.guilds.length ? ` (${report.guilds.join(', ')})` : ''}`,
		`Total: ${report.total} row${report.total === 1 ? '' : 's'} ${report.dryRun ? 'would change' : 'changed'}`,
	];
}

// ---------------------------------------------------------------------------------------------------------------------
// Scheduler

export interface RetentionLog {
	info(message: string): void;
	warn(message: string): void;
	debug(message: string): void;
}

export interface RetentionSchedulerOptions {
	orm: MikroORM;
	/** Time between runs. */
	intervalMs: number;
	/** Before the first run (default: the interval, at most a minute). */
	firstRunMs?: number;
	settings?: RetentionSettings;
	log: RetentionLog;
	/** The clock (tests inject one). */
	now?: () => Date;
	/**
	 * Runs a purge unless another instance of the fleet is purging or just did (src/lib/fleet: `runFleetJob`);
	 * resolves undefined when it skipped. Unset: every scheduled purge runs here.
	 */
	exclusive?: (work: () => Promise<PurgeReport>) => Promise<PurgeReport | undefined>;
}

export interface RetentionScheduler {
	/** Run once now (waits for a run already in progress first). */
	runNow(): Promise<PurgeReport | undefined>;
	readonly lastReport: PurgeReport | undefined;
	/** Stops the timer and waits for a run in progress; no timer is left behind. */
	stop(): Promise<void>;
}

/** Runs `purge` every `intervalMs` (a chain of timeouts, so runs never overlap). Timers are unref'd. */
export function startRetentionScheduler(options: RetentionSchedulerOptions): RetentionScheduler {
	const clock = options.now ?? (() => new Date());
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<PurgeReport | undefined> | undefined;
	let stopped = false;
	let lastReport: PurgeReport | undefined;

	const run = async (): Promise<PurgeReport | undefined> => {
		try {
			const work = () => purge(options.orm, clock(), { settings: options.settings });
			const report = options.exclusive ? await options.exclusive(work) : await work();
			if (!report) {
				options.log.debug('Retention purge: another instance of the fleet runs it');
				return undefined;
			}
			lastReport = report;
			const line = `Retention purge: ${report.total} row(s) changed${
				report.total
					? ` (${report.items
							.filter((item) => item.rows)
							.map((item) => `${item.key} ${item.rows}`)
							.join(', ')})`
					: ''
			}`;
			if (report.total) options.log.info(line);
			else options.log.debug(line);
			return report;
		} catch (error) {
			options.log.warn(
				`Retention purge failed; it runs again in ${Math.round(options.intervalMs / 1000)} s: ${error instanceof Error ? error.name : 'error'}`,
			);
			return undefined;
		}
	};
	const once = () => {
		if (running) return running.then(() => runOnce());
		return runOnce();
	};
	const runOnce = (): Promise<PurgeReport | undefined> => {
		const current = run().finally(() => {
			if (running === current) running = undefined;
		});
		running = current;
		return current;
	};
	const schedule = (delay: number) => {
		if (stopped) return;
		timer = setTimeout(() => {
			timer = undefined;
			void once().finally(() => schedule(options.intervalMs));
		}, delay);
		timer.unref();
	};
	schedule(options.firstRunMs ?? Math.min(options.intervalMs, 60_000));

	return {
		runNow: once,
		get lastReport() {
			return lastReport;
		},
		async stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
			timer = undefined;
			await running;
		},
	};
}

/** Settings from the configuration's `retention` block (the parts this module uses). */
export function retentionSettings(config: { retention: RetentionSettings }): RetentionSettings {
	const { memoryTtlHours, crisisDetailsDays, checkInDays, ghostLetterDays, conversationUserDays, rejectedFeedbackDays, guildGraceDays } =
		config.retention;
	return { memoryTtlHours, crisisDetailsDays, checkInDays, ghostLetterDays, conversationUserDays, rejectedFeedbackDays, guildGraceDays };
}

export const RETENTION_UNITS = { DAY_MS, HOUR_MS };
