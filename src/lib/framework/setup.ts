import '@sapphire/plugin-api/register';
import '@sapphire/plugin-logger/register';
import { ServerResponse } from 'node:http';
import type { SapphireClient, StoreRegistry } from '@sapphire/framework';
import type { ClientOptions } from 'discord.js';
import { VirtualPath, type Piece, type Store } from '@sapphire/pieces';
import '../core/container.ts';
import type { Config } from '../core/config.ts';
import { ApiMiddleware } from '../api/middleware.ts';
import { ApiRoute } from '../api/route.ts';
import { httpServerOptions } from '../api/server-limits.ts';
import { HttpRequest } from './http-request.ts';

/**
 * Where Haven departs from Sapphire, @sapphire/pieces and plugin-api when it builds its client and loads its pieces.
 * Each departure is listed in README.md beside this file, and test/framework/seams.test.ts fails when an upgrade of
 * one of them breaks what it assumes.
 */

/**
 * The client options that are Haven's departures rather than Discord settings: Sapphire's default error listeners
 * and its registration status listeners are not loaded (src/listeners/commands is the one error funnel;
 * src/lib/discord/deploy.ts registers commands), nor message commands (Haven has slash commands only). plugin-api
 * does not listen at login (startHaven serves HTTP before the gateway connects) and its server builds Haven's lean
 * request class and node's own response (see http-request.ts), with Haven's timeouts against slow clients
 * (src/lib/api/server-limits.ts).
 */
export function sapphireOptions(config: Config, baseUserDirectory: string): Partial<ClientOptions> {
	return {
		baseUserDirectory,
		loadMessageCommandListeners: false,
		loadDefaultErrorListeners: false,
		loadApplicationCommandRegistriesStatusListeners: false,
		api: {
			prefix: '/',
			origin: config.api.corsOrigin,
			automaticallyConnect: false,
			listenOptions: { port: config.api.port, host: config.api.host },
			server: { IncomingMessage: HttpRequest, ServerResponse, ...httpServerOptions(config.api.http) },
		},
	};
}

/**
 * The pieces Sapphire and plugin-api register in code (`loadPiece`), by name, before a store loads them. They live
 * in a map under a symbol that @sapphire/pieces declares private and does not export; it is found by its
 * description. There is no public way to take such a piece out before it loads.
 */
export function manuallyRegisteredPieces(store: Store<Piece>): Map<string, { name: string; piece: unknown }> {
	const symbol = Object.getOwnPropertySymbols(store).find((candidate) => candidate.description === MANUAL_PIECES);
	const map = symbol && (store as unknown as Record<symbol, unknown>)[symbol];
	if (!(map instanceof Map)) throw new Error(`@sapphire/pieces: store "${store.name}" has no ${MANUAL_PIECES} map any more`);
	return map as Map<string, { name: string; piece: unknown }>;
}

export const MANUAL_PIECES = '@sapphire/pieces:ManuallyRegisteredPieces';

/**
 * Sapphire's loader only accepts `.ts` pieces when it detects ts-node and the like; Node's own type stripping is not
 * detected. Every store's loader strategy (including plugin-api's routes and middlewares) is told that `.ts` files
 * are pieces, that `.d.ts` files are not, and that they are ES modules. These are public fields of LoaderStrategy,
 * but not options: they are written in place.
 */
export function acceptTypeScriptPieces(stores: StoreRegistry): void {
	for (const store of stores.values()) {
		const strategy = store.strategy as unknown as { supportedExtensions: string[]; filterDtsFiles: boolean; clientUsesESModules: boolean };
		if (!strategy.supportedExtensions.includes('.ts')) strategy.supportedExtensions.push('.ts');
		strategy.filterDtsFiles = true;
		strategy.clientUsesESModules = true;
	}
}

