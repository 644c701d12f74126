import '@sapphire/plugin-api/register';
import '@sapphire/plugin-logger/register';
import type { SapphireClient, StoreRegistry } from '@sapphire/framework';
import '../core/container.ts';

/**
 * Sapphire's loader only accepts `.ts` pieces when it detects ts-node and the like; Node's own type stripping is
 * not detected. Every store, including plugin-api's routes and middlewares, gets its
 * strategy told that `.ts` files are pieces and that they are ES modules.
 */
export function acceptTypeScriptPieces(stores: StoreRegistry): void {
	for (const store of stores.values()) {
		const strategy = store.strategy as unknown as { supportedExtensions: string[]; filterDtsFiles: boolean; clientUsesESModules: boolean };
		if (!strategy.supportedExtensions.includes('.ts')) strategy.supportedExtensions.push('.ts');
		strategy.filterDtsFiles = true;
		strategy.clientUsesESModules = true;
	}
}

/** plugin-api ships OAuth pieces we do not use; its `cookies` middleware also answers 500 to requests by IP host. */
export async function dropUnusedApiPieces(stores: StoreRegistry): Promise<void> {
	const unload = async (store: 'middlewares' | 'routes', name: string) => {
		if (stores.get(store).has(name)) await stores.get(store).unload(name);
	};
	await Promise.all([unload('middlewares', 'cookies'), unload('middlewares', 'auth'), unload('routes', 'callback'), unload('routes', 'logout')]);
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
