import { BucketScope, Command, container, type PreconditionEntryResolvable } from '@sapphire/framework';
import type { EntityManager } from '@mikro-orm/postgresql';
import { cooldownSeconds, type CommandAccess, type CommandDefinition } from './definitions.ts';

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
