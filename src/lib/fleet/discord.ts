import { Routes, type Client, type RESTGetAPIGatewayBotResult } from 'discord.js';
import type { Config } from '../core/config.ts';

/**
 * The shards this instance connects: SHARD_COUNT (`auto`, or unset: Discord's recommendation from GET /gateway/bot,
 * asked before connecting so that the claim in the database names real shards) and SHARD_IDS (unset: all of them).
 */
export async function fleetShardsFor(client: Client, config: Config): Promise<{ shardCount: number; shardIds: number[] }> {
	let shardCount: number;
	if (config.fleet.shardCount === 'auto') {
		client.rest.setToken(config.discord.token!);
		const gateway = (await client.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
		shardCount = Math.max(1, Number(gateway.shards) || 1);
	} else shardCount = config.fleet.shardCount;
	const shardIds = config.fleet.shardIds ?? Array.from({ length: shardCount }, (_, id) => id);
	return { shardCount, shardIds };
}

/**
 * discord.js reads SHARD_COUNT (and SHARDS) from the environment when a client is built: that is how its own
 * ShardingManager talks to the processes it spawns. Haven's SHARD_COUNT is the fleet's total, may be `auto`, and is
 * applied to the client after the claim (startHaven), so the client is built with it out of sight.
 */
export function withoutShardingEnvironment<T>(build: () => T): T {
	const saved = process.env.SHARD_COUNT;
	if (saved === undefined) return build();
	delete process.env.SHARD_COUNT;
	try {
		return build();
	} finally {
		process.env.SHARD_COUNT = saved;
	}
}
