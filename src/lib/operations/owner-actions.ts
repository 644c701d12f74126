import { DiscordAPIError, REST, RESTJSONErrorCodes, Routes } from 'discord.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BlockError, liftBlock, placeBlock, viewBlock, type BlockCheck, type BlockKind, type BlockView } from './blocks.ts';

/**
 * The owners' block and unblock, as `/block` and `haven block` both run them: the database change, the local block
 * cache told at once, and (for a server, when asked) Haven leaving it through Discord's REST API.
 */

/** A REST client for a one-off CLI command: no sweeper timers, so the process ends when the work does. */
export function oneOffRest(apiUrl: string, token: string): REST {
	return new REST({ api: apiUrl, hashSweepInterval: 0, handlerSweepInterval: 0 }).setToken(token);
}

export type LeaveOutcome = 'left' | 'not_in_server' | 'failed';

/** Leaves a server: DELETE /users/@me/guilds/:id. Unknown server (10004) means Haven was not in it. */
export async function leaveGuild(rest: REST, guildId: string): Promise<LeaveOutcome> {
	try {
		await rest.delete(Routes.userGuild(guildId));
		return 'left';
	} catch (error) {
		if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownGuild) return 'not_in_server';
		return 'failed';
	}
}

export interface BlockCommand {
	kind: BlockKind;
	targetId: string;
	reason: string;
	by: string | null;
	ownerIds: readonly string[];
	/** Leave the server too (guild blocks only); needs Discord. */
	leave?: { rest: REST };
}

export type BlockResult = { ok: true; block: BlockView; created: boolean; left?: LeaveOutcome } | { ok: false; problem: string };

export async function runBlock(em: EntityManager, command: BlockCommand, check?: BlockCheck): Promise<BlockResult> {
	try {
		const { block, created } = await placeBlock(em, command);
		check?.invalidate();
		const left = command.kind === 'guild' && command.leave ? await leaveGuild(command.leave.rest, command.targetId) : undefined;
		return { ok: true, block: viewBlock(block), created, left };
	} catch (error) {
		if (error instanceof BlockError) return { ok: false, problem: error.message };
		throw error;
	}
}

export async function runUnblock(em: EntityManager, kind: BlockKind, targetId: string, by: string | null, check?: BlockCheck): Promise<boolean> {
	const lifted = await liftBlock(em, kind, targetId, by);
	check?.invalidate();
	return lifted !== null;
}
