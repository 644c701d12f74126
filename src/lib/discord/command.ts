import { pathToFileURL } from 'node:url';
import { BucketScope, Command, container, type PreconditionEntryResolvable } from '@sapphire/framework';
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandKind, cooldownSeconds, type CommandAccess, type CommandDefinition } from './definitions.ts';

declare module '@sapphire/framework' {
	interface Preconditions {
		OwnerOnly: never;
		GuildAdmin: never;
	}
}

/** Is this user one of OWNER_IDS? */
export function isOwner(userId: string): boolean {
	return container.config.discord.ownerIds.includes(userId);
}

const ACCESS_PRECONDITIONS: Record<CommandAccess, PreconditionEntryResolvable[]> = {
	everyone: [],
	guildAdmin: ['GuildAdmin'],
	owner: ['OwnerOnly'],
};

/**
 * The base of every Haven command: the project defaults in one place. From the command's `definition` it takes the
 * name and description, the per-user cooldown (Sapphire's Cooldown precondition, one use per `cooldownSeconds`) and
 * the access precondition, which runs first so that a refused user spends no cooldown. Registration is not done
 * here (see src/lib/discord/deploy.ts): Sapphire routes each interaction to the piece with the command's name.
 */
export abstract class HavenCommand extends Command {
	readonly definition: CommandDefinition;

	constructor(context: Command.LoaderContext, definition: CommandDefinition, options: Command.Options = {}) {
		super(context, {
			...options,
			name: definition.name,
			// Sapphire lowercases piece names but routes a context menu by its exact name ("Check in on this message").
			aliases: definition.name === definition.name.toLowerCase() ? options.aliases : [definition.name, ...(options.aliases ?? [])],
			description: definition.description,
			preconditions: [...ACCESS_PRECONDITIONS[definition.access], ...(options.preconditions ?? [])],
			cooldownDelay: cooldownSeconds(definition) * 1000,
			cooldownLimit: 1,
			cooldownScope: BucketScope.User,
		});
		this.definition = definition;
	}

	/** A fresh EntityManager for one interaction (never the global one). */
	protected em(): EntityManager {
		return this.container.db.orm.em.fork();
	}
}

/** Definitions of the loaded Haven commands (for /help). */
export function loadedDefinitions(): CommandDefinition[] {
	return [...container.stores.get('commands').values()]
		.filter((command): command is HavenCommand => command instanceof HavenCommand)
		.map((command) => command.definition);
}

/**
 * Sapphire's own registration is taken out (src/lib/framework/setup.ts, `dropSapphireRegistration`): a command reaches
 * Discord only through the `definition` its file exports (`collectDefinitions`, then src/lib/discord/deploy.ts). A
 * loaded command piece that is not a HavenCommand, or whose file does not export its definition, would answer no one:
 * it is never registered. startHaven refuses to start with one; the error names each such piece and its file.
 */
export async function requireExportedDefinitions(commands: Iterable<Command>): Promise<void> {
	const problems: string[] = [];
	for (const command of commands) {
		const where = `command piece "${command.name}" (${command.location.full})`;
		if (!(command instanceof HavenCommand)) {
			problems.push(`${where} does not extend HavenCommand (src/lib/discord/command.ts)`);
			continue;
		}
		// The URL `collectDefinitions` imports too, so this module is the one deploy reads.
		const module = (await import(pathToFileURL(command.location.full).href)) as { definition?: CommandDefinition };
		if (module.definition?.name !== command.definition.name || commandKind(module.definition) !== commandKind(command.definition))
			problems.push(`${where} does not export its CommandDefinition as \`definition\``);
	}
	if (problems.length === 0) return;
	throw new Error(`${problems.join('\n')}\nSuch a command would never be registered with Discord (see src/lib/discord/definitions.ts).`);
}
