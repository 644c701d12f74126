import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { container, Events, type Command } from '@sapphire/framework';
import type { Client } from 'discord.js';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AiEvent } from '../ai/index.ts';
import type { HttpRequest } from '../framework/http-request.ts';
import { HttpMetrics } from '../framework/http-metrics.ts';
import { STATUS_VALUES } from '../api/schemas.ts';
import { overallStatus, type ShardTracker } from './status.ts';

/**
 * Haven's Prometheus metrics (`GET /metrics`, README "Metrics"). One `Metrics` per running Haven, with its own
 * registry: nothing goes to prom-client's global registry, so Havens started one after another in a process (tests)
 * never share or leak series, and `close()` stops the one thing that samples in the background (the event-loop
 * delay monitor, whose timer is unref'd anyway).
 *
 * What is measured, and where it is hooked:
 * - HTTP requests by method, route template (never a raw URL) and status: `observeHttp`, from the request listener;
 * - rate-limit rejections by route and limit: `rateLimited`, from the rate-limit middleware;
 * - interactions by command, kind and outcome, with latency: Sapphire's command events (`watchBot`);
 * - crisis screens by level and surface, never content: `countCrisisScreen`, where the screen is called;
 * - AI calls by operation and outcome, with latency: the `observe` option of `createAi`;
 * - database pool state and reachability, shard and bot status, memory and event-loop delay: read on each scrape.
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
	readonly #loop: ReturnType<typeof monitorEventLoopDelay> = monitorEventLoopDelay({ resolution: 20 });
	#closed = false;
	#httpInFlight = 0;

	constructor(options: { version: string }) {
		const registers = [this.registry];
		// eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with its own this
		const self = this;
		this.#loop.enable();

		new Gauge({ name: 'haven_build_info', help: 'Always 1; the running build in the version label.', labelNames: ['version'], registers }).set(
			{ version: options.version },
			1,
		);

		// HTTP API
		this.http = new HttpMetrics(this.registry, {
			prefix: 'haven_http',
			buckets: HTTP_BUCKETS,
			help: {
				requests: 'HTTP requests answered, by method, route template and status ("aborted": the client left first).',
				duration: 'Time from receiving an HTTP request to the end of its response.',
			},
		});
		// eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with its own this
		const metrics = this;
		this.httpInFlight = new Gauge({
			name: 'haven_http_requests_in_flight',
			help: 'HTTP requests being served now.',
			registers,
			collect() {
				this.set(metrics.#httpInFlight);
			},
		});
		this.rateLimitRejections = new Counter({
			name: 'haven_http_rate_limited_total',
			help: 'Requests refused with 429, by route template and the limit that refused them (all, chat, feedback).',
			labelNames: ['route', 'limit'],
			registers,
		});

		// Discord
		this.interactions = new Counter({
			name: 'haven_interactions_total',
			help: 'Slash and context-menu commands run, by command, type and outcome (success, error, denied).',
			labelNames: ['command', 'type', 'outcome'],
			registers,
		});
		this.interactionDuration = new Histogram({
			name: 'haven_interaction_duration_seconds',
			help: 'Time a command took to run (denied commands are not timed).',
			labelNames: ['command', 'type', 'outcome'],
			buckets: INTERACTION_BUCKETS,
			registers,
		});
		this.crisisScreens = new Counter({
			name: 'haven_crisis_screens_total',
			help: 'Messages crisis-screened, by the level found and the surface (api, message, command, context_menu). No content.',
			labelNames: ['level', 'surface'],
			registers,
		});

		// AI provider
		this.aiRequests = new Counter({
			name: 'haven_ai_requests_total',
			help: 'AI provider calls, by operation (complete, moderate) and outcome (ok, timeout, rate_limited, failed).',
			labelNames: ['operation', 'outcome'],
			registers,
		});
		this.aiDuration = new Histogram({
			name: 'haven_ai_request_duration_seconds',
			help: 'Time an AI provider call took, including its one retry and any wait for a slot.',
			labelNames: ['operation', 'outcome'],
			buckets: AI_BUCKETS,
			registers,
		});

		// Database, read on scrape
		new Gauge({
			name: 'haven_db_up',
			help: '1 when the database answered `select 1` within 2 s at this scrape, else 0.',
			registers,
			async collect() {
				this.set((await self.#pingDatabase()) ? 1 : 0);
			},
		});
		new Gauge({
			name: 'haven_db_pool_connections',
			help: 'Connections in the database pool, by state (busy, idle).',
			labelNames: ['state'],
			registers,
			async collect() {
				const stats = await self.#poolStats();
				this.set({ state: 'busy' }, stats ? stats.total - stats.idle : 0);
				this.set({ state: 'idle' }, stats?.idle ?? 0);
			},
		});
		new Gauge({
			name: 'haven_db_pool_waiting',
			help: 'Queries waiting for a free pooled connection.',
			registers,
			async collect() {
				this.set((await self.#poolStats())?.waiting ?? 0);
			},
		});
		new Gauge({
			name: 'haven_db_pool_max_connections',
			help: 'Size limit of the database pool.',
			registers,
			async collect() {
				this.set((await self.#poolStats())?.max ?? 0);
			},
		});

		// Discord gateway, read on scrape
		new Gauge({
			name: 'haven_bot_status',
			help: 'Overall bot status as in GET /v1/status: 1 for the current one of ok, degraded, starting.',
			labelNames: ['status'],
			registers,
			collect() {
				const bot = self.#bot;
				const current = bot ? overallStatus(bot.enabled, bot.enabled ? bot.shards.snapshot(bot.client) : []) : 'degraded';
				for (const status of STATUS_VALUES) this.set({ status }, status === current ? 1 : 0);
			},
		});
		new Gauge({
			name: 'haven_shard_ready',
			help: '1 while the shard is ready (serving events), else 0.',
			labelNames: ['shard'],
			registers,
			collect() {
				this.reset();
				for (const shard of self.#shards()) this.set({ shard: String(shard.id) }, shard.state === 'ready' ? 1 : 0);
			},
		});
		new Gauge({
			name: 'haven_shard_state',
			help: "1 for the shard's current gateway state (ready, connecting, reconnecting, resuming, identifying ...).",
			labelNames: ['shard', 'state'],
			registers,
			collect() {
				this.reset();
				for (const shard of self.#shards()) this.set({ shard: String(shard.id), state: shard.state }, 1);
			},
		});
		new Gauge({
			name: 'haven_shard_latency_seconds',
			help: 'Last gateway heartbeat round trip of the shard (absent until measured).',
			labelNames: ['shard'],
			registers,
			collect() {
				this.reset();
				for (const shard of self.#shards()) if (shard.latencyMs !== null) this.set({ shard: String(shard.id) }, shard.latencyMs / 1000);
			},
		});
		new Gauge({
			name: 'haven_shard_guilds',
			help: 'Servers on the shard.',
			labelNames: ['shard'],
			registers,
			collect() {
				this.reset();
				for (const shard of self.#shards()) this.set({ shard: String(shard.id) }, shard.guilds);
			},
		});
		new Gauge({
			name: 'haven_shard_resumes',
			help: 'Gateway sessions the shard resumed since the process started.',
			labelNames: ['shard'],
			registers,
			collect() {
				this.reset();
				for (const shard of self.#shards()) this.set({ shard: String(shard.id) }, shard.resumes);
			},
		});

		// The process
		new Gauge({
			name: 'process_resident_memory_bytes',
			help: 'Resident memory size in bytes.',
			registers,
			collect() {
				this.set(process.memoryUsage.rss());
			},
		});
		new Gauge({
			name: 'nodejs_heap_size_used_bytes',
			help: 'V8 heap in use, in bytes.',
			registers,
			collect() {
				this.set(process.memoryUsage().heapUsed);
			},
		});
		new Gauge({
			name: 'process_start_time_seconds',
			help: 'Start time of the process since the Unix epoch, in seconds.',
			registers,
		}).set(Math.round((Date.now() - performance.now()) / 1000));
		let cpuSeen = 0;
		new Counter({
			name: 'process_cpu_seconds_total',
			help: 'User and system CPU time spent, in seconds.',
			registers,
			collect() {
				const { user, system } = process.cpuUsage();
				const total = (user + system) / 1e6;
				if (total > cpuSeen) this.inc(total - cpuSeen);
				cpuSeen = total;
			},
		});
		new Gauge({
			name: 'nodejs_eventloop_delay_seconds',
			help: 'Event-loop delay since the previous scrape: p50, p99 and max.',
			labelNames: ['quantile'],
			registers,
			collect() {
				const loop = self.#loop;
				const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
				this.set({ quantile: '0.5' }, seconds(loop.percentile(50)));
				this.set({ quantile: '0.99' }, seconds(loop.percentile(99)));
				this.set({ quantile: 'max' }, seconds(loop.max));
				loop.reset();
			},
		});
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

	/** Stops sampling, detaches from the client and empties the registry. */
	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		this.#loop.disable();
		for (const detach of this.#detach.splice(0)) detach();
		this.#orm = undefined;
		this.#bot = undefined;
		this.registry.clear();
	}

	#shards() {
		const bot = this.#bot;
		return bot?.enabled ? bot.shards.snapshot(bot.client) : [];
	}

	async #poolStats(): Promise<{ total: number; idle: number; waiting: number; max: number } | undefined> {
		const orm = this.#orm;
		if (!orm) return undefined;
		try {
			const pool = await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
			return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 0 };
		} catch {
			return undefined;
		}
	}

	async #pingDatabase(): Promise<boolean> {
		const orm = this.#orm;
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
}

/**
 * Counts one crisis screen (its level, never its content) on the running Haven's metrics; a no-op where there is
 * none (unit tests, the CLI).
 */
export function countCrisisScreen(level: string, surface: CrisisSurface): void {
	(container as { metrics?: Metrics }).metrics?.crisisScreens.inc({ level, surface });
}
