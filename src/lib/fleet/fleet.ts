import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ShardSnapshot, ShardState } from '../operations/status.ts';
import { formatShardIds } from './shard-config.ts';

/**
 * Several Haven instances on one PostgreSQL (a fleet). One instance with no shard settings is a fleet of one and
 * behaves as before; everything here is how the instances agree without talking to each other:
 *
 * - `fleet_shards`: one row per shard: which instance connects it, its state, latency, guilds, last ready, resumes,
 *   and a heartbeat (`heartbeat_at`, every FLEET_HEARTBEAT_MS). An owner whose heartbeat is older than three beats is
 *   gone: its shards show as disconnected in every instance's /v1/status, and another instance may claim them.
 * - `claimShards` at start, under a fleet-wide advisory lock: refuses (with the reason) shards another live instance
 *   holds, shards outside the count, and a count other live instances disagree with. A just-killed predecessor's
 *   rows are waited out (up to one stale period) before refusing, so a restart after a crash does not need a person.
 * - `fleet_identify`: one lease per max_concurrency bucket, held 5.5 s after each IDENTIFY: Discord's login rate,
 *   respected by all the fleet's shards together (`fleetIdentifyThrottler`, given to discord.js as
 *   `ws.buildIdentifyThrottler`).
 * - `fleet_jobs`: `runFleetJob` runs a fleet-wide job (the retention purge, the release check, the bot-list post) on
 *   one instance at a time (pg_try_advisory_xact_lock) and at most once per its period across the fleet.
 */

declare module '@sapphire/pieces' {
	interface Container {
		/** The fleet's shared state (src/lib/fleet/fleet.ts); undefined until the database is open. */
		fleet?: Fleet;
	}
}

export interface FleetLog {
	info(message: string): void;
	warn(message: string): void;
	error(message: string): void;
}

/** Beats without news after which an owner is considered gone. */
export const STALE_BEATS = 3;
/** Namespace of Haven's fleet advisory locks (the second key tells them apart). */
const FLEET_LOCK = 7264192;
const CLAIM_LOCK_KEY = 0;
/**
 * How long a bucket stays taken after an IDENTIFY. Discord allows max_concurrency identifies per 5 s, counted when
 * they arrive; the lease is taken before the IDENTIFY is sent, and a loaded process can send it a few hundred ms
 * later than the next one, so the lease holds half a second more than Discord's window.
 */
export const IDENTIFY_HOLD_MS = 5_500;

