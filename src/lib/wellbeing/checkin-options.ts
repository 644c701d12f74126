import { HISTORY_DEFAULT, HISTORY_MAX, isMood, NOTE_MAX_LENGTH } from './checkins.ts';
import type { ReminderChoice } from './reminder-store.ts';
import { DEFAULT_QUIET, DEFAULT_TIMEZONE, isReminderInterval, validTimeZone, type QuietHours, type ReminderSettingsView } from './reminders.ts';

/**
 * The options of `/checkin`, checked (pure). Discord already enforces the choices and ranges it was told about; these
 * checks repeat them, so a stale registration or a forged interaction gets a plain answer instead of a bad row.
 */

export interface CheckInOptions {
	mood: string;
	intensity: number;
	note: string | null;
}

/** `/checkin log`: a mood of the list, an intensity from 1 to 5; the note trimmed and cut to its limit (empty: none). */
export function checkInFromOptions(options: CheckInOptions): CheckInOptions | { problem: string } {
	if (!isMood(options.mood) || options.intensity < 1 || options.intensity > 5) {
		return { problem: 'Please pick a mood from the list and an intensity from 1 to 5.' };
	}
	return { mood: options.mood, intensity: options.intensity, note: options.note?.trim().slice(0, NOTE_MAX_LENGTH) || null };
}

/** `/checkin history`: how many check-ins to show (the default when not given, never outside 1 to the maximum). */
export function historyCount(count: number | null): number {
	return Math.min(HISTORY_MAX, Math.max(1, count ?? HISTORY_DEFAULT));
}

export interface ReminderOptions {
	every: number;
	/** As typed: validated here. */
	timezone: string | null;
	quietStart: number | null;
	quietEnd: number | null;
}

/** A valid `/checkin reminders set`: null timezone and `keep` quiet hours mean "as before" (see `reminderChoice`). */
export interface ReminderRequest {
	intervalMinutes: number;
	timezone: string | null;
	/** null: no quiet hours (start and end given equal). */
	quiet: QuietHours | null | 'keep';
}

export function reminderFromOptions(options: ReminderOptions): ReminderRequest | { problem: string } {
	const { every, timezone, quietStart, quietEnd } = options;
	if (!isReminderInterval(every)) return { problem: 'Please choose how often from the list.' };
	if ((quietStart === null) !== (quietEnd === null)) {
		return { problem: 'Please give both `quiet_start` and `quiet_end` (or neither, to keep your quiet hours as they are).' };
	}
	if ([quietStart, quietEnd].some((hour) => hour !== null && (hour < 0 || hour > 23)))
		return { problem: 'Quiet hours are whole hours from 0 to 23.' };
	const zone = timezone === null ? null : validTimeZone(timezone);
	if (timezone !== null && zone === null) {
		return {
			problem: `I don't know the timezone \`${timezone.replace(/`/g, "'").slice(0, 64)}\`. Use a name like \`Europe/Paris\`, \`America/New_York\` or \`UTC\` (the list suggests them as you type).`,
		};
	}
	const quiet = quietStart === null || quietEnd === null ? 'keep' : quietStart === quietEnd ? null : { start: quietStart, end: quietEnd };
	return { intervalMinutes: every, timezone: zone, quiet };
}

/** The reminder to save: what was not given stays as it was, or takes the defaults (UTC, 22:00 to 08:00) the first time. */
export function reminderChoice(request: ReminderRequest, current: ReminderSettingsView | null): ReminderChoice {
	return {
		intervalMinutes: request.intervalMinutes,
		timezone: request.timezone ?? current?.timezone ?? DEFAULT_TIMEZONE,
		quiet: request.quiet !== 'keep' ? request.quiet : current ? current.quiet : { ...DEFAULT_QUIET },
	};
}
