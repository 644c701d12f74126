import { randomBytes } from 'node:crypto';
import { UserError } from '@sapphire/framework';
import type { BaseInteraction } from 'discord.js';
import { DATABASE_UNAVAILABLE_REPLY, isDatabaseUnavailable } from '../db/outage.ts';
import { send } from './reply.ts';

/**
 * The one error funnel of the bot: every failure of a command, context menu, button or modal ends here (through the
 * listeners in src/listeners/commands). The user gets a short, kind, ephemeral answer with an error id; the log gets
 * one line with where it happened, the same id, the error's class, code and stack frames. Never the error's message
 * (a database error quotes its query and the user's text with it) and never anything to the user but the id.
 *
 * A `UserError` (Sapphire's) thrown on purpose is a message for the user: it is shown as is and not logged as a fault.
 */

export interface FunnelLog {
	error(message: string): void;
	debug(message: string): void;
}

export function newErrorId(): string {
	return randomBytes(4).toString('hex');
}

/** The error's class, code and a few stack frames, without its message. */
export function describeError(error: unknown): string {
	if (!(error instanceof Error)) return `non-error value (${typeof error})`;
	const code = (error as { code?: unknown }).code;
	const frames = (error.stack ?? '')
		.split('\n')
		.filter((line) => /^\s+at /.test(line))
		.slice(0, 4)
		.map((line) => line.trim().replace(/^at /, ''));
	return `${error.name}${typeof code === 'string' || typeof code === 'number' ? ` (code ${code})` : ''}${frames.length ? ` at ${frames.join(' <- ')}` : ''}`;
}

export function failureMessage(id: string): string {
	return `Sorry, something went wrong on my side. It's not you. Please try again in a moment; if it keeps happening, the bot's owners can look it up with error id \`${id}\`.`;
}

/** Where an interaction came from, for the log: `/name`, `/name sub`, a context menu, or a component's custom id prefix. */
export function interactionLabel(interaction: BaseInteraction): string {
	if (interaction.isChatInputCommand()) {
		const sub = interaction.options.getSubcommand(false);
		return `/${interaction.commandName}${sub ? ` ${sub}` : ''}`;
	}
	if (interaction.isCommand() || interaction.isAutocomplete())
		return `${interaction.commandName} (${interaction.isAutocomplete() ? 'autocomplete' : 'context menu'})`;
	if (interaction.isMessageComponent() || interaction.isModalSubmit()) return `component ${interaction.customId.split(':')[0]}`;
	return `interaction type ${(interaction as BaseInteraction).type}`;
}

// ---- Hook for /guilddebug (src/lib/operations/guild-diagnostics.ts keeps a small per-server ring of recent faults) ----------
/** A fault the funnel handled, as much as an admin may see: where, when, the error id and class. No user content. */
export interface FunnelledFault {
	guildId: string | null;
	where: string;
	errorId: string;
	errorName: string;
	at: Date;
}

const faultObservers = new Set<(fault: FunnelledFault) => void>();

/** Be told of every fault the funnel handles (not of UserErrors). Returns the unsubscribe function. */
export function observeFaults(observer: (fault: FunnelledFault) => void): () => void {
	faultObservers.add(observer);
	return () => void faultObservers.delete(observer);
}

function reportFault(fault: FunnelledFault): void {
	for (const observer of faultObservers) {
		try {
			observer(fault);
		} catch {
			// An observer's failure must never change how the user is answered.
		}
	}
}
// ---- end of the /guilddebug hook ------------------------------------------------------------------------------------

export async function funnelError(interaction: BaseInteraction, error: unknown, log: FunnelLog): Promise<string | undefined> {
	const where = interactionLabel(interaction);
	let content: string;
	let id: string | undefined;
	if (error instanceof UserError) {
		content = error.message;
		log.debug(`${where}: refused with ${error.identifier}`);
	} else {
		id = newErrorId();
		// The database being down or restarting is not a bug: say so kindly; still logged with its id.
		content = isDatabaseUnavailable(error) ? DATABASE_UNAVAILABLE_REPLY : failureMessage(id);
		log.error(`${where} failed [error ${id}]: ${describeError(error)}`);
		reportFault({
			guildId: interaction.guildId,
			where,
			errorId: id,
			errorName: error instanceof Error ? error.name : typeof error,
			at: new Date(),
		});
	}
	try {
		if (interaction.isAutocomplete()) {
			if (!interaction.responded) await interaction.respond([]);
		} else if (interaction.isRepliable()) {
			await send(interaction, { content, embeds: [], components: [] });
		}
	} catch (replyError) {
		log.debug(`${where}: could not tell the user about the failure${id ? ` [error ${id}]` : ''}: ${describeError(replyError)}`);
	}
	return id;
}