/** This process, as other instances see it in `fleet_shards` and in errors: host, pid and a random tag. */
export function newInstanceId(): string {
	return `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export interface FleetRow {
	shardId: number;
	shardCount: number;
	instanceId: string | null;
	state: ShardState;
	latencyMs: number | null;
	guilds: number;
	lastReady: Date | null;
	resumes: number;
	heartbeatAt: Date;
	/** Owned, and the owner's heartbeat is fresh. */
	live: boolean;
}

interface RawRow {
	shard_id: number;
	shard_count: number;
	instance_id: string | null;
	state: string;
	latency_ms: number | null;
	guilds: number;
	last_ready: Date | string | null;
	resumes: number;
	heartbeat_at: Date | string;
	live: boolean;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function toRow(raw: RawRow): FleetRow {
	return {
		shardId: Number(raw.shard_id),
		shardCount: Number(raw.shard_count),
		instanceId: raw.instance_id,
		state: raw.state as ShardState,
		latencyMs: raw.latency_ms === null ? null : Number(raw.latency_ms),
		guilds: Number(raw.guilds),
		lastReady: raw.last_ready === null ? null : asDate(raw.last_ready),
		resumes: Number(raw.resumes),
		heartbeatAt: asDate(raw.heartbeat_at),
		live: raw.live === true,
	};
}

type Executor = { execute<T>(sql: string, params?: unknown[], method?: 'all' | 'get' | 'run'): Promise<T> };

/** Every row, with `live` computed on the database's clock (instances' clocks may differ). */
export async function readFleet(em: Executor, staleMs: number): Promise<FleetRow[]> {
	const rows = await em.execute<RawRow[]>(
		`select shard_id, shard_count, instance_id, state, latency_ms, guilds, last_ready, resumes, heartbeat_at,
		   (instance_id is not null and heartbeat_at > now() - ? * interval '1 millisecond') as live
		 from fleet_shards order by shard_id`,
		[staleMs],
	);
	return rows.map(toRow);
}

export class FleetConflictError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'FleetConflictError';
	}
}

/** What stands in the way of `instanceId` connecting `shardIds` of `shardCount` (pure; empty: nothing). */
export function claimProblems(rows: readonly FleetRow[], instanceId: string, shardCount: number, shardIds: readonly number[]): string[] {
	const problems: string[] = [];
	const outside = shardIds.filter((id) => id < 0 || id >= shardCount);
	if (outside.length) problems.push(`shard ${formatShardIds(outside)} is outside the fleet's ${shardCount} shard(s) (0 to ${shardCount - 1})`);
	const others = rows.filter((row) => row.live && row.instanceId !== instanceId);
	const counts = new Map<number, Set<string>>();
	for (const row of others)
		if (row.shardCount !== shardCount)
			(counts.get(row.shardCount) ?? counts.set(row.shardCount, new Set()).get(row.shardCount)!).add(row.instanceId!);
	for (const [count, owners] of counts)
		problems.push(`SHARD_COUNT disagrees: this instance runs ${shardCount} shard(s), instance ${[...owners].join(', ')} runs ${count}`);
	const wanted = new Set(shardIds);
	const held = new Map<string, number[]>();
	for (const row of others)
		if (wanted.has(row.shardId)) (held.get(row.instanceId!) ?? held.set(row.instanceId!, []).get(row.instanceId!)!).push(row.shardId);
	for (const [owner, ids] of held) problems.push(`shard ${formatShardIds(ids)} is already connected by the live instance ${owner}`);
	return problems;
}

export interface ClaimOptions {
	instanceId: string;
	shardCount: number;
	shardIds: readonly number[];
	heartbeatMs: number;
	log: FleetLog;
	/** Stops waiting for a stale predecessor (shutdown during start). */
	signal?: AbortSignal;
}

/**
 * Records this instance as the owner of its shards, or throws a FleetConflictError saying why it must not connect
 * them. Conflicts with a live owner are retried for one stale period (a crashed predecessor stops heartbeating);
 * out-of-range shards are refused at once.
 */
export async function claimShards(orm: MikroORM, options: ClaimOptions): Promise<void> {
	const { instanceId, shardCount, shardIds, heartbeatMs, log } = options;
	const staleMs = heartbeatMs * STALE_BEATS;
	const deadline = Date.now() + staleMs + heartbeatMs;
	let warned = false;
	for (;;) {
		const problems = await orm.em.fork().transactional(async (tx) => {
			await tx.execute(`select pg_advisory_xact_lock(${FLEET_LOCK}, ${CLAIM_LOCK_KEY})`);
			const rows = await readFleet(tx, staleMs);
			const found = claimProblems(rows, instanceId, shardCount, shardIds);
			if (found.length) return found;
			// Rows beyond the count nobody live runs (the fleet was resized) would show phantom shards: gone.
			await tx.execute(
				"delete from fleet_shards where shard_id >= ? and not (instance_id is not null and heartbeat_at > now() - ? * interval '1 millisecond')",
				[shardCount, staleMs],
				'run',
			);
			await tx.execute(
				`insert into fleet_shards (shard_id, shard_count, instance_id, state, latency_ms, guilds, last_ready, resumes, heartbeat_at)
				 select id, ?, ?, 'connecting', null, 0, null, 0, now() from unnest(?::int[]) as id
				 on conflict (shard_id) do update set shard_count = excluded.shard_count, instance_id = excluded.instance_id,
				   state = excluded.state, latency_ms = null, heartbeat_at = excluded.heartbeat_at`,
				[shardCount, instanceId, `{${shardIds.join(',')}}`],
				'run',
			);
			return [];
		});
		if (!problems.length) return;
		const permanent = problems.some((problem) => problem.includes('outside the fleet'));
		if (permanent || Date.now() >= deadline || options.signal?.aborted)
			throw new FleetConflictError(
				`This instance must not connect shard ${formatShardIds(shardIds)} of ${shardCount}: ${problems.join('; ')}. Check SHARD_COUNT and SHARD_IDS on every instance (each shard on exactly one).`,
			);
		if (!warned) {
			warned = true;
			log.warn(`Fleet: ${problems.join('; ')}; waiting up to ${Math.ceil((deadline - Date.now()) / 1000)} s in case that owner has stopped`);
		}
		await sleep(Math.min(heartbeatMs, 1_000), undefined, { signal: options.signal }).catch(() => undefined);
	}
}

