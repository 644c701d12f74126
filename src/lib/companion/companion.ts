import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { AiError, fallbackFor, FALLBACK_REPLY, sanitizeReply, type Ai, type ChatTurn } from '../ai/index.ts';
import type { Config } from '../core/config.ts';
import { Conversation } from '../db/index.ts';
import { recentTurns, rememberTurn } from './memory.ts';

/**
 * The companion's reply to a DM or a mention: one AI completion with Haven's system prompt (always applied by the AI
 * client), made safe for Discord by `sanitizeReply` (no phone numbers, no mentions), and a fixed fallback when the
 * AI is missing, slow or failing. `careful` is set when the crisis screen found risk: the model is told that vetted
 * resources were already sent and must not write any number itself.
 *
 * Conversation memory: with `memory` in the deps, the last few unexpired turns of this person in this channel go
 * before the new message, and both sides of an answered turn are remembered (encrypted, expiring; nothing when the
 * person turned memory off). The careful path neither reads nor writes memory: crisis words are not kept.
 */

export interface CompanionInput {
	userId: string;
	channelId: string;
	guildId: string | null;
	text: string;
	careful?: boolean;
}

export interface CompanionTurn {
	reply: string;
	/** False when `reply` is a fixed fallback. */
	fromAi: boolean;
}

export interface CompanionDeps {
	ai: Ai;
	/** Keys the provider's safety identifier (`aiIdentifierKey`): never the raw Discord id. */
	identifierKey: Buffer;
	timeoutMs?: number;
	/** Conversation memory (src/lib/companion/memory.ts); absent: every message stands alone. */
	memory?: { em: () => EntityManager };
}

const DM_CONTEXT = 'You are talking with one person in a private message on Discord.';
const MENTION_CONTEXT =
	'Someone mentioned you in a public Discord server channel, so others can read your reply. Keep it general and kind, and do not ask them for private details in public.';

/** For a second message while Haven is still answering the first: one AI turn per person at a time. */
export const BUSY_REPLY = "I'm still thinking about your last message: give me a moment and I'll answer that first.";

// People with an AI turn in flight, so one person's burst cannot take every AI slot from everyone else.
const answering = new Set<string>();

/** Shown for a message with no text (a bare "@Haven", an image alone). */
export const EMPTY_MENTION_REPLY = "Hi, I'm Haven. Write me a few words about what's on your mind and I'll listen. `/help` lists what I can do.";

/**
 * A stable id for the AI provider's abuse tracking: an HMAC of the Discord id under this installation's secret key
 * (`aiIdentifierKey`). Without the key, nobody (the provider included) can tell which Discord user it stands for or
 * match it with the identifiers of another Haven: a plain hash of a public salt and a Discord id could be reversed by
 * hashing every known id.
 */
export function safetyIdentifier(userId: string, key: Buffer): string {
	return createHmac('sha256', key).update(`haven-user:${userId}`).digest('hex').slice(0, 32);
}

/** The `app_state` row that keeps the random identifier key of an installation without ENCRYPTION_KEY. */
export const AI_IDENTIFIER_STATE_KEY = 'ai_identifier_key';
const AI_IDENTIFIER_LABEL = 'haven ai safety identifier v1';

/**
 * The key of every safety identifier, read once at startup: derived from ENCRYPTION_KEY with HKDF-SHA256 under its
 * own label (so it is never the key that encrypts fields), or, without ENCRYPTION_KEY, 32 random bytes made at the
 * first start and kept in `app_state`. Either way it survives restarts, and salt rotation does not change it.
 */
