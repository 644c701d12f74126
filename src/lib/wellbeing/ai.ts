import type { Ai } from '../ai/index.ts';
import { sanitizeReply } from '../ai/index.ts';
import { screen } from '../crisis/screen.ts';

/**
 * AI generation for the wellbeing and community commands, with a fixed fallback on every failure: no key, the
 * provider down or rate-limited, slower than `AI_DEADLINE_MS`, or an answer that does not parse or validate. The
 * commands never fail because of the AI (its limits and outages are not the person's problem). Haven's own system prompt always applies (the AI
 * client adds it); each task adds its own instructions after it.
 */

/** Past this the fixed fallback is used. Commands defer at 1.5 s, so the answer still arrives within Discord's limits. */
export const AI_DEADLINE_MS = 2_500;

export interface Generated<T> {
	value: T;
	/** False when `value` is the fixed fallback. */
	fromAi: boolean;
}

export interface GenerateRequest<T> {
	/** Task instructions (added after Haven's system prompt). */
	system: string;
	/** The user turn. */
	prompt: string;
	/** Turns the model's text into a value, or undefined when it is unusable. Must never throw (a throw is a fallback too). */
	parse(text: string): T | undefined;
	fallback(): T;
	/** The provider's safety identifier (hashed user id), optional. */
	user?: string;
	/** The crisis screen found risk in what the person wrote. */
	careful?: boolean;
	maxTokens?: number;
	timeoutMs?: number;
}

export async function generate<T>(ai: Ai, request: GenerateRequest<T>): Promise<Generated<T>> {
	if (!ai.configured) return { value: request.fallback(), fromAi: false };
	try {
		const text = await ai.complete([{ role: 'user', content: request.prompt }], {
			system: request.system,
			careful: request.careful === true,
			user: request.user,
			maxTokens: request.maxTokens ?? 400,
			timeoutMs: request.timeoutMs ?? AI_DEADLINE_MS,
		});
		const value = request.parse(text);
		if (value !== undefined) return { value, fromAi: true };
	} catch {
		// AiError (not configured, timeout, rate limited, failed) or a parse bug: the fallback below.
	}
	return { value: request.fallback(), fromAi: false };
}

/**
 * Content shown to a community must be kind and safe: no crisis language (the deterministic screen finds none), no
 * slurs or cruelty from a small list, no links. Conservative on purpose: a rejected answer only means the pool is used.
 */
const UNKIND =
	/\b(kill|killing|die|dying|dead|death|suicide|suicidal|self[- ]?harm|cutting|blood|gun|guns|weapon|murder|drunk|drugs?|sex|sexy|nude|hate|stupid|idiot|dumb|ugly|fat|loser|retard\w*|whore|slut|bitch|fuck\w*|shit\w*|damn|hell)\b|https?:\/\/|www\./i;

export function isKind(text: string): boolean {
	return !UNKIND.test(text) && screen(text).level === 'none';
}

/** Plain text from the model: sanitized (no numbers, no mentions), one block, within `max` characters, kind. */
export function parsePlain(text: string, { max, min = 2 }: { max: number; min?: number }): string | undefined {
	const cleaned = sanitizeReply(text.replace(/^["“]|["”]$/g, ''), 4_000).trim();
	if (cleaned.length < min || cleaned.length > max) return undefined;
	return isKind(cleaned) ? cleaned : undefined;
}

/**
 * The first JSON object in the model's text (code fences and chatter around it are tolerated), or undefined.
 * Never throws.
 */
export function extractJson(text: string): unknown {
	const unfenced = text.replace(/```(?:json)?/gi, '');
	const start = unfenced.indexOf('{');
	const end = unfenced.lastIndexOf('}');
	if (start < 0 || end <= start) return undefined;
	try {
		return JSON.parse(unfenced.slice(start, end + 1)) as unknown;
	} catch {
		return undefined;
	}
}

/** A short single-line string field of model JSON: trimmed, whitespace collapsed, within bounds, kind. */
export function textField(value: unknown, { min = 1, max }: { min?: number; max: number }): string | undefined {
	if (typeof value !== 'string') return undefined;
	const flat = sanitizeReply(value, 4_000).replace(/\s+/g, ' ').trim();
	if (flat.length < min || flat.length > max) return undefined;
	return isKind(flat) ? flat : undefined;
}

/** Uniform choice (injectable randomness for tests). */
export function pick<T>(items: readonly T[], random: () => number = Math.random): T {
	if (items.length === 0) throw new RangeError('pick from an empty list');
	return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;
}

/** `count` distinct items in random order. */
export function sample<T>(items: readonly T[], count: number, random: () => number = Math.random): T[] {
	const copy = [...items];
	for (let i = copy.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[copy[i], copy[j]] = [copy[j]!, copy[i]!];
	}
	return copy.slice(0, Math.max(0, count));
}
