import type { EntityManager } from '@mikro-orm/postgresql';
import { AppState } from '../db/index.ts';
import type { AiRuntime } from '../ai/index.ts';

/**
 * The AI switch the owners turn at run time (`/ai`, `haven ai`): AI features on or off, and the chat model, without a
 * restart. Kept in `app_state` under `AI_STATE_KEY`, read before each AI call with a short cache (`AI_STATE_CACHE_MS`):
 * a change made in this process applies to the next request, one made from the CLI within the cache time.
 *
 * While off, every AI call ends as `disabled` before reaching the provider: the companion and the wellbeing commands
 * use their fixed fallbacks, the moderation pass is skipped, `POST /v1/chat` answers 503; crisis resources are
 * deterministic and unaffected. No row means the defaults: on, with OPENAI_MODEL.
 */

export const AI_STATE_KEY = 'ai';
export const AI_STATE_CACHE_MS = 5_000;
const MODEL = /^[\w.:/-]{1,100}$/;

export interface AiState {
	enabled: boolean;
	/** Overrides OPENAI_MODEL; null for the configured one. */
	model: string | null;
	/** Who changed it last (an owner id; null from the CLI) and when; null while never changed. */
	updatedBy: string | null;
	updatedAt: string | null;
}

export const DEFAULT_AI_STATE: AiState = { enabled: true, model: null, updatedBy: null, updatedAt: null };

export function isValidModel(model: string): boolean {
	return MODEL.test(model);
}

function parseState(value: unknown, updatedAt: Date | undefined): AiState {
	const raw = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
	return {
		enabled: raw.enabled !== false,
		model: typeof raw.model === 'string' && isValidModel(raw.model) ? raw.model : null,
		updatedBy: typeof raw.updatedBy === 'string' ? raw.updatedBy : null,
		updatedAt: updatedAt?.toISOString() ?? null,
	};
}

export async function readAiState(em: EntityManager): Promise<AiState> {
	const row = await em.findOne(AppState, { key: AI_STATE_KEY });
	return row ? parseState(row.value, row.updatedAt) : { ...DEFAULT_AI_STATE };
}

export interface AiStateChange {
	enabled?: boolean;
	/** A model name, or null to go back to OPENAI_MODEL. */
	model?: string | null;
	by: string | null;
}

/** Saves a change and returns the new state. */
export async function changeAiState(em: EntityManager, change: AiStateChange): Promise<AiState> {
	if (typeof change.model === 'string' && !isValidModel(change.model))
		throw new Error('A model name is 1 to 100 letters, digits and . _ - : / characters');
	const current = await readAiState(em);
	const value = {
		enabled: change.enabled ?? current.enabled,
		model: change.model === undefined ? current.model : change.model,
		updatedBy: change.by,
	};
	await em.upsert(AppState, { key: AI_STATE_KEY, value, updatedAt: new Date() });
	return readAiState(em.fork());
}

export interface AiSwitch {
	/** The state for this request: cached for `ttlMs`, read from the database after that. Never throws. */
	current(): Promise<AiState>;
	/** The last state read, without waiting (for synchronous checks such as `ai.configured`). */
	peek(): AiState;
	/** What `createAi` reads before each call. */
	runtime(): Promise<AiRuntime>;
	/** A change made here: use it at once. */
	set(state: AiState): void;
}

export interface AiSwitchOptions {
	em: () => EntityManager;
	ttlMs?: number;
	now?: () => number;
	warn?: (message: string) => void;
}

export function createAiSwitch({ em, ttlMs = AI_STATE_CACHE_MS, now = Date.now, warn }: AiSwitchOptions): AiSwitch {
	let state: AiState = { ...DEFAULT_AI_STATE };
	let readAt = -Infinity;
	let pending: Promise<AiState> | undefined;
	let warned = false;

	const load = async (): Promise<AiState> => {
		try {
			state = await readAiState(em());
			warned = false;
		} catch {
			// The database is away (or not open yet): keep the last state read.
			if (!warned) warn?.('AI switch: could not read the AI state; using the last one read');
			warned = true;
		}
		readAt = now();
		return state;
	};

	const current = async () => {
		if (now() - readAt < ttlMs) return state;
		return (pending ??= load().finally(() => (pending = undefined)));
	};

	return {
		current,
		peek: () => {
			if (now() - readAt >= ttlMs) void current();
			return state;
		},
		runtime: async () => {
			const { enabled, model } = await current();
			return { enabled, model };
		},
		set(next) {
			state = next;
			readAt = now();
		},
	};
}
