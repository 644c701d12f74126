import type { MikroORM } from '@mikro-orm/postgresql';
import { Routes, type REST, type RESTPostAPIApplicationCommandsJSONBody } from 'discord.js';
import { AppState } from '../db/index.ts';
import { canonicalJson, registrationHash, registrationPlan, type CommandDefinition } from './definitions.ts';

/**
 * Command registration, the one path (startup and `haven deploy-commands`): global commands replace the global set
 * with one PUT; owner commands replace the set of PRIVATE_GUILD_ID with one PUT. Sapphire's own registration is not
 * used (no piece defines `registerApplicationCommands`, and `dropSapphireRegistration` in src/lib/framework/setup.ts
 * removes the listener that would run it); Sapphire still routes each interaction to the piece of the same name.
 *
 * A hash of everything registered (application, private guild, every body) is kept in `app_state`; when it matches,
 * nothing is sent to Discord unless forced. Before each PUT the current set is read (GET) so the result can say
 * what was created, updated and removed. When PRIVATE_GUILD_ID changes, the owner commands are removed from the
 * guild of the previous deploy.
 */

export const COMMANDS_HASH_KEY = 'commands-hash';

export interface StoredDeploy {
	hash: string;
	applicationId: string;
	privateGuildId: string | null;
	deployedAt: string;
}

export interface ScopeChanges {
	/** `global`, or the guild id. */
	scope: string;
	created: string[];
	updated: string[];
	removed: string[];
	unchanged: string[];
}

export interface DeployResult {
	status: 'deployed' | 'skipped';
	hash: string;
	scopes: ScopeChanges[];
	warnings: string[];
}

export interface DeployOptions {
	rest: REST;
	applicationId: string;
	privateGuildId: string | undefined;
	definitions: readonly CommandDefinition[];
	force?: boolean;
	db: { orm: MikroORM };
}

type Body = RESTPostAPIApplicationCommandsJSONBody;
type Registered = Body & { id?: string; type?: number };

/** The fields we set, as Discord echoes them, in one comparable form. */
function comparable(command: Registered): string {
	const strip = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.length ? value.map(strip) : undefined;
		if (value && typeof value === 'object') {
			const entries = Object.entries(value as Record<string, unknown>)
				.map(([key, inner]) => [key, strip(inner)] as const)
				.filter(([, inner]) => inner !== undefined && inner !== null && inner !== false);
			return entries.length ? Object.fromEntries(entries) : undefined;
		}
		return value;
	};
	const { name, description, options, default_member_permissions, contexts, integration_types, nsfw } = command as Registered &
		Record<string, unknown>;
	return canonicalJson(
		strip({
			type: command.type ?? 1,
			name,
			description: description || undefined,
			options,
			default_member_permissions,
			contexts,
			integration_types,
			nsfw,
		}),
	);
}

const key = (command: Registered) => `${command.type ?? 1}:${command.name}`;
const label = (command: Registered) => ((command.type ?? 1) === 1 ? `/${command.name}` : command.name);

export function diffCommands(scope: string, current: readonly Registered[], desired: readonly Body[]): ScopeChanges {
	const existing = new Map(current.map((command) => [key(command), command]));
	const wanted = new Set(desired.map(key));
	const changes: ScopeChanges = { scope, created: [], updated: [], removed: [], unchanged: [] };
	for (const command of desired) {
		const before = existing.get(key(command));
		if (!before) changes.created.push(label(command));
		else if (comparable(before) !== comparable(command)) changes.updated.push(label(command));
		else changes.unchanged.push(label(command));
	}
	for (const command of current) if (!wanted.has(key(command))) changes.removed.push(label(command));
	return changes;
}

async function overwrite(rest: REST, applicationId: string, guildId: string | null, desired: Body[]): Promise<ScopeChanges> {
	const route = guildId ? Routes.applicationGuildCommands(applicationId, guildId) : Routes.applicationCommands(applicationId);
	const current = (await rest.get(route)) as Registered[];
	const changes = diffCommands(guildId ?? 'global', current, desired);
	await rest.put(route, { body: desired });
	return changes;
}

export async function readStoredDeploy(db: { orm: MikroORM }): Promise<StoredDeploy | undefined> {
	const row = await db.orm.em.fork().findOne(AppState, { key: COMMANDS_HASH_KEY });
	return (row?.value as StoredDeploy | undefined) ?? undefined;
}

export async function deployCommands({ rest, applicationId, privateGuildId, definitions, force = false, db }: DeployOptions): Promise<DeployResult> {
	const plan = registrationPlan(definitions);
	const hash = registrationHash(plan, applicationId, privateGuildId);
	const stored = await readStoredDeploy(db);
	const warnings: string[] = [];
	if (!privateGuildId && plan.owner.length) {
		warnings.push(`PRIVATE_GUILD_ID is not set: the ${plan.owner.length} owner command(s) are not registered anywhere`);
	}
	if (!force && stored?.hash === hash) return { status: 'skipped', hash, scopes: [], warnings };

	const scopes: ScopeChanges[] = [await overwrite(rest, applicationId, null, plan.global)];
	if (privateGuildId) scopes.push(await overwrite(rest, applicationId, privateGuildId, plan.owner));
	const previousGuild = stored?.applicationId === applicationId ? stored.privateGuildId : null;
	if (previousGuild && previousGuild !== privateGuildId) {
		try {
			scopes.push(await overwrite(rest, applicationId, previousGuild, []));
		} catch (error) {
			warnings.push(`could not remove the owner commands from the previous private guild ${previousGuild}: ${(error as Error).message}`);
		}
	}

	const value: StoredDeploy = { hash, applicationId, privateGuildId: privateGuildId ?? null, deployedAt: new Date().toISOString() };
	const em = db.orm.em.fork();
	await em.upsert(AppState, { key: COMMANDS_HASH_KEY, value, updatedAt: new Date() });
	return { status: 'deployed', hash, scopes, warnings };
}

/** Lines for logs and the CLI: what changed in each scope. */
export function describeDeploy(result: DeployResult): string[] {
	if (result.status === 'skipped') return ['Slash commands are up to date (definitions unchanged since the last deploy): nothing sent to Discord'];
	return result.scopes.map((scope) => {
		const where = scope.scope === 'global' ? 'global' : `guild ${scope.scope}`;
		const part = (name: string, list: string[]) => (list.length ? `${name} ${list.length} (${list.join(', ')})` : `${name} 0`);
		return `Commands ${where}: ${part('created', scope.created)}, ${part('updated', scope.updated)}, ${part('removed', scope.removed)}, unchanged ${scope.unchanged.length}`;
	});
}
