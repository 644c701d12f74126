// Guards of the places where Haven departs from its frameworks (src/lib/framework/README.md). Each test asserts what
// one seam assumes of Sapphire, @sapphire/pieces, plugin-api or prom-client, so a dependency upgrade that changes it
// fails here with a message naming the seam to revisit. No database: one Sapphire client, never logged in.
// The client must be the first of the process: Sapphire hands its built-in pieces to the first stores only.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { get, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
	BucketScope,
	CommandStore,
	CorePreconditions,
	LogLevel,
	PreconditionStore,
	SapphireClient,
	container,
	type Command,
	type Precondition,
} from '@sapphire/framework';
import { StoreRegistry, type Piece, type Store } from '@sapphire/pieces';
import { ApiResponse, MiddlewareStore, RouteStore, ServerEvent } from '@sapphire/plugin-api';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { parseConfig } from '../../src/lib/core/config.ts';
import { discordClientOptions } from '../../src/lib/discord/client-options.ts';
import { requireExportedDefinitions } from '../../src/lib/discord/command.ts';
import type { TrackedBuckets } from '../../src/lib/framework/cooldown-buckets.ts';
import { HttpMetrics } from '../../src/lib/framework/http-metrics.ts';
import { HttpRequest } from '../../src/lib/framework/http-request.ts';
import {
	acceptTypeScriptPieces,
	DROPPED_API_PIECES,
	dropSapphireRegistration,
	dropUnusedApiPieces,
	loadPieces,
	loginWithLoadedPieces,
	manuallyRegisteredPieces,
	sapphireOptions,
} from '../../src/lib/framework/setup.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Haven's pieces that take the name of a built-in piece, so that the built-in is never loaded. */
const REPLACED = {
	listeners: [
		'PluginRouteError',
		'PluginServerMiddlewareError',
		'PluginServerRequest',
		'PluginServerRouterBranchMethodNotAllowed',
		'PluginServerRouterBranchNotFound',
	],
	middlewares: ['body', 'headers'],
	preconditions: ['Cooldown'],
} as const;

/** plugin-api's built-in pieces, each replaced (above) or dropped (`dropUnusedApiPieces`). */
const PLUGIN_API_PIECES = {
	listeners: [...REPLACED.listeners, ...DROPPED_API_PIECES.listeners].sort(),
	middlewares: [...REPLACED.middlewares, ...DROPPED_API_PIECES.middlewares].sort(),
	routes: [...DROPPED_API_PIECES.routes].sort(),
};

let client: SapphireClient;
/** The manually registered pieces of each store as Sapphire and plugin-api left them, before any seam ran. */
let pristine: Map<string, string[]>;

