import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Everyone Haven has served, once: the first command (slash or context menu), DM or mention of each person adds a
 * `served_users` row, whose insert trigger counts them in the `users` total of `GET /v1/stats`. Only the id and the
 * time are kept; `/privacy delete` removes the row and the total keeps counting. A bounded in-memory set of ids
 * already recorded spares the database a write per interaction.
 */

// Only a cache in front of an idempotent insert: in a fleet each instance keeps its own, and the row is written once.
const RECENT_MAX = 10_000;
const recent = new Set<string>();

export async function recordServed(em: EntityManager, userId: string, now = new Date()): Promise<void> {
	if (recent.has(userId)) return;
	await em
		.getConnection()
		.execute('insert into served_users (user_id, first_seen_at) values (?, ?) on conflict (user_id) do nothing', [userId, now], 'run');
	if (recent.size >= RECENT_MAX) recent.clear();
	recent.add(userId);
}

/** Forgets the in-memory mark (after `/privacy delete`, and in tests), so the next use records the person again. */
export function forgetServed(userId?: string): void {
	if (userId === undefined) recent.clear();
	else recent.delete(userId);
}