/** The fleet's shard total as seen from the rows (for an instance that runs no shard itself). */
export function fleetShardCount(rows: readonly FleetRow[]): number {
	const live = rows.filter((row) => row.live);
	if (live.length) return Math.max(...live.map((row) => row.shardCount));
	const latest = [...rows].sort((a, b) => b.heartbeatAt.getTime() - a.heartbeatAt.getTime())[0];
	return latest?.shardCount ?? 0;
}

/**
 * Every shard of the fleet, 0 to total - 1: this instance's own from its live client (`own`), the others from their
 * rows; a shard whose owner stopped heartbeating (or that nobody ever claimed) is `disconnected`. Pure.
 */
export function fleetShards(total: number, rows: readonly FleetRow[], own: readonly ShardSnapshot[]): ShardSnapshot[] {
	const byId = new Map(rows.map((row) => [row.shardId, row]));
	const mine = new Map(own.map((shard) => [shard.id, shard]));
	const shards: ShardSnapshot[] = [];
	for (let id = 0; id < total; id++) {
		const live = mine.get(id);
		if (live) {
			shards.push(live);
			continue;
		}
		const row = byId.get(id);
		shards.push(
			row
				? {
						id,
						state: row.live ? row.state : 'disconnected',
						latencyMs: row.live ? row.latencyMs : null,
						guilds: row.guilds,
						lastReady: row.lastReady,
						resumes: row.resumes,
					}
				: { id, state: 'disconnected', latencyMs: null, guilds: 0, lastReady: null, resumes: 0 },
		);
	}
	return shards;
}

export interface FleetOptions {
	orm: MikroORM;
	instanceId: string;
	heartbeatMs: number;
	log: FleetLog;
	/** This instance's shards (undefined: it runs none, API-only). */
	own?: {
		shardCount: number;
		shardIds: readonly number[];
		/** Their live state now. */
		snapshot: () => ShardSnapshot[];
		/** Another instance took over one of them (this one missed its heartbeats): stop serving them. */
		onLost: (shardIds: number[]) => void;
	};
}

export interface Fleet {
	readonly instanceId: string;
	/** Writes this instance's shards and reads everyone's; called every FLEET_HEARTBEAT_MS and on shard events. */
	beat(): Promise<void>;
	/** The rows read last (at most one heartbeat old). */
	readonly rows: readonly FleetRow[];
	/** Every shard of the fleet, read now (the last rows read if the database does not answer). */
	shards(): Promise<{ total: number; shards: ShardSnapshot[] }>;
	/** Servers the whole fleet is in (own live count plus the live others'), or undefined when no shard is live. */
	guilds(ownLive: number | undefined): number | undefined;
	/** No other live instance in the rows read last: fleet-wide jobs need no coordination (a single instance). */
	alone(): boolean;
	/** Stops the heartbeat and hands this instance's shards back (a successor may claim them at once). */
	stop(): Promise<void>;
}

