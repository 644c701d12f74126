import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { container, Events, type Command } from '@sapphire/framework';
import type { Client } from 'discord.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { AiEvent } from '../ai/index.ts';
import type { HttpRequest } from '../framework/http-request.ts';
import { HttpMetrics } from '../framework/http-metrics.ts';
import { STATUS_VALUES } from '../api/schemas.ts';
import { overallStatus, type ShardTracker } from './status.ts';

/**
 * Haven's Prometheus metrics (`GET /metrics`, README "Metrics"). One `Metrics` per running Haven, with its own
 * registry: nothing goes to prom-client's global registry, so Havens started one after another in a process (tests)
 * never share or leak series of their own.
 *
 * What is measured, and where it is hooked:
 * - HTTP requests by method, route template (never a raw URL) and status: `observeHttp`, from the request listener;
 * - rate-limit rejections by route and limit: `rateLimited`, from the rate-limit middleware;
 * - interactions by command, kind and outcome, with latency: Sapphire's command events (`watchBot`);
 * - crisis screens by level and surface, never content: `countCrisisScreen`, where the screen is called;
 * - AI calls by operation and outcome, with latency: the `observe` option of `createAi`;
 * - database pool state and reachability, shard and bot status: read on each scrape;
 * - the process (CPU, memory, heap, event-loop lag, GC, handles): prom-client's default metrics, collected once per
 *   process and shown by every Haven's registry (see `registerProcessMetrics`).
 */

declare module '@sapphire/pieces' {
	interface Container {
		metrics: Metrics;
	}
}

export type CrisisSurface = 'api' | 'message' | 'command' | 'context_menu';
export type RateLimitName = 'all' | 'chat' | 'feedback';

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const INTERACTION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30];
const AI_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The longest a scrape waits for the database's answer to `select 1`. */
const DB_PING_TIMEOUT_MS = 2_000;

interface RoutedRequest extends IncomingMessage {
	route?: { path: readonly string[] } | null;
}

/** `/v1/feedback`, `/docs/{file}`; `unmatched` for paths no route serves (so a scanner cannot mint new series). */
export function routeLabel(request: IncomingMessage): string {
	const route = (request as RoutedRequest).route;
	if (!route) return 'unmatched';
	let label = routeLabels.get(route);
	if (label === undefined) {
		label = `/${route.path.map((part) => (part.startsWith('[') && part.endsWith(']') ? `{${part.slice(1, -1)}}` : part)).join('/')}`;
		routeLabels.set(route, label);
	}
	return label;
}

const routeLabels = new WeakMap<object, string>();

export function methodLabel(method: string | undefined): string {
	return method && METHODS.has(method) ? method : 'other';
}

export interface BotSources {
	client: Client;
	shards: ShardTracker;
	enabled: boolean;
}

type Registers = Registry[];
type PoolStats = { total: number; idle: number; waiting: number; max: number };

export class Metrics {
	readonly registry = new Registry();
	readonly http: HttpMetrics;
	readonly httpInFlight: Gauge;
	readonly rateLimitRejections: Counter<'route' | 'limit'>;
	readonly interactions: Counter<'command' | 'type' | 'outcome'>;
	readonly interactionDuration: Histogram<'command' | 'type' | 'outcome'>;
	readonly crisisScreens: Counter<'level' | 'surface'>;
	readonly aiRequests: Counter<'operation' | 'outcome'>;
	readonly aiDuration: Histogram<'operation' | 'outcome'>;

	#orm: MikroORM | undefined;
	#bot: BotSources | undefined;
	readonly #detach: (() => void)[] = [];
	#closed = false;
	#httpInFlight = 0;

