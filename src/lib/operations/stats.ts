import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { StatsBody } from '../api/schemas.ts';

/**
 * `GET /v1/stats`. Definitions (README "Stats"):
 * - users, conversations, moodCheckIns, crisisEvents: lifetime totals from `stat_counters`, which triggers bump inside
 *   the inserting transaction (users = people served: a first command, DM or mention, see served.ts;
 *   conversations = answered companion turns on Discord and POST /v1/chat, moodCheckIns = check-ins recorded, crisisEvents = screened messages answered with resources).
 *   Reading them is one primary-key lookup of four rows, whatever the size of the tables, and they never decrease
 *   when rows are purged or deleted on request. The result is kept for STATS_CACHE_MS (default 5 s; 0 = read every
 *   time), refreshed in the background by one query at a time, so the endpoint costs no database work per request.
 * - guilds: servers Haven is in now: the live Discord cache when the bot is connected, else the `guilds` rows not
 *   marked as left, counted at most every 30 s (stale-while-revalidate, one count at a time).
 */

export const COUNTERS = ['users', 'conversations', 'moodCheckIns', 'crisisEvents'] as const;
export type CounterName = (typeof COUNTERS)[number];
export const GUILD_COUNT_TTL_MS = 30_000;

export async function readCounters(em: EntityManager): Promise<Record<CounterName, number>> {
	const rows = await em
		.getConnection()
		.execute<{ name: string; value: string | number }[]>(
			`select name, value from stat_counters where name in (${COUNTERS.map(() => '?').join(', ')})`,
			[...COUNTERS],
		);
	const totals = Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Record<CounterName, number>;
	for (const row of rows) totals[row.name as CounterName] = Number(row.value);
	return totals;
}

export async function countActiveGuilds(em: EntityManager): Promise<number> {
	const [row] = await em.getConnection().execute<{ count: string | number }[]>('select count(*) as count from guilds where left_at is null');
	return Number(row?.count ?? 0);
}

/** A memoised load: `get` as described at `staleWhileRevalidate`; `peek` the same without waiting (undefined before the first load). */
export interface Cached<T> {
	(): Promise<T>;
	peek(): T | undefined;
}

/**
 * Memoises `load` for `ttlMs`. Once a value exists, an expired value is still returned while one refresh runs in the
 * background (a failed refresh keeps the old value and retries on a later call); before that, callers share one load.
 */
export function staleWhileRevalidate<T>(load: () => Promise<T>, ttlMs: number, now: () => number = Date.now): Cached<T> {
	let value: { data: T; at: number } | undefined;
	let pending: Promise<T> | undefined;
	const refresh = () =>
		(pending ??= load().then(
			(data) => {
				value = { data, at: now() };
				pending = undefined;
				return data;
			},
			(error: unknown) => {
				pending = undefined;
				throw error;
			},
		));
	const peek = () => {
		if (value && now() - value.at >= ttlMs) refresh().catch(() => undefined);
		return value?.data;
	};
	return Object.assign(async () => peek() ?? refresh(), { peek });
}

export interface StatsSource {
	read(): Promise<StatsBody>;
	/** The stats at once when they are cached (refreshing them in the background when stale), else undefined. */
	peek(): StatsBody | undefined;
	guilds(): Promise<number>;
}

export interface StatsOptions {
	orm: MikroORM;
	/** Servers in the live Discord cache, or undefined when the bot is not connected. */
	liveGuilds: () => number | undefined;
	guildTtlMs?: number;
	/** How long the counter totals are reused; 0 reads them on every call. */
	countersTtlMs?: number;
	now?: () => number;
}

export function createStats({ orm, liveGuilds, guildTtlMs = GUILD_COUNT_TTL_MS, countersTtlMs = 0, now }: StatsOptions): StatsSource {
	const storedGuilds = staleWhileRevalidate(() => countActiveGuilds(orm.em.fork()), guildTtlMs, now);
	const load = () => readCounters(orm.em.fork());
	const counters = countersTtlMs > 0 ? staleWhileRevalidate(load, countersTtlMs, now) : Object.assign(load, { peek: () => undefined });
	const guilds = async () => liveGuilds() ?? (await storedGuilds());
	const body = (totals: Record<CounterName, number>, guildCount: number): StatsBody => ({
		users: totals.users,
		guilds: guildCount,
		conversations: totals.conversations,
		moodCheckIns: totals.moodCheckIns,
		crisisEvents: totals.crisisEvents,
	});
	return {
		guilds,
		async read() {
			const [totals, guildCount] = await Promise.all([counters(), guilds()]);
			return body(totals, guildCount);
		},
		peek() {
			const totals = counters.peek();
			const guildCount = totals && (liveGuilds() ?? storedGuilds.peek());
			return totals && guildCount !== undefined ? body(totals, guildCount) : undefined;
		},
	};
}