before(() => {
	const config = parseConfig({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error' });
	client = new SapphireClient({ ...discordClientOptions(config), ...sapphireOptions(config, SRC), logger: { level: LogLevel.None } });
	pristine = new Map([...client.stores.values()].map((store) => [store.name, [...manuallyRegisteredPieces(store).keys()].sort()]));
});

after(async () => {
	await client.destroy();
});

/** The names Haven's piece files give their pieces (a piece is named after its file). */
function havenPieceNames(folder: string): Set<string> {
	const entries = readdirSync(join(SRC, folder), { recursive: true, withFileTypes: true });
	return new Set(entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => basename(entry.name, extname(entry.name))));
}

describe('@sapphire/pieces and Sapphire', () => {
	test('manuallyRegisteredPieces: every store still keeps its built-in pieces in the private map Haven edits', () => {
		for (const store of client.stores.values()) {
			assert.ok(
				manuallyRegisteredPieces(store) instanceof Map,
				`seam manuallyRegisteredPieces (setup.ts): store ${store.name} has no such map; revisit dropSapphireRegistration and dropUnusedApiPieces`,
			);
		}
	});

	test('same-name replacements: each built-in Haven replaces is still registered under the name of its piece, and no other built-in shares a name with one of ours', () => {
		for (const [store, names] of Object.entries(REPLACED)) {
			const builtIns = new Set(pristine.get(store));
			for (const name of names)
				assert.ok(
					builtIns.has(name),
					`seam same-name replacement: no built-in ${store} piece "${name}" any more; revisit src/${store}/ and README.md`,
				);
			const ours = havenPieceNames(store);
			const shared = [...builtIns].filter((name) => ours.has(name)).sort();
			assert.deepEqual(shared, [...names].sort(), `seam same-name replacement: Haven's ${store} pieces that replace a built-in`);
		}
		const cooldown = manuallyRegisteredPieces(client.stores.get('preconditions')).get('Cooldown');
		assert.equal(cooldown?.piece, CorePreconditions.Cooldown, "seam Cooldown: the built-in Cooldown is Sapphire's CorePreconditions.Cooldown");
	});

	test('acceptTypeScriptPieces: every loader strategy still decides by supportedExtensions, filterDtsFiles and clientUsesESModules', async () => {
		acceptTypeScriptPieces(client.stores);
		for (const store of client.stores.values()) {
			const strategy = store.strategy as unknown as Record<string, unknown>;
			const problem = `seam acceptTypeScriptPieces (setup.ts): the loader strategy of ${store.name} changed`;
			assert.ok(Array.isArray(strategy.supportedExtensions), problem);
			assert.equal(typeof strategy.filterDtsFiles, 'boolean', problem);
			assert.equal(typeof strategy.clientUsesESModules, 'boolean', problem);
			assert.equal(store.strategy.filter('/pieces/ping.ts')?.name, 'ping', `${problem}: a .ts file is not a piece`);
			assert.equal(store.strategy.filter('/pieces/ping.d.ts'), null, `${problem}: a .d.ts file is a piece`);
		}
		// As an ES module: a .ts piece imports its dependencies with `import`.
		const file = join(FIXTURES, 'routes', 'good.get.ts');
		const module = (await client.stores.get('routes').strategy.preload({ path: file, extension: '.ts', name: 'good.get' })) as Record<
			string,
			unknown
		>;
		assert.equal(typeof module.GoodRoute, 'function', 'seam acceptTypeScriptPieces: a .ts piece is not loaded as an ES module');
	});

	test('dropSapphireRegistration: Sapphire still queues CoreReady, the listener that runs its command registration', () => {
		const coreReady = manuallyRegisteredPieces(client.stores.get('listeners')).get('CoreReady');
		assert.ok(coreReady, 'seam dropSapphireRegistration (setup.ts): Sapphire no longer registers a CoreReady listener');
		assert.match(
			String((coreReady.piece as { prototype: { run: unknown } }).prototype.run),
			/handleRegistryAPICalls/,
			'seam dropSapphireRegistration: CoreReady no longer runs the registration; find what does',
		);
		assert.equal(dropSapphireRegistration(client.stores), true);
		assert.equal(manuallyRegisteredPieces(client.stores.get('listeners')).has('CoreReady'), false);
	});

	test('loginWithLoadedPieces: SapphireClient#login still loads every store with loadAll, and Haven login does not', async () => {
		const discordClient = Object.getPrototypeOf(SapphireClient.prototype) as { login(token?: string): Promise<string> };
		const discordLogin = discordClient.login;
		discordClient.login = async () => 'logged in';
		const stores = [...client.stores.values()] as unknown as (Store<Piece> & { loadAll: () => Promise<void> })[];
		const storePrototype = Object.getPrototypeOf(RouteStore.prototype) as { loadAll: () => Promise<void> };
		const loadAll = storePrototype.loadAll;
		try {
			const loaded: string[] = [];
			for (const store of stores) store.loadAll = async () => void loaded.push(store.name);
			await client.login('token');
			for (const store of stores) delete (store as { loadAll?: unknown }).loadAll;
			assert.deepEqual(
				loaded.sort(),
				stores.map((store) => store.name).sort(),
				'seam loginWithLoadedPieces (setup.ts): Sapphire login no longer calls loadAll on each store',
			);
			let reloaded = 0;
			storePrototype.loadAll = async () => void reloaded++;
			await loginWithLoadedPieces(client, 'token');
			assert.equal(reloaded, 0, 'Haven login loads no store again');
			assert.ok(
				stores.every((store) => !Object.hasOwn(store, 'loadAll')),
				'every store is left as it was',
			);
		} finally {
			storePrototype.loadAll = loadAll;
			discordClient.login = discordLogin;
		}
	});

	test("Cooldown: Sapphire's Cooldown still makes one RateLimitManager per command through buckets.set, which Haven's replacement releases", async () => {
		const registry = new StoreRegistry();
		const store = new PreconditionStore();
		registry.register(store);
		acceptTypeScriptPieces(registry);
		await store.load(join(SRC, 'preconditions'), 'Cooldown.ts');
		const cooldown = store.get('Cooldown') as Precondition & {
			buckets: TrackedBuckets;
			release(): void;
			chatInputRun(interaction: unknown, command: unknown, context: unknown): { isOk(): boolean };
		};
		assert.ok(cooldown instanceof CorePreconditions.Cooldown);
		const interaction = { user: { id: '1' }, channelId: '2', guildId: '3' };
		const command = {} as Command;
		const context = { delay: 60_000, limit: 1, scope: BucketScope.User };
		assert.equal(cooldown.chatInputRun(interaction, command, context).isOk(), true);
		assert.equal(cooldown.chatInputRun(interaction, command, context).isOk(), false, 'the second use within the delay is refused');
		const problem = 'seam Cooldown (src/lib/framework/cooldown-buckets.ts): the built-in no longer keeps its managers in `buckets` through `set`';
		assert.equal(cooldown.buckets.managers.size, 1, problem);
		const [manager] = cooldown.buckets.managers as Set<unknown>;
		const interval = () => (manager as { sweepInterval?: unknown }).sweepInterval;
		assert.ok(interval(), 'seam Cooldown: a RateLimitManager no longer starts a sweep interval (release may have nothing to stop)');
		cooldown.release();
		assert.equal(interval(), null, 'seam Cooldown: an emptied RateLimitManager no longer stops its sweep interval when swept');
		assert.equal(cooldown.chatInputRun(interaction, command, context).isOk(), true, 'released: the command can be used again');
		await store.unloadAll();
	});

	test('requireExportedDefinitions: a command piece whose file does not export its definition is refused at start, by name and file', async () => {
		const registry = new StoreRegistry();
		const store = new CommandStore().registerPath(join(FIXTURES, 'commands'));
		registry.register(store);
		acceptTypeScriptPieces(registry);
		await store.loadAll();
		assert.deepEqual([...store.keys()].sort(), ['hidden', 'visible'], 'both command pieces load (Sapphire alone would never notice)');
		await assert.rejects(requireExportedDefinitions(store.values()), (error: Error) => {
			assert.match(
				error.message,
				/command piece "hidden" \(.*fixtures\/commands\/hidden\.ts\) does not export its CommandDefinition as `definition`/,
			);
			assert.doesNotMatch(error.message, /visible/);
			return true;
		});
		await store.unload('hidden');
		await requireExportedDefinitions(store.values());
		await store.unloadAll();
	});
});

describe('@sapphire/plugin-api', () => {
	test("dropUnusedApiPieces and same-name replacements: plugin-api's built-in pieces are exactly those Haven replaces or drops", () => {
		for (const [store, names] of Object.entries(PLUGIN_API_PIECES)) {
			// The listeners store also holds Sapphire's own (named Core*).
			const builtIns = (pristine.get(store) ?? []).filter((name) => store !== 'listeners' || !name.startsWith('Core'));
			assert.deepEqual(
				builtIns,
				names,
				`seam dropUnusedApiPieces / same-name replacement: plugin-api's built-in ${store} changed; decide for each new one`,
			);
		}
		dropUnusedApiPieces(client.stores);
		for (const [store, names] of Object.entries(DROPPED_API_PIECES)) {
			const manual = manuallyRegisteredPieces(client.stores.get(store as 'routes'));
			for (const name of names) assert.equal(manual.has(name), false, `${store} ${name} is dropped`);
		}
	});

	test('PluginServerRequest: plugin-api builds its server with the request class Haven gives it, and still has the events Haven emits', async () => {
		const { server } = container;
		for (const event of ['routeError', 'middlewareError', 'routerBranchNotFound', 'routerBranchMethodNotAllowed'])
			assert.ok(
				Object.values(ServerEvent).includes(event as ServerEvent),
				`seam PluginServerRequest (http-dispatch.ts): no ServerEvent "${event}"`,
			);
		assert.ok(Array.isArray(server.middlewares.sortedMiddlewares), 'seam PluginServerRequest: MiddlewareStore#sortedMiddlewares is gone');
		const seen = new Promise<[unknown, unknown]>((resolve) =>
			server.server.once('request', (request, response: ServerResponse) => {
				resolve([request, response]);
				response.end();
			}),
		);
		await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.server.address() as AddressInfo;
			get(`http://127.0.0.1:${port}/`, (response) => response.resume());
			const [request, response] = await seen;
			assert.ok(
				request instanceof HttpRequest,
				"seam HttpRequest (http-request.ts): plugin-api's server no longer takes `server.IncomingMessage`",
			);
			assert.ok(response instanceof ServerResponse && !(response instanceof ApiResponse), "seam HttpRequest: the response is not node's own");
		} finally {
			server.server.closeAllConnections();
			await new Promise((resolve) => server.server.close(resolve));
		}
	});

	test('requireHavenBases: a plain plugin-api Route or Middleware, written as its documentation shows, is refused at start by name and file', async () => {
		const registry = new StoreRegistry();
		registry.register(new RouteStore().registerPath(join(FIXTURES, 'routes')));
		registry.register(new MiddlewareStore().registerPath(join(FIXTURES, 'middlewares')));
		acceptTypeScriptPieces(registry);
		await assert.rejects(loadPieces(registry), (error: Error) => {
			assert.match(
				error.message,
				/routes piece "plain\.get" \(.*fixtures\/routes\/plain\.get\.ts\) does not extend ApiRoute \(src\/lib\/api\/route\.ts\)/,
			);
			assert.match(
				error.message,
				/middlewares piece "plain" \(.*fixtures\/middlewares\/plain\.ts\) does not extend ApiMiddleware \(src\/lib\/api\/middleware\.ts\)/,
			);
			assert.doesNotMatch(error.message, /good/, 'an ApiRoute passes');
			return true;
		});
		for (const store of registry.values()) await store.unloadAll();
	});
});

