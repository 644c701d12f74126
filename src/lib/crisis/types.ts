/** Shared types of the crisis screen. The rubric lives in screen.ts. */

export type CrisisLevel = 'none' | 'concern' | 'high' | 'imminent';

export type CrisisCategory =
	| 'suicidal_ideation'
	| 'self_harm'
	| 'plan_or_means'
	| 'time_bound_intent'
	| 'attempt'
	| 'goodbye'
	| 'indirect_ideation'
	| 'distress'
	| 'third_party'
	| 'help_seeking';

export interface Assessment {
	level: CrisisLevel;
	/** What was recognised, in the order of CATEGORIES. May hold `help_seeking` even when the level is `none`. */
	categories: CrisisCategory[];
	/** True when the message is worry about someone else who may be at risk. */
	thirdParty: boolean;
	/** Languages whose lexicon produced the signals (ISO 639-1), sorted. */
	language: string[];
	/** Phrase ids (never the user's words): `en.kill_myself`, `en.kill_myself!negated` (dropped), `en.kms~joke` (lowered). */
	evidence: string[];
}

export const LEVELS: readonly CrisisLevel[] = Object.freeze(['none', 'concern', 'high', 'imminent'] as const);

export const CATEGORIES: readonly CrisisCategory[] = Object.freeze([
	'suicidal_ideation',
	'self_harm',
	'plan_or_means',
	'time_bound_intent',
	'attempt',
	'goodbye',
	'indirect_ideation',
	'distress',
	'third_party',
	'help_seeking',
] as const);

export function levelRank(level: CrisisLevel): number {
	const rank = LEVELS.indexOf(level);
	if (rank < 0) throw new TypeError(`unknown crisis level: ${String(level)}`);
	return rank;
}

export function maxLevel(a: CrisisLevel, b: CrisisLevel): CrisisLevel {
	return levelRank(a) >= levelRank(b) ? a : b;
}

export function isCrisisLevel(value: unknown): value is CrisisLevel {
	return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}