	constructor(options: { version: string }) {
		const registers = [this.registry];
		registerBuildInfo(registers, options.version);
		({
			http: this.http,
			inFlight: this.httpInFlight,
			rateLimited: this.rateLimitRejections,
		} = httpMetrics(this.registry, () => this.#httpInFlight));
		({ interactions: this.interactions, duration: this.interactionDuration } = interactionMetrics(registers));
		this.crisisScreens = crisisMetrics(registers);
		({ requests: this.aiRequests, duration: this.aiDuration } = aiMetrics(registers));
		registerDatabaseGauges(registers, () => this.#orm);
		registerGatewayGauges(registers, () => this.#bot);
		registerProcessMetrics(this.registry);
	}

	/** The Prometheus text exposition of every metric. */
	text(): Promise<string> {
		return this.registry.metrics();
	}

	get contentType(): string {
		return this.registry.contentType;
	}

	/** Times one HTTP request: call when it arrives; the labels are taken when its response ends (or is abandoned). */
	observeHttp(request: HttpRequest, response: ServerResponse): void {
		if (this.#closed) return;
		request.receivedAt = performance.now();
		this.#httpInFlight++;
		response.on('close', this.#httpClosed);
	}

	/** One listener for every response (`this` is the response): a closure per request cost 10% of a small GET. */
	readonly #httpClosed = ((metrics: Metrics) =>
		function (this: ServerResponse<HttpRequest>) {
			metrics.#httpInFlight--;
			if (metrics.#closed) return;
			const status = this.writableFinished ? String(this.statusCode) : 'aborted';
			metrics.http.record(methodLabel(this.req.method), routeLabel(this.req), status, (performance.now() - this.req.receivedAt!) / 1000);
		})(this);

	rateLimited(request: IncomingMessage, limit: RateLimitName): void {
		this.rateLimitRejections.inc({ route: routeLabel(request), limit });
	}

	/** For `createAi({ observe })`. */
	readonly observeAi = (event: AiEvent): void => {
		if (this.#closed) return;
		const labels = { operation: event.operation, outcome: event.outcome };
		this.aiRequests.inc(labels);
		this.aiDuration.observe(labels, event.seconds);
	};

	/** Reads the pool state and reachability of this database on each scrape. */
	watchDatabase(orm: MikroORM): void {
		this.#orm = orm;
	}

	/** Shard and bot status on each scrape, and interaction counts and latencies from Sapphire's command events. */
	watchBot(sources: BotSources): void {
		this.#bot = sources;
		if (!sources.enabled) return;
		// Sapphire's events, typed loosely here: only the interaction object, the command's name and `success` are read.
		const client = sources.client as unknown as EventEmitter;
		const started = new WeakMap<object, number>();
		const kinds = [
			{ type: 'chat_input', run: Events.ChatInputCommandRun, finish: Events.ChatInputCommandFinish, denied: Events.ChatInputCommandDenied },
			{
				type: 'context_menu',
				run: Events.ContextMenuCommandRun,
				finish: Events.ContextMenuCommandFinish,
				denied: Events.ContextMenuCommandDenied,
			},
		] as const;
		for (const kind of kinds) {
			const onRun = (interaction: object) => started.set(interaction, performance.now());
			const onFinish = (interaction: object, command: Command, payload: { success: boolean }) => {
				const at = started.get(interaction);
				started.delete(interaction);
				const labels = { command: command.name, type: kind.type, outcome: payload.success ? 'success' : 'error' };
				this.interactions.inc(labels);
				if (at !== undefined) this.interactionDuration.observe(labels, (performance.now() - at) / 1000);
			};
			const onDenied = (_error: unknown, payload: { command: Command }) => {
				this.interactions.inc({ command: payload.command.name, type: kind.type, outcome: 'denied' });
			};
			client.on(kind.run, onRun).on(kind.finish, onFinish).on(kind.denied, onDenied);
			this.#detach.push(() => void client.off(kind.run, onRun).off(kind.finish, onFinish).off(kind.denied, onDenied));
		}
	}

	/** Stops counting, detaches from the client and empties the registry. */
	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		for (const detach of this.#detach.splice(0)) detach();
		this.#orm = undefined;
		this.#bot = undefined;
		this.registry.clear();
	}
}

function registerBuildInfo(registers: Registers, version: string): void {
	new Gauge({ name: 'haven_build_info', help: 'Always 1; the running build in the version label.', labelNames: ['version'], registers }).set(
		{ version },
		1,
	);
}

/** HTTP API: requests and latency (counted by `HttpMetrics`), requests in flight, rate-limit rejections. */
function httpMetrics(registry: Registry, inFlight: () => number) {
	const registers = [registry];
	return {
		http: new HttpMetrics(registry, {
			prefix: 'haven_http',
			buckets: HTTP_BUCKETS,
			help: {
				requests: 'HTTP requests answered, by method, route template and status ("aborted": the client left first).',
				duration: 'Time from receiving an HTTP request to the end of its response.',
			},
		}),
		inFlight: new Gauge({
			name: 'haven_http_requests_in_flight',
			help: 'HTTP requests being served now.',
			registers,
			collect() {
				this.set(inFlight());
			},
		}),
		rateLimited: new Counter({
			name: 'haven_http_rate_limited_total',
			help: 'Requests refused with 429, by route template and the limit that refused them (all, chat, feedback).',
			labelNames: ['route', 'limit'] as const,
			registers,
		}),
	};
}

/** Discord commands: runs by command, type and outcome, and how long they took. */
function interactionMetrics(registers: Registers) {
	return {
		interactions: new Counter({
			name: 'haven_interactions_total',
			help: 'Slash and context-menu commands run, by command, type and outcome (success, error, denied).',
			labelNames: ['command', 'type', 'outcome'] as const,
			registers,
		}),
		duration: new Histogram({
			name: 'haven_interaction_duration_seconds',
			help: 'Time a command took to run (denied commands are not timed).',
			labelNames: ['command', 'type', 'outcome'] as const,
			buckets: INTERACTION_BUCKETS,
			registers,
		}),
	};
}

/** Crisis screens by the level found and the surface; never content. */
function crisisMetrics(registers: Registers) {
	return new Counter({
		name: 'haven_crisis_screens_total',
		help: 'Messages crisis-screened, by the level found and the surface (api, message, command, context_menu). No content.',
		labelNames: ['level', 'surface'] as const,
		registers,
	});
}

/** AI provider calls by operation and outcome, and how long they took. */
function aiMetrics(registers: Registers) {
	return {
		requests: new Counter({
			name: 'haven_ai_requests_total',
			help: 'AI provider calls, by operation (complete, moderate) and outcome (ok, timeout, rate_limited, failed).',
			labelNames: ['operation', 'outcome'] as const,
			registers,
		}),
		duration: new Histogram({
			name: 'haven_ai_request_duration_seconds',
			help: 'Time an AI provider call took, including its one retry and any wait for a slot.',
			labelNames: ['operation', 'outcome'] as const,
			buckets: AI_BUCKETS,
			registers,
		}),
	};
}

/** Database reachability and pool state, read on each scrape from the database being watched (if any). */
function registerDatabaseGauges(registers: Registers, database: () => MikroORM | undefined): void {
	const stats = () => poolStats(database());
	new Gauge({
		name: 'haven_db_up',
		help: '1 when the database answered `select 1` within 2 s at this scrape, else 0.',
		registers,
		async collect() {
			this.set((await pingDatabase(database())) ? 1 : 0);
		},
	});
	new Gauge({
		name: 'haven_db_pool_connections',
		help: 'Connections in the database pool, by state (busy, idle).',
		labelNames: ['state'],
		registers,
		async collect() {
			const pool = await stats();
			this.set({ state: 'busy' }, pool ? pool.total - pool.idle : 0);
			this.set({ state: 'idle' }, pool?.idle ?? 0);
		},
	});
	new Gauge({
		name: 'haven_db_pool_waiting',
		help: 'Queries waiting for a free pooled connection.',
		registers,
		async collect() {
			this.set((await stats())?.waiting ?? 0);
		},
	});
	new Gauge({
		name: 'haven_db_pool_max_connections',
		help: 'Size limit of the database pool.',
		registers,
		async collect() {
			this.set((await stats())?.max ?? 0);
		},
	});
}

async function poolStats(orm: MikroORM | undefined): Promise<PoolStats | undefined> {
	if (!orm) return undefined;
	try {
		const pool = await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
		return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 0 };
	} catch {
		return undefined;
	}
}

async function pingDatabase(orm: MikroORM | undefined): Promise<boolean> {
	if (!orm) return false;
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DB_PING_TIMEOUT_MS)));
	try {
		const ping = orm.em
			.getConnection()
			.execute('select 1')
			.then(
				() => true,
				() => false,
			);
		return await Promise.race([ping, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/** Discord gateway: overall bot status and each shard's state, latency, servers and resumes, read on each scrape. */
function registerGatewayGauges(registers: Registers, bot: () => BotSources | undefined): void {
	const shards = () => {
		const sources = bot();
		return sources?.enabled ? sources.shards.snapshot(sources.client) : [];
	};
	new Gauge({
		name: 'haven_bot_status',
		help: 'Overall bot status as in GET /v1/status: 1 for the current one of ok, degraded, starting.',
		labelNames: ['status'],
		registers,
		collect() {
			const sources = bot();
			const current = sources ? overallStatus(sources.enabled, shards()) : 'degraded';
			for (const status of STATUS_VALUES) this.set({ status }, status === current ? 1 : 0);
		},
	});
	const perShard = (name: string, help: string, value: (shard: ReturnType<typeof shards>[number]) => number | null) =>
		new Gauge({
			name,
			help,
			labelNames: ['shard'],
			registers,
			collect() {
				this.reset();
				for (const shard of shards()) {
					const reading = value(shard);
					if (reading !== null) this.set({ shard: String(shard.id) }, reading);
				}
			},
		});
	perShard('haven_shard_ready', '1 while the shard is ready (serving events), else 0.', (shard) => (shard.state === 'ready' ? 1 : 0));
	new Gauge({
		name: 'haven_shard_state',
		help: "1 for the shard's current gateway state (ready, connecting, reconnecting, resuming, identifying ...).",
		labelNames: ['shard', 'state'],
		registers,
		collect() {
			this.reset();
			for (const shard of shards()) this.set({ shard: String(shard.id), state: shard.state }, 1);
		},
	});
	perShard('haven_shard_latency_seconds', 'Last gateway heartbeat round trip of the shard (absent until measured).', (shard) =>
		shard.latencyMs === null ? null : shard.latencyMs / 1000,
	);
	perShard('haven_shard_guilds', 'Servers on the shard.', (shard) => shard.guilds);
	perShard('haven_shard_resumes', 'Gateway sessions the shard resumed since the process started.', (shard) => shard.resumes);
}

/**
 * prom-client's default process metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_heap_size_used_bytes`, `nodejs_eventloop_lag_p99_seconds`, `nodejs_gc_duration_seconds` ...), without a
 * prefix so dashboards built for any Node service work as they are. They describe the process, not one Haven, and
 * sample in the background (an event-loop delay monitor, a GC observer) with no way to stop them, so they are
 * collected once per process into a registry of their own and the same metric objects are registered in each
 * Haven's registry (as `Registry.merge` does): a restarted Haven does not start another sampler.
 */
let processMetrics: Registry | undefined;

function registerProcessMetrics(registry: Registry): void {
	if (!processMetrics) {
		processMetrics = new Registry();
		collectDefaultMetrics({ register: processMetrics, eventLoopMonitoringPrecision: 20 });
	}
	// Typed as plain objects, they are the metric instances themselves (what `Registry.merge` registers too).
	for (const metric of processMetrics.getMetricsAsArray()) registry.registerMetric(metric as unknown as Metric);
}

/**
 * Counts one crisis screen (its level, never its content) on the running Haven's metrics; a no-op where there is
 * none (unit tests, the CLI).
 */
export function countCrisisScreen(level: string, surface: CrisisSurface): void {
	(container as { metrics?: Metrics }).metrics?.crisisScreens.inc({ level, surface });
}