/**
 * Keeps Sapphire's own command registration out: its CoreReady listener would run it at every start (and, with no
 * piece defining `registerApplicationCommands`, still fetch every global command). Haven registers through one path,
 * src/lib/discord/deploy.ts. CoreReady is a manually registered piece that a user piece cannot replace (a `once`
 * listener stays attached when replaced), so its entry is removed before the stores load. What it also did, setting
 * `client.id`, src/listeners/gateway/clientReady.ts does. Returns whether it was there.
 */
export function dropSapphireRegistration(stores: StoreRegistry): boolean {
	return manuallyRegisteredPieces(stores.get('listeners')).delete('CoreReady');
}

/**
 * plugin-api's built-in pieces that Haven does not load: its OAuth middlewares and routes (`cookies` also answers
 * 500 to requests by IP host), and the two listeners that carry a request from routing to its route through events
 * (RouterFound, MiddlewareSuccess); Haven's PluginServerRequest runs the route itself (see http-dispatch.ts). They
 * are taken out before the stores load, so they are never built.
 */
export const DROPPED_API_PIECES = {
	middlewares: ['cookies', 'auth'],
	routes: ['callback', 'logout'],
	listeners: ['PluginServerRouterFound', 'PluginServerMiddlewareSuccess'],
} as const;

export function dropUnusedApiPieces(stores: StoreRegistry): void {
	for (const [store, names] of Object.entries(DROPPED_API_PIECES) as [keyof typeof DROPPED_API_PIECES, readonly string[]][]) {
		const manual = manuallyRegisteredPieces(stores.get(store));
		for (const name of names) manual.delete(name);
	}
}

/**
 * The base class each store's pieces must extend. plugin-api types routes and middlewares with its own ApiRequest
 * and ApiResponse, but Haven's server hands them HttpRequest and node's ServerResponse: a plain plugin-api Route
 * written as plugin-api's documentation shows (`response.json(...)`) compiles, then fails at its first request.
 * ApiRoute and ApiMiddleware declare the types pieces really get, so a piece extending them is checked by tsc.
 */
const REQUIRED_BASES: Record<string, { base: abstract new (...args: never[]) => unknown; name: string; file: string }> = {
	routes: { base: ApiRoute, name: 'ApiRoute', file: 'src/lib/api/route.ts' },
	middlewares: { base: ApiMiddleware, name: 'ApiMiddleware', file: 'src/lib/api/middleware.ts' },
};

/** Every route and middleware piece extends Haven's base; otherwise an error naming each piece and its file. */
export function requireHavenBases(stores: StoreRegistry): void {
	const problems: string[] = [];
	for (const store of stores.values()) {
		const required = REQUIRED_BASES[store.name];
		if (!required) continue;
		for (const piece of store.values()) {
			if (piece instanceof required.base) continue;
			const where = piece.location.root === VirtualPath ? 'a built-in piece of a Sapphire plugin' : piece.location.full;
			problems.push(`${store.name} piece "${piece.name}" (${where}) does not extend ${required.name} (${required.file})`);
		}
	}
	if (problems.length === 0) return;
	throw new Error(
		`${problems.join('\n')}\nHaven's HTTP server gives routes and middlewares its own HttpRequest and node's ServerResponse, not ` +
			"plugin-api's ApiRequest and ApiResponse: such a piece would fail at its first request (see src/lib/framework/README.md).",
	);
}

/** Loads every store, then checks what was loaded (`requireHavenBases`). */
export async function loadPieces(stores: StoreRegistry): Promise<void> {
	await Promise.all([...stores.values()].map((store) => store.loadAll()));
	requireHavenBases(stores);
}

/**
 * `client.login` without loading the pieces again. startHaven loads them itself (and serves HTTP) before the gateway
 * connects; Sapphire's login would unload and reload every store. Its plugin hooks still run.
 */
export async function loginWithLoadedPieces(client: SapphireClient, token: string | undefined): Promise<void> {
	const stores = [...client.stores.values()] as unknown as { loadAll: () => Promise<void> }[];
	for (const store of stores) store.loadAll = async () => undefined;
	try {
		await client.login(token);
	} finally {
		for (const store of stores) delete (store as { loadAll?: unknown }).loadAll;
	}
}
