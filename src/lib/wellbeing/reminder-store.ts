import type { EntityManager } from '@mikro-orm/postgresql';
import { nextDue, type DueReminder, type QuietHours, type ReminderSettingsView, type ReminderStore } from './reminders.ts';

/**
 * Check-in reminders in PostgreSQL (`check_in_reminders`, one row per person). Every timestamp written here comes
 * from JavaScript (millisecond precision), so the scheduler's compare-and-set on `next_due_at` compares like with like.
 */

interface Row {
	user_id: string;
	enabled: boolean;
	interval_minutes: number;
	timezone: string;
	quiet_start: number | null;
	quiet_end: number | null;
	next_due_at: Date | string;
	disabled_reason: string | null;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));
const quietOf = (row: Pick<Row, 'quiet_start' | 'quiet_end'>): QuietHours | null =>
	row.quiet_start === null || row.quiet_end === null ? null : { start: Number(row.quiet_start), end: Number(row.quiet_end) };

function toView(row: Row): ReminderSettingsView {
	return {
		enabled: row.enabled,
		intervalMinutes: Number(row.interval_minutes),
		timezone: row.timezone,
		quiet: quietOf(row),
		nextDueAt: asDate(row.next_due_at),
		disabledReason: row.disabled_reason,
	};
}

export function reminderStore(em: () => EntityManager): ReminderStore {
	return {
		async due(now, limit) {
			const rows = await em()
				.getConnection()
				.execute<Row[]>(
					'select user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, disabled_reason from check_in_reminders where enabled and next_due_at <= ? order by next_due_at limit ?',
					[now, limit],
				);
			return rows.map((row): DueReminder => ({
				userId: row.user_id,
				intervalMinutes: Number(row.interval_minutes),
				timezone: row.timezone,
				quiet: quietOf(row),
				nextDueAt: asDate(row.next_due_at),
			}));
		},
		async claim(userId, expected, next, sentAt) {
			const rows = await em()
				.getConnection()
				.execute<{ user_id: string }[]>(
					`update check_in_reminders set next_due_at = ?, last_sent_at = coalesce(?, last_sent_at), updated_at = ?
					 where user_id = ? and enabled and next_due_at = ? returning user_id`,
					[next, sentAt, sentAt ?? next, userId, expected],
				);
			return rows.length === 1;
		},
		async claimDue(now, limit, plan) {
			// One short transaction: lock due rows nobody else holds (SKIP LOCKED: another instance's batch is left to
			// it), move each on, commit; the DMs go out after, so no row stays locked while Discord answers.
			return em().transactional(async (tx) => {
				const rows = await tx.execute<Row[]>(
					`select user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, disabled_reason from check_in_reminders
					 where enabled and next_due_at <= ? order by next_due_at limit ? for update skip locked`,
					[now, limit],
				);
				const claimed = rows.map((row) => {
					const reminder: DueReminder = {
						userId: row.user_id,
						intervalMinutes: Number(row.interval_minutes),
						timezone: row.timezone,
						quiet: quietOf(row),
						nextDueAt: asDate(row.next_due_at),
					};
					return { reminder, plan: plan(reminder) };
				});
				if (claimed.length)
					await tx.execute(
						`update check_in_reminders r set next_due_at = v.next_due_at, last_sent_at = coalesce(v.sent_at, r.last_sent_at),
						   updated_at = coalesce(v.sent_at, v.next_due_at)
						 from (select * from unnest(?::varchar[], ?::timestamptz[], ?::timestamptz[]) as t(user_id, next_due_at, sent_at)) v
						 where r.user_id = v.user_id`,
						[
							`{${claimed.map(({ reminder }) => `"${reminder.userId.replace(/["\\]/g, '')}"`).join(',')}}`,
							`{${claimed.map(({ plan }) => plan.next.toISOString()).join(',')}}`,
							`{${claimed.map(({ plan }) => plan.sentAt?.toISOString() ?? 'NULL').join(',')}}`,
						],
						'run',
					);
				return claimed;
			});
		},
		async disable(userId, reason, now) {
			await em()
				.getConnection()
				.execute(
					'update check_in_reminders set enabled = false, disabled_reason = ?, updated_at = ? where user_id = ?',
					[reason, now, userId],
					'run',
				);
		},
	};
}

export async function getReminder(em: EntityManager, userId: string): Promise<ReminderSettingsView | null> {
	const rows = await em
		.getConnection()
		.execute<Row[]>(
			'select user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, disabled_reason from check_in_reminders where user_id = ?',
			[userId],
		);
	return rows[0] ? toView(rows[0]) : null;
}

export interface ReminderChoice {
	intervalMinutes: number;
	timezone: string;
	/** null: no quiet hours (stored as equal start and end). */
	quiet: QuietHours | null;
}

/** Turns reminders on (or changes them); the first is due one interval from `now`. */
export async function setReminder(em: EntityManager, userId: string, choice: ReminderChoice, now: Date): Promise<ReminderSettingsView> {
	const quiet = choice.quiet ?? { start: 0, end: 0 };
	const due = nextDue(now, { ...choice, quiet });
	const rows = await em.getConnection().execute<Row[]>(
		`insert into check_in_reminders (user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, last_sent_at, disabled_reason, created_at, updated_at)
		 values (?, true, ?, ?, ?, ?, ?, null, null, ?, ?)
		 on conflict (user_id) do update set enabled = true, interval_minutes = excluded.interval_minutes, timezone = excluded.timezone,
		   quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, next_due_at = excluded.next_due_at, disabled_reason = null, updated_at = excluded.updated_at
		 returning user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, disabled_reason`,
		[userId, choice.intervalMinutes, choice.timezone, quiet.start, quiet.end, due, now, now],
	);
	return toView(rows[0]!);
}

/** Turns reminders off; false when they were not on. The row (the person's choices) is kept for `set` to reuse. */
export async function disableReminder(em: EntityManager, userId: string, now: Date, reason = 'user'): Promise<boolean> {
	const rows = await em
		.getConnection()
		.execute<{ user_id: string }[]>(
			'update check_in_reminders set enabled = false, disabled_reason = ?, updated_at = ? where user_id = ? and enabled returning user_id',
			[reason, now, userId],
		);
	return rows.length === 1;
}

/** A check-in postpones the next reminder to one interval from now. Returns the new due time, if reminders are on. */
export async function postponeReminder(em: EntityManager, userId: string, now: Date): Promise<Date | null> {
	const current = await getReminder(em, userId);
	if (!current?.enabled) return null;
	const due = nextDue(now, current);
	await em
		.getConnection()
		.execute('update check_in_reminders set next_due_at = ?, updated_at = ? where user_id = ? and enabled', [due, now, userId], 'run');
	return due;
}
