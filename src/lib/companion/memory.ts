import type { EntityManager } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { DecryptionError } from '../db/field-cipher.ts';
import { MemoryTurn } from '../db/index.ts';
import { lockUser } from '../privacy/user-data.ts';

/**
 * Short conversation memory for the companion: the last few turns of one person in one channel (a DM, or a server
 * channel where they mention Haven), so a reply can follow the conversation.
 *
 * - Stored encrypted (`memory_turns.content` is an EncryptedText column), one row per turn.
 * - Each turn expires `MEMORY_TTL_HOURS` after it was said (default 24 h): expired turns are never read, and the
 *   retention job (src/lib/privacy/retention.ts) deletes them. Only the newest `RECENT_TURNS` per person and channel are kept;
 *   older ones are deleted as new ones arrive.
 * - On by default (`users.memory_enabled`); `/privacy memory off` turns it off and clears what is stored, and while
 *   off nothing is stored. `/privacy memory clear` forgets without turning it off.
 * - Writes, the switch and `/privacy delete` take the same per-person lock, so a turn being stored while memory is
 *   switched off (or the person's data deleted) cannot slip in afterwards.
 *
 * The companion (src/lib/companion/companion.ts) wires these in: `recentTurns` before asking the AI, `rememberTurn` for the
 * person's message and Haven's reply after answering.
 */

export const DEFAULT_MEMORY_TTL_HOURS = 24;
/** How many turns are read (and kept) per person and channel. */
export const RECENT_TURNS = 6;
/** The most of one turn that is kept. */
export const MAX_TURN_CHARS = 2_000;

export type MemoryRole = 'user' | 'assistant';
export const MEMORY_ROLES: readonly MemoryRole[] = ['user', 'assistant'];

export interface NewTurn {
	userId: string;
	channelId: string;
	role: MemoryRole;
	content: string;
}

export interface RememberedTurn {
	role: MemoryRole;
	content: string;
	createdAt: Date;
}

export interface MemoryOptions {
	now?: Date;
	/** Default: MEMORY_TTL_HOURS from the configuration, else 24 h. */
	ttlMs?: number;
}

/** The configured time-to-live (the running service's MEMORY_TTL_HOURS), else the default. */
export function memoryTtlMs(): number {
	const hours = (container as { config?: { retention?: { memoryTtlHours?: number } } }).config?.retention?.memoryTtlHours;
	return (typeof hours === 'number' && hours > 0 ? hours : DEFAULT_MEMORY_TTL_HOURS) * 3_600_000;
}

/** Is memory on for this person? On unless they turned it off (no row: on). */
export async function memoryEnabled(em: EntityManager, userId: string): Promise<boolean> {
	const rows = await em.execute<{ memory_enabled: boolean }[]>('select memory_enabled from users where id = ?', [userId]);
	return rows[0]?.memory_enabled !== false;
}

/**
 * Stores one turn, unless memory is off for the person or the text is empty. Returns whether it was stored. Keeps only
 * the newest `RECENT_TURNS` of this person in this channel.
 */
export async function rememberTurn(em: EntityManager, turn: NewTurn, options: MemoryOptions = {}): Promise<boolean> {
	if (!MEMORY_ROLES.includes(turn.role)) throw new RangeError(`memory role must be user or assistant, not ${String(turn.role)}`);
	const content = turn.content.trim().slice(0, MAX_TURN_CHARS);
	if (!content) return false;
	const now = options.now ?? new Date();
	const ttlMs = options.ttlMs ?? memoryTtlMs();
	return em.fork().transactional(async (tx) => {
		await lockUser(tx, turn.userId);
		if (!(await memoryEnabled(tx, turn.userId))) return false;
		tx.create(MemoryTurn, {
			userId: turn.userId,
			channelId: turn.channelId,
			role: turn.role,
			content,
			createdAt: now,
			expiresAt: new Date(now.getTime() + ttlMs),
		});
		await tx.flush();
		await tx.execute(
			`delete from memory_turns where user_id = ? and channel_id = ? and id not in
			   (select id from memory_turns where user_id = ? and channel_id = ? order by created_at desc, id desc limit ?)`,
			[turn.userId, turn.channelId, turn.userId, turn.channelId, RECENT_TURNS],
			'run',
		);
		return true;
	});
}

/**
 * The last turns (at most `limit`, default `RECENT_TURNS`) of this person in this channel that have not expired, oldest
 * first, ready to go before the new message. Empty when memory is off. A turn that cannot be decrypted (the key was
 * changed without `rotate-salt`) makes the memory empty rather than failing the reply.
 */
export async function recentTurns(
	em: EntityManager,
	userId: string,
	channelId: string,
	options: { now?: Date; limit?: number } = {},
): Promise<RememberedTurn[]> {
	const fork = em.fork();
	if (!(await memoryEnabled(fork, userId))) return [];
	try {
		const rows = await fork.find(
			MemoryTurn,
			{ userId, channelId, expiresAt: { $gt: options.now ?? new Date() } },
			{ orderBy: { createdAt: 'desc', id: 'desc' }, limit: Math.max(0, Math.min(options.limit ?? RECENT_TURNS, RECENT_TURNS)) },
		);
		return rows.reverse().map((row) => ({ role: row.role as MemoryRole, content: row.content ?? '', createdAt: row.createdAt }));
	} catch (error) {
		if (error instanceof DecryptionError) return [];
		throw error;
	}
}

/** Forgets every stored turn of the person (all channels). Returns how many were deleted. */
export async function clearMemory(em: EntityManager, userId: string): Promise<number> {
	return em.fork().transactional(async (tx) => {
		await lockUser(tx, userId);
		const result = await tx.execute('delete from memory_turns where user_id = ?', [userId], 'run');
		return (result as { affectedRows?: number }).affectedRows ?? 0;
	});
}

/**
 * Turns memory on or off for the person (creating their preferences row if needed). Turning it off also clears what
 * is stored, in the same transaction. Returns the new state and how many turns were cleared.
 */
export async function setMemoryEnabled(
	em: EntityManager,
	userId: string,
	on: boolean,
	now = new Date(),
): Promise<{ enabled: boolean; cleared: number }> {
	return em.fork().transactional(async (tx) => {
		await lockUser(tx, userId);
		await tx.execute(
			`insert into users (id, country, screening_opt_out, memory_enabled, created_at, updated_at) values (?, null, false, ?, ?, ?)
			 on conflict (id) do update set memory_enabled = excluded.memory_enabled, updated_at = excluded.updated_at`,
			[userId, on, now, now],
			'run',
		);
		let cleared = 0;
		if (!on) {
			const result = await tx.execute('delete from memory_turns where user_id = ?', [userId], 'run');
			cleared = (result as { affectedRows?: number }).affectedRows ?? 0;
		}
		return { enabled: on, cleared };
	});
}
