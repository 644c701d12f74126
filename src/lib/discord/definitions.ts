import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	ApplicationCommandType,
	ApplicationIntegrationType,
	InteractionContextType,
	PermissionFlagsBits,
	type APIApplicationCommandOption,
	type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord.js';

/**
 * Commands as typed data. Every command piece exports its `definition` next to the class that runs it; the same
 * object configures the piece (name, cooldown, preconditions), feeds `/help`, and is what `deployCommands` registers.
 * A new command is a new file in `src/commands/**`: nothing else lists it.
 */

/** Who may run a command: everyone, members with Manage Server (in a server), or the owners in OWNER_IDS. */
export type CommandAccess = 'everyone' | 'guildAdmin' | 'owner';

type CommandKind = typeof ApplicationCommandType.ChatInput | typeof ApplicationCommandType.User | typeof ApplicationCommandType.Message;

export interface CommandDefinition {
	readonly name: string;
	/** Slash commands: 1 to 100 characters. Context-menu commands have none on Discord; it is still shown by /help. */
	readonly description: string;
	/** Default: a slash command. */
	readonly type?: CommandKind;
	/** Heading in /help. */
	readonly category: string;
	readonly access: CommandAccess;
	/** Per user and per command, in seconds; 0 for none. Default: see `cooldownSeconds`. */
	readonly cooldownSeconds?: number;
	readonly options?: readonly APIApplicationCommandOption[];
	/** Where it can run. Default: servers and DMs with the bot for everyone's commands, servers only otherwise. */
	readonly contexts?: readonly InteractionContextType[];
	/** One more line for /help. */
	readonly help?: string;
	/** Crisis help: answered even to blocked people and servers (src/lib/operations/blocks.ts). */
	readonly neverBlocked?: boolean;
}

/** Info commands (/ping, /about and the like) wait 5 seconds, owner commands 3: enough to stop accidental repeats. */
export const DEFAULT_COOLDOWN_SECONDS = 5;
export const OWNER_COOLDOWN_SECONDS = 3;

export function cooldownSeconds(definition: CommandDefinition): number {
	return definition.cooldownSeconds ?? (definition.access === 'owner' ? OWNER_COOLDOWN_SECONDS : DEFAULT_COOLDOWN_SECONDS);
}

export function commandKind(definition: CommandDefinition): CommandKind {
	return definition.type ?? ApplicationCommandType.ChatInput;
}

/** Owner commands are registered only to PRIVATE_GUILD_ID; everything else globally. */
export function isOwnerScoped(definition: CommandDefinition): boolean {
	return definition.access === 'owner';
}

/** The registration body Discord receives. Every field is explicit so that a comparison with what Discord returns is exact. */
export function toApplicationCommand(definition: CommandDefinition): RESTPostAPIApplicationCommandsJSONBody {
	const kind = commandKind(definition);
	const contexts = [
		...(definition.contexts ??
			(definition.access === 'everyone' ? [InteractionContextType.Guild, InteractionContextType.BotDM] : [InteractionContextType.Guild])),
	];
	const common = {
		name: definition.name,
		// Manage Server hides admin commands from other members; the GuildAdmin precondition still checks on every use.
		default_member_permissions: definition.access === 'guildAdmin' ? String(PermissionFlagsBits.ManageGuild) : null,
		contexts,
		integration_types: [ApplicationIntegrationType.GuildInstall],
		nsfw: false,
	};
	if (kind === ApplicationCommandType.ChatInput) {
		return { ...common, type: kind, description: definition.description, options: [...(definition.options ?? [])] };
	}
	return { ...common, type: kind };
}

const CHAT_INPUT_NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;

/** Problems Discord would refuse at registration, caught before: bad names, descriptions, duplicates. */
export function definitionProblems(definitions: readonly CommandDefinition[]): string[] {
	const problems: string[] = [];
	const seen = new Set<string>();
	for (const definition of definitions) {
		const kind = commandKind(definition);
		const key = `${kind}:${definition.name}`;
		if (seen.has(key)) problems.push(`two commands are named "${definition.name}"`);
		seen.add(key);
		if (kind === ApplicationCommandType.ChatInput) {
			if (!CHAT_INPUT_NAME.test(definition.name))
				problems.push(`"${definition.name}" is not a valid slash command name (lowercase, 1 to 32 characters)`);
			if (definition.description.length < 1 || definition.description.length > 100)
				problems.push(`the description of /${definition.name} must be 1 to 100 characters`);
			if ((definition.options?.length ?? 0) > 25) problems.push(`/${definition.name} has more than 25 options`);
		} else if (definition.name.length < 1 || definition.name.length > 32) {
			problems.push(`context menu "${definition.name}" must be named with 1 to 32 characters`);
		}
		const cooldown = cooldownSeconds(definition);
		if (!(Number.isFinite(cooldown) && cooldown >= 0)) problems.push(`the cooldown of ${definition.name} must be 0 or more seconds`);
	}
	return problems;
}

export interface RegistrationPlan {
	global: RESTPostAPIApplicationCommandsJSONBody[];
	/** Owner commands, for PRIVATE_GUILD_ID. */
	owner: RESTPostAPIApplicationCommandsJSONBody[];
}

export function registrationPlan(definitions: readonly CommandDefinition[]): RegistrationPlan {
	const problems = definitionProblems(definitions);
	if (problems.length) throw new Error(`Invalid command definitions:\n  - ${problems.join('\n  - ')}`);
	const sorted = [...definitions].sort((a, b) => a.name.localeCompare(b.name) || commandKind(a) - commandKind(b));
	return {
		global: sorted.filter((definition) => !isOwnerScoped(definition)).map(toApplicationCommand),
		owner: sorted.filter(isOwnerScoped).map(toApplicationCommand),
	};
}

/** JSON with object keys sorted at every level: the same data always gives the same text. */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, inner: unknown) =>
		inner && typeof inner === 'object' && !Array.isArray(inner)
			? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: inner,
	);
}

/** What a deploy depends on: the application, the private guild and every registration body. */
export function registrationHash(plan: RegistrationPlan, applicationId: string, privateGuildId: string | undefined): string {
	return createHash('sha256')
		.update(canonicalJson({ applicationId, privateGuildId: privateGuildId ?? null, global: plan.global, owner: plan.owner }))
		.digest('hex');
}

/** The folder of command pieces (`src/commands`). */
export const COMMANDS_FOLDER = new URL('../../commands/', import.meta.url);

const PIECE_FILE = /\.(?:[cm]?js|ts)$/;

/**
 * Every `definition` exported by the command pieces under `folder`, in file order. Startup and `haven
 * deploy-commands` both use it, so they always hash the same list.
 */
export async function collectDefinitions(folder: URL = COMMANDS_FOLDER): Promise<CommandDefinition[]> {
	const root = folder.pathname.endsWith('/') ? folder : new URL(`${folder.href}/`);
	const files = (await readdir(root, { recursive: true, withFileTypes: true }))
		.filter((entry) => entry.isFile() && PIECE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts'))
		.map((entry) => join(entry.parentPath, entry.name))
		.sort();
	const definitions: CommandDefinition[] = [];
	for (const file of files) {
		const module = (await import(pathToFileURL(file).href)) as { definition?: CommandDefinition };
		if (module.definition) definitions.push(module.definition);
	}
	return definitions;
}