export function startFleet(options: FleetOptions): Fleet {
	const { orm, instanceId, heartbeatMs, log, own } = options;
	const staleMs = heartbeatMs * STALE_BEATS;
	let rows: FleetRow[] = [];
	let stopped = false;
	let running: Promise<void> | undefined;
	let again = false;
	let failing = false;
	/** Shards already reported lost (once each). */
	const reported = new Set<number>();

	async function beatOnce(): Promise<void> {
		const em = orm.em.fork();
		try {
			if (own) {
				const snapshot = own.snapshot();
				const mine = own.shardIds.map((id) => snapshot.find((shard) => shard.id === id) ?? null);
				const updated = await em.execute<{ shard_id: number }[]>(
					`update fleet_shards f set state = v.state, latency_ms = v.latency_ms, guilds = v.guilds, last_ready = v.last_ready,
					   resumes = v.resumes, heartbeat_at = now()
					 from (select * from unnest(?::int[], ?::varchar[], ?::int[], ?::int[], ?::timestamptz[], ?::int[])
					   as t(shard_id, state, latency_ms, guilds, last_ready, resumes)) v
					 where f.shard_id = v.shard_id and f.instance_id = ? returning f.shard_id`,
					[
						pgArray(own.shardIds),
						pgArray(mine.map((shard) => shard?.state ?? 'connecting')),
						pgArray(mine.map((shard) => shard?.latencyMs ?? null)),
						pgArray(mine.map((shard) => shard?.guilds ?? 0)),
						pgArray(mine.map((shard) => shard?.lastReady?.toISOString() ?? null)),
						pgArray(mine.map((shard) => shard?.resumes ?? 0)),
						instanceId,
					],
				);
				const kept = new Set(updated.map((row) => Number(row.shard_id)));
				const lost = own.shardIds.filter((id) => !kept.has(id) && !reported.has(id));
				for (const id of lost) reported.add(id);
				if (lost.length && !stopped) own.onLost(lost);
			}
			rows = await readFleet(em, staleMs);
			if (failing) log.info('Fleet heartbeat: the database answers again');
			failing = false;
		} catch (error) {
			if (!failing && !stopped) log.warn(`Fleet heartbeat failed (retrying every ${heartbeatMs} ms): ${(error as Error)?.name ?? 'error'}`);
			failing = true;
		}
	}

	// One beat at a time; a beat asked for during one runs right after it.
	const beat = (): Promise<void> => {
		if (running) {
			again = true;
			return running;
		}
		running = beatOnce().finally(() => {
			running = undefined;
			if (again && !stopped) {
				again = false;
				void beat();
			}
		});
		return running;
	};

	// An instance without shards has nothing to write: it reads the rows when asked (status), not on a timer.
	const timer = own ? setInterval(() => void beat(), heartbeatMs) : undefined;
	timer?.unref();
	if (own) void beat();

	return {
		instanceId,
		beat,
		get rows() {
			return rows;
		},
		async shards() {
			const fresh = await readFleet(orm.em.fork(), staleMs).catch(() => rows);
			rows = fresh;
			const total = own?.shardCount ?? fleetShardCount(fresh);
			return { total, shards: fleetShards(total, fresh, own?.snapshot() ?? []) };
		},
		alone() {
			return !rows.some((row) => row.live && row.instanceId !== instanceId);
		},
		guilds(ownLive) {
			const mine = new Set(own?.shardIds ?? []);
			const others = rows.filter((row) => row.live && !mine.has(row.shardId) && row.instanceId !== instanceId);
			if (ownLive === undefined && !others.length) return undefined;
			return (ownLive ?? 0) + others.reduce((sum, row) => sum + row.guilds, 0);
		},
		async stop() {
			stopped = true;
			clearInterval(timer);
			await running;
			if (!own) return;
			await orm.em
				.fork()
				.execute(
					`update fleet_shards set instance_id = null, state = 'disconnected', latency_ms = null where instance_id = ?`,
					[instanceId],
					'run',
				)
				.catch(() => undefined);
		},
	};
}

