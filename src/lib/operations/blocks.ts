import type { EntityManager } from '@mikro-orm/postgresql';
import { Block, type IBlock } from '../db/index.ts';

/**
 * Blocks the owners place on a person or a whole server (`/block`, `haven block`). A blocked person, and everyone in a
 * blocked server, gets a short polite refusal from every command and from the companion; crisis help never is:
 * the screen of DMs and mentions, the resources reply, `/crisis` and "Check in on this message" work for everyone
 * (commands mark this with `neverBlocked` in their definition). Owners (OWNER_IDS) cannot be blocked.
 *
 * A block is a row in `blocks`; lifting it stamps `liftedAt`, so the record stays. The active set is small, so each
 * process keeps it in memory and reads it again at most every `ttlMs` (a block placed from the CLI takes effect within
 * that; one placed through Discord at once, in that process).
 */

export type BlockKind = 'user' | 'guild';
export const BLOCK_KINDS: readonly BlockKind[] = ['user', 'guild'];
export const MAX_REASON_LENGTH = 500;

export const BLOCKED_MESSAGE = "Sorry, Haven isn't available to you here. If you are struggling, `/crisis` still shows support resources.";

export class BlockError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'BlockError';
	}
}

export interface BlockView {
	id: number;
	kind: BlockKind;
	targetId: string;
	reason: string;
	blockedBy: string | null;
	createdAt: string;
	liftedAt: string | null;
	liftedBy: string | null;
}

export function viewBlock(row: IBlock): BlockView {
	return {
		id: row.id,
		kind: row.kind as BlockKind,
		targetId: row.targetId,
		reason: row.reason,
		blockedBy: row.blockedBy ?? null,
		createdAt: row.createdAt.toISOString(),
		liftedAt: row.liftedAt?.toISOString() ?? null,
		liftedBy: row.liftedBy ?? null,
	};
}

const SNOWFLAKE = /^\d{17,20}$/;

/** A Discord id as typed by an owner: the bare id or a user mention (`<@123>`, `<@!123>`). */
export function parseTargetId(value: string): string | null {
	const id = value.trim().replace(/^<@!?(\d+)>$/, '$1');
	return SNOWFLAKE.test(id) ? id : null;
}

export interface BlockRequest {
	kind: BlockKind;
	targetId: string;
	reason: string;
	/** The owner who placed it; null from the CLI. */
	by: string | null;
	/** OWNER_IDS: they cannot be blocked. */
	ownerIds?: readonly string[];
}

/** Places a block, or updates the reason of the one in force. Returns it and whether it is new. */
export async function placeBlock(em: EntityManager, request: BlockRequest): Promise<{ block: IBlock; created: boolean }> {
	const reason = request.reason.trim().slice(0, MAX_REASON_LENGTH);
	if (!SNOWFLAKE.test(request.targetId)) throw new BlockError(`"${request.targetId}" is not a Discord id`);
	if (!reason) throw new BlockError('A block needs a reason');
	if (request.kind === 'user' && request.ownerIds?.includes(request.targetId)) throw new BlockError('Owners cannot be blocked');
	const current = await em.findOne(Block, { kind: request.kind, targetId: request.targetId, liftedAt: null });
	if (current) {
		em.assign(current, { reason, blockedBy: request.by });
		await em.flush();
		return { block: current, created: false };
	}
	const block = em.create(Block, { kind: request.kind, targetId: request.targetId, reason, blockedBy: request.by });
	await em.flush();
	return { block, created: true };
}

/** Lifts the block in force; null when there is none. */
export async function liftBlock(em: EntityManager, kind: BlockKind, targetId: string, by: string | null, now = new Date()): Promise<IBlock | null> {
	const current = await em.findOne(Block, { kind, targetId, liftedAt: null });
	if (!current) return null;
	em.assign(current, { liftedAt: now, liftedBy: by });
	await em.flush();
	return current;
}

/** Blocks in force, newest first. */
export async function activeBlocks(em: EntityManager, limit = 100): Promise<IBlock[]> {
	return em.find(Block, { liftedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
}

export interface BlockCheck {
	/** Is this person, or the server they are in, blocked? Owners never are. Never throws: unknown means not blocked. */
	isBlocked(userId: string, guildId: string | null): Promise<boolean>;
	/** Read the blocks again on the next check (after a change in this process). */
	invalidate(): void;
}

export interface BlockCheckOptions {
	em: () => EntityManager;
	ownerIds: readonly string[];
	ttlMs?: number;
	now?: () => number;
	warn?: (message: string) => void;
}

export const BLOCK_CACHE_MS = 10_000;

export function createBlockCheck({ em, ownerIds, ttlMs = BLOCK_CACHE_MS, now = Date.now, warn }: BlockCheckOptions): BlockCheck {
	let known: { users: Set<string>; guilds: Set<string> } = { users: new Set(), guilds: new Set() };
	let readAt = -Infinity;
	let pending: Promise<void> | undefined;
	let warned = false;

	const load = async () => {
		try {
			const rows = await em().find(Block, { liftedAt: null }, { fields: ['kind', 'targetId'] });
			known = {
				users: new Set(rows.filter((row) => row.kind === 'user').map((row) => row.targetId)),
				guilds: new Set(rows.filter((row) => row.kind === 'guild').map((row) => row.targetId)),
			};
			warned = false;
		} catch {
			// The database is away: keep the last known blocks rather than refuse or let everyone through blindly.
			if (!warned) warn?.('Blocks: could not read the block list; using the last one read');
			warned = true;
		}
		readAt = now();
	};

	return {
		async isBlocked(userId, guildId) {
			if (ownerIds.includes(userId)) return false;
			if (now() - readAt >= ttlMs) await (pending ??= load().finally(() => (pending = undefined)));
			return known.users.has(userId) || (guildId !== null && known.guilds.has(guildId));
		},
		invalidate() {
			readAt = -Infinity;
		},
	};
}

/**
 * A blocked person writing to Haven is told so at most once in this window (per process), not at every message. In a
 * fleet (src/lib/fleet) that is once per instance whose shards they write on: a courtesy notice, never a second
 * handling of one message (each message reaches one instance), so it stays in memory.
 */
export const REFUSAL_WINDOW_MS = 10 * 60_000;
const refusedAt = new Map<string, number>();

/** Should a blocked person's message get the refusal now? Records it when yes. */
export function refuseNow(userId: string, now: number): boolean {
	for (const [id, at] of refusedAt) if (now - at >= REFUSAL_WINDOW_MS) refusedAt.delete(id);
	if (refusedAt.has(userId)) return false;
	refusedAt.set(userId, now);
	return true;
}

/** One line per block, for the owner's list and the CLI. */
export function describeBlock(block: BlockView): string {
	const what = block.kind === 'user' ? `user ${block.targetId}` : `server ${block.targetId}`;
	const lifted = block.liftedAt ? `, lifted ${block.liftedAt}` : '';
	return `#${block.id} ${what} since ${block.createdAt}${lifted}: ${block.reason}`;
}
