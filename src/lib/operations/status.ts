import { container } from '@sapphire/framework';
import { Events, Status as GatewayStatus, type Client } from 'discord.js';
import { SHARD_STATES, type ShardBody, type StatusBody } from '../api/schemas.ts';

/**
 * `GET /v1/status` and the heartbeat. The overall status is a pure function of the shards:
 * - no bot (API-only mode: TOKEN or CLIENT_ID unset) and no fleet in the database: `degraded`, no shards;
 * - in a fleet (src/lib/fleet), every shard of the fleet's count, whichever instance answers: a shard whose owner
 *   stopped heartbeating is `disconnected`;
 * - `starting` until every shard has been ready at least once (and while the shard list is still empty);
 * - `degraded` while any shard is not `ready` (reconnecting, resuming, disconnected ...);
 * - `ok` otherwise.
 */

export type ShardState = (typeof SHARD_STATES)[number];

export interface ShardSnapshot {
	id: number;
	state: ShardState;
	/** Last heartbeat round trip; null until the first acknowledgement. */
	latencyMs: number | null;
	guilds: number;
	lastReady: Date | null;
	resumes: number;
}

export interface StatusInput {
	botEnabled: boolean;
	shards: readonly ShardSnapshot[];
	guilds: number;
	version: string;
	startedAt: Date;
	now: Date;
}

export function overallStatus(botEnabled: boolean, shards: readonly ShardSnapshot[]): StatusBody['status'] {
	if (!botEnabled) return 'degraded';
	if (shards.length === 0 || shards.some((shard) => shard.lastReady === null)) return 'starting';
	return shards.every((shard) => shard.state === 'ready') ? 'ok' : 'degraded';
}

export function computeStatus({ botEnabled, shards, guilds, version, startedAt, now }: StatusInput): StatusBody {
	return {
		status: overallStatus(botEnabled, shards),
		version,
		startedAt: startedAt.toISOString(),
		uptimeSeconds: Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / 1000)),
		shardCount: botEnabled ? shards.length : 0,
		guilds,
		generatedAt: now.toISOString(),
		shards: botEnabled ? shards.map(shardBody) : [],
	};
}

function shardBody(shard: ShardSnapshot): ShardBody {
	return {
		id: shard.id,
		state: shard.state,
		latencyMs: shard.latencyMs,
		guilds: shard.guilds,
		lastReady: shard.lastReady?.toISOString() ?? null,
		resumes: shard.resumes,
	};
}

/** discord.js `Status.WaitingForGuilds` -> `waitingForGuilds`. */
export function shardState(status: number): ShardState {
	const name = GatewayStatus[status] as string | undefined;
	const state = name ? name[0]!.toLowerCase() + name.slice(1) : undefined;
	return SHARD_STATES.includes(state as ShardState) ? (state as ShardState) : 'disconnected';
}

/**
 * What discord.js does not keep per shard: when it was last ready and how often it resumed. `attach` follows the
 * client's `shardReady`/`shardResume` events (startHaven does it); `ready`/`resumed` are there for anything else that
 * learns about a shard. `snapshot` joins this with the live state, latency and guilds of each shard.
 */
export class ShardTracker {
	readonly #shards = new Map<number, { lastReady: Date | null; resumes: number }>();

	ready(id: number, at = new Date()): void {
		this.#entry(id).lastReady = at;
	}

	resumed(id: number): void {
		this.#entry(id).resumes++;
	}

	attach(client: Client): () => void {
		const onReady = (id: number) => this.ready(id);
		const onResume = (id: number) => this.resumed(id);
		client.on(Events.ShardReady, onReady).on(Events.ShardResume, onResume);
		return () => void client.off(Events.ShardReady, onReady).off(Events.ShardResume, onResume);
	}

	snapshot(client: Client): ShardSnapshot[] {
		const perShard = new Map<number, number>();
		for (const guild of client.guilds.cache.values()) perShard.set(guild.shardId, (perShard.get(guild.shardId) ?? 0) + 1);
		return [...client.ws.shards.values()]
			.sort((a, b) => a.id - b.id)
			.map((shard) => {
				const tracked = this.#shards.get(shard.id);
				return {
					id: shard.id,
					state: shardState(shard.status),
					latencyMs: shard.ping >= 0 ? Math.round(shard.ping) : null,
					guilds: perShard.get(shard.id) ?? 0,
					lastReady: tracked?.lastReady ?? null,
					resumes: tracked?.resumes ?? 0,
				};
			});
	}

	#entry(id: number) {
		let entry = this.#shards.get(id);
		if (!entry) this.#shards.set(id, (entry = { lastReady: null, resumes: 0 }));
		return entry;
	}
}

export interface LiveStatusSources {
	client: Client;
	botEnabled: boolean;
	shards: ShardTracker;
	/**
	 * Every shard of the fleet (src/lib/fleet): this instance's live, the others' from the database. When given, the
	 * status covers them all, on an API-only instance too.
	 */
	fleet?: () => Promise<{ total: number; shards: ShardSnapshot[] }>;
	guilds: () => Promise<number>;
	version: string;
	startedAt: Date;
}

/** The status right now, from the running client (used by `GET /v1/status` and the heartbeat). */
export async function liveStatus(sources: LiveStatusSources): Promise<StatusBody> {
	const [guilds, fleet] = await Promise.all([sources.guilds(), sources.fleet?.()]);
	const botEnabled = sources.botEnabled || (fleet !== undefined && fleet.total > 0);
	return computeStatus({
		botEnabled,
		shards: fleet ? fleet.shards : sources.botEnabled ? sources.shards.snapshot(sources.client) : [],
		guilds,
		version: sources.version,
		startedAt: sources.startedAt,
		now: new Date(),
	});
}

/** `liveStatus` of this process's services on the Sapphire container. */
export function currentStatus(): Promise<StatusBody> {
	const { client, config, shards, stats, version, startedAt, fleet } = container;
	return liveStatus({
		client,
		botEnabled: config.discord.enabled,
		shards,
		fleet: fleet && (() => fleet.shards()),
		guilds: stats.guilds,
		version,
		startedAt,
	});
}
