/**
 * SHARD_COUNT and SHARD_IDS, parsed (pure; src/lib/core/config.ts uses these).
 * - SHARD_COUNT: the whole fleet's number of shards, or `auto` for Discord's recommendation (GET /gateway/bot).
 * - SHARD_IDS: the shards this instance connects, as ids and ranges (`0-3,8`). Unset: every shard of the count.
 */

export type ShardCountSetting = number | 'auto';

/** The most shards a fleet may declare (Discord's largest bots run a few thousand). */
export const MAX_SHARDS = 65_536;

export function parseShardCount(value: string | undefined): ShardCountSetting | string {
	if (value === undefined || value.trim() === '' || value.trim().toLowerCase() === 'auto') return 'auto';
	const parsed = Number(value.trim());
	if (!Number.isInteger(parsed) || parsed < 1 || parsed > MAX_SHARDS) return `SHARD_COUNT must be auto or a whole number from 1 to ${MAX_SHARDS}`;
	return parsed;
}

/** `0-3,8` -> [0, 1, 2, 3, 8] (sorted, without repeats); undefined when unset; a message when malformed. */
export function parseShardIds(value: string | undefined): number[] | undefined | string {
	if (value === undefined || value.trim() === '') return undefined;
	const ids = new Set<number>();
	for (const part of value.split(',').map((item) => item.trim())) {
		const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
		if (!match) return `SHARD_IDS must be shard ids and ranges such as 0-3,8 (found "${part.slice(0, 20)}")`;
		const from = Number(match[1]);
		const to = match[2] === undefined ? from : Number(match[2]);
		if (to < from) return `SHARD_IDS: the range ${part} runs backwards`;
		if (to >= MAX_SHARDS) return `SHARD_IDS: shard ${to} is beyond ${MAX_SHARDS - 1}`;
		for (let id = from; id <= to; id++) ids.add(id);
	}
	return [...ids].sort((a, b) => a - b);
}

/** Problems with the pair (empty when fine): ids need a count, and must lie inside it. */
export function shardSettingProblems(count: ShardCountSetting, ids: readonly number[] | undefined, countWasSet: boolean): string[] {
	if (!ids) return [];
	if (!countWasSet) return ['SHARD_IDS needs SHARD_COUNT: the whole fleet’s number of shards (a number, or auto)'];
	if (count !== 'auto') {
		const outside = ids.filter((id) => id >= count);
		if (outside.length) return [`SHARD_IDS lists shard ${outside.join(', ')}, outside SHARD_COUNT=${count} (shards 0 to ${count - 1})`];
	}
	return [];
}

/** [0, 1, 2, 3, 8] -> `0-3,8` (for logs and errors). */
export function formatShardIds(ids: readonly number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < ids.length;) {
		let j = i;
		while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
		parts.push(i === j ? `${ids[i]}` : `${ids[i]}-${ids[j]}`);
		i = j + 1;
	}
	return parts.join(',');
}

/** Discord's rule: a server's events come on shard (guild_id >> 22) % shardCount. */
export function shardOfGuild(guildId: string, shardCount: number): number {
	return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}