export async function loadAiIdentifierKey(config: Pick<Config, 'encryption'>, orm: MikroORM): Promise<Buffer> {
	const { key } = config.encryption;
	if (key) return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), AI_IDENTIFIER_LABEL, 32));
	const connection = orm.em.getConnection();
	const fresh = { key: randomBytes(32).toString('base64') };
	// First start wins: a second instance starting at the same moment reads the row the first one wrote.
	await connection.execute(`insert into app_state (key, value, updated_at) values (?, ?, now()) on conflict (key) do nothing`, [
		AI_IDENTIFIER_STATE_KEY,
		JSON.stringify(fresh),
	]);
	const [row] = await connection.execute<{ value: { key?: unknown } }[]>(`select value from app_state where key = ?`, [AI_IDENTIFIER_STATE_KEY]);
	const stored = typeof row?.value.key === 'string' ? Buffer.from(row.value.key, 'base64') : undefined;
	if (stored?.length !== 32) throw new Error(`app_state ${AI_IDENTIFIER_STATE_KEY} is not a 32-byte key; delete the row to make a new one`);
	return stored;
}

/** The safety identifier of a Discord user: what every AI call passes as `user`. */
export function aiSafetyIdentifier(userId: string, key: Buffer = container.aiIdentifierKey): string {
	return safetyIdentifier(userId, key);
}

function containerDeps(): CompanionDeps {
	return { ai: container.ai, identifierKey: container.aiIdentifierKey, memory: { em: () => container.db.orm.em.fork() } };
}

/** Memory must never cost the person their reply: a database failure means no history, not no answer. */
async function history(deps: CompanionDeps, input: CompanionInput): Promise<ChatTurn[]> {
	if (!deps.memory || input.careful) return [];
	const turns = await recentTurns(deps.memory.em(), input.userId, input.channelId).catch(() => []);
	return turns.map(({ role, content }) => ({ role, content }));
}

async function remember(deps: CompanionDeps, input: CompanionInput, text: string, reply: string): Promise<void> {
	if (!deps.memory || input.careful) return;
	const em = deps.memory.em();
	const at = { userId: input.userId, channelId: input.channelId };
	try {
		await rememberTurn(em, { ...at, role: 'user', content: text });
		await rememberTurn(em, { ...at, role: 'assistant', content: reply });
	} catch {
		// Losing one turn of memory is harmless; the reply has been made.
	}
}

/** One AI reply (or a fallback). Never throws for AI failures; records nothing. */
export async function companionTurn(input: CompanionInput, deps: CompanionDeps = containerDeps()): Promise<CompanionTurn> {
	const text = input.text.trim();
	if (!text) return { reply: EMPTY_MENTION_REPLY, fromAi: false };
	if (answering.has(input.userId)) return { reply: BUSY_REPLY, fromAi: false };
	answering.add(input.userId);
	try {
		const turns: ChatTurn[] = [...(await history(deps, input)), { role: 'user', content: text.slice(0, 4_000) }];
		const raw = await deps.ai.complete(turns, {
			system: input.guildId ? MENTION_CONTEXT : DM_CONTEXT,
			careful: input.careful === true,
			user: safetyIdentifier(input.userId, deps.identifierKey),
			timeoutMs: deps.timeoutMs,
			maxTokens: 400,
		});
		const reply = sanitizeReply(raw);
		if (!reply) return { reply: FALLBACK_REPLY, fromAi: false };
		await remember(deps, input, text, reply);
		return { reply, fromAi: true };
	} catch (error) {
		if (error instanceof AiError) return { reply: fallbackFor(error.kind), fromAi: false };
		throw error;
	} finally {
		answering.delete(input.userId);
	}
}

/** Counts one answered companion turn (the `conversations` statistic). No content is stored. */
export async function recordConversation(em: EntityManager, input: Pick<CompanionInput, 'userId' | 'guildId'>): Promise<void> {
	em.create(Conversation, { source: 'discord', userId: input.userId, guildId: input.guildId });
	await em.flush();
}

/**
 * The companion reply for a DM or a mention, recorded as a conversation. A failure to record is logged, never shown:
 * the person still gets the reply.
 */
export async function companionReply(input: CompanionInput): Promise<string> {
	const { reply } = await companionTurn(input);
	await recordConversation(container.db.orm.em.fork(), input).catch((error: unknown) =>
		container.logger.warn(`Could not record a conversation: ${error instanceof Error ? error.name : 'error'}`),
	);
	return reply;
}
