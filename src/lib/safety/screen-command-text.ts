import type { EntityManager } from '@mikro-orm/postgresql';
import { renderCrisisReply } from '../crisis/resources.ts';
import { screen, screenRules, type Assessment } from '../crisis/screen.ts';
import { CrisisEvent } from '../db/index.ts';
import { getGuildSettings } from '../settings/guild-settings.ts';
import { getUserSettings, resourceCountry } from '../settings/user-settings.ts';

/**
 * Crisis screening of what a person writes into a wellbeing command (a /coping feeling, a check-in note, a ghost
 * letter). Safety comes first: text that screens as a possible crisis gets the deterministic, vetted resources privately and
 * first; the rest of the answer (and any AI text, told to be careful) comes after.
 *
 * The person's screening opt-out (/preferences) is respected, as for their DMs and mentions. The event is counted
 * like `/crisis` counts it (the `crisisEvents` statistic) with no user id and no text, and never alerts moderators:
 * these commands are private.
 */

export interface ScreenedText {
	assessment: Assessment;
	/** The resources message (within Discord's 2,000 characters). */
	resources: string;
}

export interface ScreenDeps {
	em(): EntityManager;
	warn(message: string): void;
}

const SETTINGS_TIMEOUT_MS = 1_200;

async function bounded<T>(work: Promise<T>, fallback: T): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), SETTINGS_TIMEOUT_MS)));
	try {
		return await Promise.race([work.catch(() => fallback), late]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * Screens `text`; null when there is nothing to screen, the person opted out, or the text screens as no risk.
 * `rulesOnly` is for text that names warning signs and means on purpose (a safety plan: "not sleeping, pulling away",
 * "lock my razors in my sister's car"): the learned model, which knows how people describe a crisis, reads those as
 * one, while the rules still catch a crisis written there ("I want to die tonight").
 */
export async function screenPrivately(
	text: string | null | undefined,
	who: { userId: string; guildId: string | null },
	deps: ScreenDeps,
	{ rulesOnly = false }: { rulesOnly?: boolean } = {},
): Promise<ScreenedText | null> {
	const trimmed = text?.trim();
	if (!trimmed) return null;
	const assessment = rulesOnly ? screenRules(trimmed) : screen(trimmed);
	if (assessment.level === 'none') return null;
	// Settings never hold the resources back long: when the database is slow, screening stays on (the safe side).
	const [user, guild] = await Promise.all([
		bounded(getUserSettings(deps.em(), who.userId), { country: null, screeningOptOut: false }),
		who.guildId ? bounded(getGuildSettings(deps.em(), who.guildId), undefined) : undefined,
	]);
	if (user.screeningOptOut) return null;
	return { assessment, resources: renderCrisisReply(assessment, resourceCountry(user, guild)) };
}

/** Counts the shared resources (no user id, no text). A failure is logged, never shown. */
export async function recordScreened(screened: ScreenedText, guildId: string | null, deps: ScreenDeps): Promise<void> {
	try {
		const em = deps.em();
		em.create(CrisisEvent, {
			guildId,
			userId: null,
			level: screened.assessment.level,
			categories: [...screened.assessment.categories],
			trigger: 'command',
			details: null,
		});
		await em.flush();
	} catch (error) {
		deps.warn(`Wellbeing: could not record a crisis event (${error instanceof Error ? error.name : 'error'})`);
	}
}
