import type { EntityManager } from '@mikro-orm/postgresql';
import type { Guild, GuildMember } from 'discord.js';

/**
 * Keeps the `guilds` table's membership columns in line with Discord (settings are never touched): a row per server
 * Haven is in, `left_at` set when it leaves. `GET /v1/stats` counts these rows when the bot is not connected.
 */

const BATCH = 500;

/** Haven is in these servers (joined now, or found at startup): insert or clear `left_at`. */
export async function markJoined(em: EntityManager, guildIds: readonly string[], now = new Date()): Promise<void> {
	for (let at = 0; at < guildIds.length; at += BATCH) {
		const batch = guildIds.slice(at, at + BATCH);
		await em.getConnection().execute(
			`insert into guilds (id, settings, joined_at, left_at, updated_at) values ${batch.map(() => `(?, '{}', ?, null, ?)`).join(', ')}
			 on conflict (id) do update set left_at = null, updated_at = excluded.updated_at where guilds.left_at is not null`,
			batch.flatMap((id) => [id, now, now]),
		);
	}
}

export async function markLeft(em: EntityManager, guildId: string, now = new Date()): Promise<void> {
	await em.getConnection().execute('update guilds set left_at = ?, updated_at = ? where id = ? and left_at is null', [now, now, guildId]);
}

/** The shards this process connects, out of the fleet's total (src/lib/fleet). */
export interface ShardScope {
	shardCount: number;
	shardIds: readonly number[];
}

/**
 * At startup, once this process's shards are ready: servers not in `present` were left while Haven was away. Only
 * servers of this process's own shards (`scope`; a server's shard is (id >> 22) % shardCount) can be marked left:
 * another instance's servers are not in `present` because another instance connects them, not because Haven left.
 * Without a scope, or when the scope is every shard, every server counts, as for a single instance.
 */
export async function syncGuilds(em: EntityManager, present: readonly string[], now = new Date(), scope?: ShardScope): Promise<void> {
	await markJoined(em, present, now);
	// Snowflakes are digits only, so a PostgreSQL array literal is safe and keeps this one parameter at any size.
	const ids = `{${present.filter((id) => /^\d+$/.test(id)).join(',')}}`;
	const partial = scope && new Set(scope.shardIds.filter((id) => id >= 0 && id < scope.shardCount)).size < scope.shardCount;
	if (!partial) {
		await em
			.getConnection()
			.execute('update guilds set left_at = ?, updated_at = ? where left_at is null and not (id = any(?::varchar[]))', [now, now, ids]);
		return;
	}
	await em.getConnection().execute(
		`update guilds set left_at = ?, updated_at = ? where left_at is null and not (id = any(?::varchar[]))
		 and (case when id ~ '^[0-9]{1,20}$' then (floor(id::numeric / 4194304) % ?)::int else -1 end) = any(?::int[])`,
		[now, now, ids, scope.shardCount, `{${scope.shardIds.join(',')}}`],
	);
}

/** Haven's own member in a guild: the cached one, else fetched (member caches are bounded, see client-options.ts). */
export function botMember(guild: Guild): Promise<GuildMember> {
	return guild.members.me ? Promise.resolve(guild.members.me) : guild.members.fetchMe();
}
