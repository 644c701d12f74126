import { ButtonStyle, ComponentType, type APIEmbed } from 'discord.js';
import { renderPrivacy, type Urls } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { discordTime, plural } from '../discord/text.ts';
import type { DeletionReport, UserDataExport } from './user-data.ts';
import { retentionTable, type RetentionSettings } from './retention.ts';

/** Views of `/privacy` and its delete confirmation: pure functions (tested without Discord). */

/** How long the "Delete everything" button works. */
export const DELETE_CONFIRM_MS = 2 * 60_000;
export const DELETE_PREFIX = 'privacy-delete';

export interface DeleteButton {
	action: 'confirm' | 'cancel';
	userId: string;
	expiresAt: number;
}

export function deleteButtonId(button: DeleteButton): string {
	return `${DELETE_PREFIX}:${button.action}:${button.userId}:${button.expiresAt}`;
}

export function parseDeleteButton(customId: string): DeleteButton | null {
	const match = /^privacy-delete:(confirm|cancel):(\d{17,20}):(\d{1,15})$/.exec(customId);
	if (!match) return null;
	return { action: match[1] as DeleteButton['action'], userId: match[2]!, expiresAt: Number(match[3]) };
}

/** `/privacy` and `/privacy info`: what is kept (the info text everyone already knew), for how long, and the controls. */
export function renderPrivacyInfo(urls: Urls, retention: RetentionSettings, memoryOn: boolean): View {
	const base = renderPrivacy(urls);
	const [first, ...rest] = base.embeds ?? [];
	const table = retentionTable(retention)
		.map((row) => `- ${row.data}: ${row.kept}, then ${row.then}`)
		.join('\n');
	const embed: APIEmbed = {
		...first,
		fields: [
			{ name: 'How long data is kept', value: table },
			{
				name: 'Your controls',
				value: [
					'`/privacy export`: all your data as a file, only for you.',
					'`/privacy delete`: delete everything about you (asks to confirm).',
					`\`/privacy memory on|off|clear\`: conversation memory is **${memoryOn ? 'on' : 'off'}** for you.`,
					'`/preferences`: your country for crisis lines and crisis screening.',
				].join('\n'),
			},
		],
	};
	return { ...base, embeds: [embed, ...rest] };
}

export function renderExportReady(data: UserDataExport): string {
	const parts = [
		plural(data.checkIns.length, 'check-in'),
		plural(data.ghostLetters.length, 'ghost letter'),
		`${plural(data.feedback.length, 'feedback message')}`,
		plural(data.conversationMemory.length, 'remembered turn'),
		plural(data.crisisEvents.length, 'crisis event'),
	];
	return `Here is everything Haven stores about you (${parts.join(', ')}), decrypted. Only you can see this message; keep the file somewhere safe.`;
}

export const EXPORT_TOO_LARGE = 'Your data is larger than Discord lets me attach here. Please ask the people who run this Haven for a copy.';

export function renderDeleteConfirm(userId: string, now: Date): View {
	const expiresAt = now.getTime() + DELETE_CONFIRM_MS;
	return {
		embeds: [
			{
				title: 'Delete everything Haven knows about you?',
				color: 0xd9534f,
				description: [
					'This deletes, for good: your check-ins and notes, ghost letters, feedback (testimonials included), conversation memory, reminders, game votes and preferences.',
					'Crisis events about you and conversation counts stay only as anonymous counts, without your id or any words.',
					'Public totals (like the number of check-ins ever made) do not go down.',
					'Messages already sent on Discord (by you or Haven) are not touched.',
					'',
					`This button works until ${discordTime(new Date(expiresAt).toISOString(), 'R')}. Consider \`/privacy export\` first.`,
				].join('\n'),
			},
		],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{
						type: ComponentType.Button,
						style: ButtonStyle.Danger,
						label: 'Delete everything',
						custom_id: deleteButtonId({ action: 'confirm', userId, expiresAt }),
					},
					{
						type: ComponentType.Button,
						style: ButtonStyle.Secondary,
						label: 'Cancel',
						custom_id: deleteButtonId({ action: 'cancel', userId, expiresAt }),
					},
				],
			},
		],
	};
}

export const DELETE_NOT_YOURS = 'Only the person who asked to delete their data can confirm it.';

export function renderDeleteExpired(): View {
	return {
		content: 'This confirmation has expired, so nothing was deleted. Run `/privacy delete` again if you still want to.',
		embeds: [],
		components: [],
	};
}

export function renderDeleteCancelled(): View {
	return { content: 'Cancelled: nothing was deleted.', embeds: [], components: [] };
}

export function renderDeleteDone(report: DeletionReport): View {
	const deleted = report.steps.filter((step) => step.action === 'deleted').reduce((sum, step) => sum + step.rows, 0);
	const anonymised = report.steps.filter((step) => step.action === 'anonymised').reduce((sum, step) => sum + step.rows, 0);
	return {
		content: [
			`Done. Haven deleted ${plural(deleted, 'record')} about you${anonymised ? ` and removed your id from ${plural(anonymised, 'anonymous count')}` : ''}.`,
			'Nothing Haven stores names you any more. If you talk to Haven again, it starts fresh (conversation memory is on by default; `/privacy memory off` turns it off).',
		].join('\n'),
		embeds: [],
		components: [],
	};
}

export function renderMemory(action: 'on' | 'off' | 'clear', result: { enabled: boolean; cleared: number }): View {
	const cleared = result.cleared ? ` ${plural(result.cleared, 'remembered message')} forgotten.` : '';
	switch (action) {
		case 'on':
			return {
				content:
					'Conversation memory is **on**: Haven remembers your last few messages in a conversation for up to a day, encrypted, so its replies can follow along.',
			};
		case 'off':
			return { content: `Conversation memory is **off**: Haven won't remember anything you say.${cleared || ' Nothing was stored.'}` };
		case 'clear':
			return {
				content: `Conversation memory cleared.${cleared || ' There was nothing to forget.'} It is still **${result.enabled ? 'on' : 'off'}**.`,
			};
	}
}