describe('prom-client: the hand-made HTTP metrics (src/lib/framework/http-metrics.ts)', () => {
	const help = { requests: 'Requests.', duration: 'Latency.' };
	const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

	test("HttpMetrics through Registry#registerMetric prints exactly what prom-client's own counter and histogram print", async () => {
		const ours = new Registry();
		const http = new HttpMetrics(ours, { prefix: 'haven_http', buckets, help });
		const reference = new Registry();
		const labelNames = ['method', 'route', 'status'] as const;
		const counter = new Counter({ name: 'haven_http_requests_total', help: help.requests, labelNames, registers: [reference] });
		const histogram = new Histogram({
			name: 'haven_http_request_duration_seconds',
			help: help.duration,
			labelNames,
			buckets,
			registers: [reference],
		});
		fc.assert(
			fc.property(
				fc.constantFrom('GET', 'POST', 'other'),
				fc.constantFrom('/healthz', '/v1/stats', '/docs/{file}', 'unmatched'),
				fc.constantFrom('200', '404', '429', 'aborted'),
				fc.oneof(fc.double({ min: 0, max: 60, noNaN: true }), fc.constantFrom(...buckets)),
				(method, route, status, seconds) => {
					http.record(method, route, status, seconds);
					counter.inc({ method, route, status });
					histogram.observe({ method, route, status }, seconds);
				},
			),
		);
		// Counted but never timed (requests Node could not parse): in the counter only.
		http.record('other', 'unparsed', '400');
		counter.inc({ method: 'other', route: 'unparsed', status: '400' });
		assert.equal(await ours.metrics(), await reference.metrics(), 'seam HttpMetrics: prom-client formats metrics differently now');
		// The JSON form too, but for prom-client's exemplar slots (always empty here: exemplars are off).
		const withoutExemplars = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
			metrics.map((metric) => ({
				...metric,
				values: metric.values.map((value) => {
					const { exemplar: _, ...rest } = value as typeof value & { exemplar?: unknown };
					return rest;
				}),
			}));
		assert.deepEqual(withoutExemplars(await ours.getMetricsAsJSON()), withoutExemplars(await reference.getMetricsAsJSON()));
	});

	test('HttpMetrics: a reset of the registry starts every series again', async () => {
		const registry = new Registry();
		const http = new HttpMetrics(registry, { prefix: 'x', buckets, help });
		http.record('GET', '/healthz', '200', 0.001);
		registry.resetMetrics();
		http.record('GET', '/healthz', '200', 0.002);
		assert.match(await registry.metrics(), /^x_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
	});
});
