import { PermissionFlagsBits } from 'discord.js';
import { levelRank, maxLevel, type Assessment, type CrisisCategory, type CrisisLevel } from '../crisis/screen.ts';

/**
 * The safety system's decisions, as pure functions: what a member's
 * worry counts as, when an alert is a duplicate, who may answer an alert, what is kept. No I/O.
 */

/** Moderator alerts about one person in one server: at most one per this window, unless the level rises. */
export const ALERT_DEDUPE_WINDOW_MS = 30 * 60_000;
/** The author of a checked-in message is offered resources at most once per this window and server. */
export const AUTHOR_OFFER_WINDOW_MS = 24 * 60 * 60_000;
/** The moderation second opinion may hold a reply back at most this long; past it, it changes nothing. */
export const MODERATION_TIMEOUT_MS = 1_500;
/** Reading settings may hold crisis resources back at most this long; past it, defaults apply. */
export const SETTINGS_TIMEOUT_MS = 1_200;
/** The most of a message kept (encrypted) with a crisis event, and only in servers that turned alerts on. */
export const DETAILS_MAX_CHARS = 280;

export const NO_RISK: Assessment = Object.freeze({
	level: 'none',
	categories: [],
	thirdParty: false,
	language: [],
	evidence: [],
}) as unknown as Assessment;

/** At least `floor`, with `extra` categories added (kept in the screen's order, no duplicates). */
export function atLeast(assessment: Assessment, floor: Exclude<CrisisLevel, 'none'>, extra: CrisisCategory[] = []): Assessment {
	const categories = [...assessment.categories];
	for (const category of extra) if (!categories.includes(category)) categories.push(category);
	return { ...assessment, level: maxLevel(assessment.level, floor), categories };
}

/**
 * A member pressing "Check in on this message" is worry about someone else, which the screen's own rubric rates as
 * concern: the event is at least concern, marked third_party, whatever the message's own words screen as.
 */
export function worryAbout(messageAssessment: Assessment): Assessment {
	return { ...atLeast(messageAssessment, 'concern', ['third_party']), thirdParty: true };
}

/**
 * Another alert about the same person in the window is a duplicate unless its level is higher than every alert
 * already posted in the window (an escalation, e.g. concern then imminent, is always posted).
 */
export function alertDecision(previousLevels: readonly string[], level: CrisisLevel): 'alert' | 'duplicate' {
	const known = previousLevels.filter((l): l is CrisisLevel => ['none', 'concern', 'high', 'imminent'].includes(l));
	if (known.length === 0) return 'alert';
	const highest = known.reduce((a, b) => maxLevel(a, b));
	return levelRank(level) > levelRank(highest) ? 'alert' : 'duplicate';
}

export interface PermissionsLike {
	has(permission: bigint, checkAdmin?: boolean): boolean;
}

/**
 * Who may press Acknowledge / Resolved on an alert: a member who can see the alert channel (the button's channel
 * permissions say so) and who is on the server's support side: Manage Server, Manage Messages, or the configured
 * alert role. Seeing the channel alone is not enough, so an alert channel that was opened to everyone by mistake does
 * not let every member close alerts.
 */
export function canRespondToAlert(permissions: PermissionsLike | null, memberRoles: readonly string[], alertRoleId: string | null): boolean {
	if (!permissions?.has(PermissionFlagsBits.ViewChannel)) return false;
	if (permissions.has(PermissionFlagsBits.ManageGuild) || permissions.has(PermissionFlagsBits.ManageMessages)) return true;
	return alertRoleId !== null && memberRoles.includes(alertRoleId);
}

/** What is kept of the message with the event: a short excerpt when alerts are on (then encrypted), else nothing. */
export function eventDetails(text: string | null | undefined, alertsOn: boolean): string | null {
	if (!alertsOn || !text) return null;
	const flat = text.replace(/\s+/g, ' ').trim();
	if (!flat) return null;
	return flat.length > DETAILS_MAX_CHARS ? `${flat.slice(0, DETAILS_MAX_CHARS - 1).trimEnd()}…` : flat;
}

export function jumpUrl(guildId: string, channelId: string, messageId: string): string {
	return `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;
}

/** Removes the bot's own mention(s) from a message's text. */
export function stripBotMention(content: string, botId: string): string {
	return content.replaceAll(`<@${botId}>`, ' ').replaceAll(`<@!${botId}>`, ' ').replace(/\s+/g, ' ').trim();
}

/** Alerts need both the switch and a channel. */
export function alertsConfigured(settings: { alertsEnabled: boolean; alertChannelId: string | null }): boolean {
	return settings.alertsEnabled && settings.alertChannelId !== null;
}

/** Resolves with `work`'s value, or `fallback` when it fails or takes longer than `ms` (the timer never outlives it). */
export async function within<T>(
	work: Promise<T>,
	ms: number,
	fallback: T,
	onFallback?: (reason: 'timeout' | 'error', error?: unknown) => void,
): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<{ late: true }>((resolve) => (timer = setTimeout(() => resolve({ late: true }), ms)));
	try {
		const result = await Promise.race([work.then((value) => ({ value })), timeout]);
		if ('late' in result) {
			work.catch(() => undefined);
			onFallback?.('timeout');
			return fallback;
		}
		return result.value;
	} catch (error) {
		onFallback?.('error', error);
		return fallback;
	} finally {
		clearTimeout(timer);
	}
}