/** A PostgreSQL array literal of numbers, strings (quoted) and nulls: one parameter whatever the length. */
function pgArray(values: readonly (string | number | null)[]): string {
	return `{${values.map((value) => (value === null ? 'NULL' : typeof value === 'number' ? String(value) : `"${value.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Identify throttling across the fleet

interface GatewayInfoSource {
	fetchGatewayInformation(): Promise<{ session_start_limit: { max_concurrency: number } }>;
}

export interface IdentifyThrottlerOptions {
	orm: MikroORM;
	instanceId: string;
	holdMs?: number;
	log: FleetLog;
}

/**
 * discord.js's `ws.buildIdentifyThrottler`: before each IDENTIFY a shard takes its bucket's lease in `fleet_identify`
 * (bucket = shard id % max_concurrency, as Discord counts), which stays taken 5.5 s. Every shard of every instance goes
 * through the same rows, so the fleet as a whole identifies at Discord's rate. If the database does not answer, the
 * shard waits the 5.5 s on its own, as discord.js's own throttler would, rather than not connecting.
 */
export function fleetIdentifyThrottler({ orm, instanceId, holdMs = IDENTIFY_HOLD_MS, log }: IdentifyThrottlerOptions) {
	return async (manager: GatewayInfoSource) => {
		const info = await manager.fetchGatewayInformation();
		const maxConcurrency = Math.max(1, Number(info.session_start_limit.max_concurrency) || 1);
		return {
			async waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
				const bucket = shardId % maxConcurrency;
				for (;;) {
					signal.throwIfAborted();
					let waitMs: number;
					try {
						const rows = await orm.em.fork().execute<{ bucket: number; wait_ms: number | string | null }[]>(
							`with taken as (
							   insert into fleet_identify (bucket, instance_id, until) values (?, ?, now() + ? * interval '1 millisecond')
							   on conflict (bucket) do update set instance_id = excluded.instance_id, until = excluded.until
							   where fleet_identify.until <= now() returning bucket)
							 select (select bucket from taken) as bucket,
							   (select extract(epoch from (until - now())) * 1000 from fleet_identify where bucket = ?) as wait_ms`,
							[bucket, instanceId, holdMs, bucket],
						);
						if (rows[0]?.bucket !== null && rows[0]?.bucket !== undefined) return;
						waitMs = Math.max(10, Math.min(Number(rows[0]?.wait_ms ?? 100), holdMs));
					} catch (error) {
						log.warn(
							`Identify throttle: the database did not answer (${(error as Error)?.name ?? 'error'}); shard ${shardId} waits ${holdMs} ms on its own`,
						);
						await sleep(holdMs, undefined, { signal });
						return;
					}
					await sleep(waitMs + Math.floor(Math.random() * 50), undefined, { signal });
				}
			},
		};
	};
}

// ---------------------------------------------------------------------------------------------------------------------
// Fleet-wide jobs

const jobKeys = new Map<string, number>();
const jobKey = (job: string) => {
	let key = jobKeys.get(job);
	if (key === undefined) {
		key = 1;
		for (const char of job) key = (key * 31 + char.charCodeAt(0)) % 1_000_000;
		jobKeys.set(job, (key = key + 1));
	}
	return key;
};

/**
 * Runs `work` unless another instance is running the same job right now (pg_try_advisory_xact_lock, held for the
 * run) or ran it less than `periodMs` ago (`fleet_jobs`); returns `{ ran: false }` then. Single instance: it runs
 * every time its own schedule asks, as before.
 */
export async function runFleetJob<T>(
	orm: MikroORM,
	options: { job: string; instanceId: string; periodMs: number },
	work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
	return orm.em.fork().transactional(async (tx) => {
		const [lock] = await tx.execute<{ got: boolean }[]>(`select pg_try_advisory_xact_lock(${FLEET_LOCK}, ?) as got`, [jobKey(options.job)]);
		if (!lock?.got) return { ran: false } as const;
		// This transaction only holds the lock while the job works on other connections: it is idle on purpose.
		await tx.execute('set local idle_in_transaction_session_timeout = 0');
		// A little slack so that instances whose timers drift apart do not skip every other period.
		const recent = await tx.execute<{ job: string }[]>(
			`select job from fleet_jobs where job = ? and instance_id <> ? and last_run_at > now() - ? * interval '1 millisecond'`,
			[options.job, options.instanceId, Math.floor(options.periodMs * 0.9)],
		);
		if (recent.length) return { ran: false } as const;
		const result = await work();
		await tx.execute(
			`insert into fleet_jobs (job, instance_id, last_run_at) values (?, ?, now())
			 on conflict (job) do update set instance_id = excluded.instance_id, last_run_at = excluded.last_run_at`,
			[options.job, options.instanceId],
			'run',
		);
		return { ran: true, result } as const;
	});
}
