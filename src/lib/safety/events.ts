import type { EntityManager } from '@mikro-orm/postgresql';
import { CrisisEvent, type CRISIS_TRIGGERS } from '../db/index.ts';
import type { CrisisCategory, CrisisLevel } from '../crisis/screen.ts';
import type { AlertAction, AlertState } from './crisis-views.ts';

/**
 * Crisis events in the database. One row per triggering message that screened above none; the `crisisEvents`
 * counter is kept by the table's insert trigger. What a row holds is decided by the caller (see policy.ts):
 * `userId` only when alerts or the author offer need it to deduplicate, `details` only in servers with alerts on
 * (then encrypted by the column type).
 */

export type CrisisTrigger = (typeof CRISIS_TRIGGERS)[number];

export interface NewCrisisEvent {
	guildId: string | null;
	userId: string | null;
	level: Exclude<CrisisLevel, 'none'>;
	categories: readonly CrisisCategory[];
	trigger: CrisisTrigger;
	details: string | null;
}

export async function recordCrisisEvent(em: EntityManager, event: NewCrisisEvent): Promise<number> {
	const row = em.create(CrisisEvent, {
		guildId: event.guildId,
		userId: event.userId,
		level: event.level,
		categories: [...event.categories],
		trigger: event.trigger,
		details: event.details,
	});
	await em.flush();
	return row.id;
}

/** Levels of the alerts already posted about this person in this server since `since`. */
export async function alertedLevels(em: EntityManager, guildId: string, userId: string, since: Date): Promise<string[]> {
	const rows = await em
		.getConnection()
		.execute<{ level: string }[]>(
			'select level from crisis_events where guild_id = ? and user_id = ? and alert_message_id is not null and created_at > ?',
			[guildId, userId, since],
		);
	return rows.map((row) => row.level);
}

export async function setAlertMessage(em: EntityManager, eventId: number, messageId: string): Promise<void> {
	await em.getConnection().execute('update crisis_events set alert_message_id = ? where id = ?', [messageId, eventId]);
}

export interface AlertRecord extends AlertState {
	id: number;
	guildId: string | null;
	level: string;
	trigger: string;
}

export async function findAlert(em: EntityManager, eventId: number): Promise<AlertRecord | null> {
	const rows = await em.getConnection().execute<
		{
			id: number;
			guild_id: string | null;
			level: string;
			trigger: string;
			acknowledged_by: string | null;
			acknowledged_at: Date | null;
			resolved_by: string | null;
			resolved_at: Date | null;
		}[]
	>('select id, guild_id, level, trigger, acknowledged_by, acknowledged_at, resolved_by, resolved_at from crisis_events where id = ?', [eventId]);
	const row = rows[0];
	if (!row) return null;
	const date = (value: Date | string | null) => (value === null ? null : new Date(value));
	return {
		id: row.id,
		guildId: row.guild_id,
		level: row.level,
		trigger: row.trigger,
		acknowledgedBy: row.acknowledged_by,
		acknowledgedAt: date(row.acknowledged_at),
		resolvedBy: row.resolved_by,
		resolvedAt: date(row.resolved_at),
	};
}

/**
 * Records who acknowledged or resolved an alert, and when: first press wins (a conditional update, so two moderators
 * pressing at once cannot overwrite each other). Resolving also acknowledges an alert nobody acknowledged.
 * Returns whether this press changed anything.
 */
export async function markAlert(
	em: EntityManager,
	eventId: number,
	guildId: string,
	action: AlertAction,
	memberId: string,
	now = new Date(),
): Promise<boolean> {
	const connection = em.getConnection();
	if (action === 'ack') {
		const result = await connection.execute(
			'update crisis_events set acknowledged_by = ?, acknowledged_at = ? where id = ? and guild_id = ? and acknowledged_by is null and resolved_by is null',
			[memberId, now, eventId, guildId],
			'run',
		);
		return affected(result) > 0;
	}
	const result = await connection.execute(
		`update crisis_events set resolved_by = ?, resolved_at = ?,
		   acknowledged_by = coalesce(acknowledged_by, ?), acknowledged_at = coalesce(acknowledged_at, ?)
		 where id = ? and guild_id = ? and resolved_by is null`,
		[memberId, now, memberId, now, eventId, guildId],
		'run',
	);
	return affected(result) > 0;
}

function affected(result: unknown): number {
	const value = (result as { affectedRows?: number; rowCount?: number } | undefined) ?? {};
	return value.affectedRows ?? value.rowCount ?? 0;
}
