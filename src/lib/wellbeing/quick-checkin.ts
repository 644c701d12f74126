import type { EntityManager } from '@mikro-orm/postgresql';
import { ButtonStyle, ComponentType } from 'discord.js';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { isMood, MOODS, moodOf } from './checkins.ts';
import { getReminder } from './reminder-store.ts';
import { outsideQuietHours } from './reminders.ts';

/**
 * The buttons under a reminder DM: "Check in now" records a check-in in two clicks (a mood from a select, then the
 * intensity), and "Snooze 1 hour" moves the next reminder an hour on (out of the quiet hours). Whoever clicks is the
 * DM's recipient, so the check-in is theirs.
 */

export const QUICK_START = 'checkin-quick:start';
export const QUICK_MOOD = 'checkin-quick:mood';
export const SNOOZE_BUTTON = 'checkin-reminders:snooze';
export const SNOOZE_MINUTES = 60;

export const intensityButtonId = (mood: string, intensity: number) => `checkin-quick:intensity:${mood}:${intensity}`;

export function parseIntensityButton(customId: string): { mood: string; intensity: number } | null {
	const match = /^checkin-quick:intensity:([a-z]{1,32}):([1-5])$/.exec(customId);
	if (!match || !isMood(match[1])) return null;
	return { mood: match[1]!, intensity: Number(match[2]) };
}

export function renderMoodPicker(): View {
	return {
		content: '',
		embeds: [{ title: 'Check in', color: COLOR, description: 'How are you feeling right now? Pick the closest word.' }],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.StringSelect,
						custom_id: QUICK_MOOD,
						placeholder: 'Your mood',
						options: MOODS.map((mood) => ({ label: mood.label, value: mood.value, emoji: { name: mood.emoji } })),
					},
				],
			},
		],
	};
}

export function renderIntensityPicker(mood: string): View {
	const m = moodOf(mood);
	return {
		content: '',
		embeds: [{ title: 'Check in', color: COLOR, description: `${m.emoji} **${m.label}**. How strong is it? 1 (a little) to 5 (very).` }],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [1, 2, 3, 4, 5].map((n) => ({
					type: ComponentType.Button as const,
					style: ButtonStyle.Primary as const,
					label: String(n),
					custom_id: intensityButtonId(mood, n),
				})),
			},
		],
	};
}

/** Moves the next reminder SNOOZE_MINUTES from `now` (out of quiet hours); null when reminders are off. */
export async function snoozeReminder(em: EntityManager, userId: string, now: Date): Promise<Date | null> {
	const current = await getReminder(em, userId);
	if (!current?.enabled) return null;
	const due = outsideQuietHours(new Date(now.getTime() + SNOOZE_MINUTES * 60_000), current.timezone, current.quiet);
	await em
		.getConnection()
		.execute('update check_in_reminders set next_due_at = ?, updated_at = ? where user_id = ? and enabled', [due, now, userId], 'run');
	return due;
}
