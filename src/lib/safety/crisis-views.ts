import { ButtonStyle, ComponentType, type APIButtonComponentWithCustomId, type APIEmbed } from 'discord.js';
import { renderCrisisReply, renderResourcesOnly } from '../crisis/resources.ts';
import type { Assessment, CrisisLevel } from '../crisis/screen.ts';
import type { View } from '../discord/reply.ts';

/**
 * What the safety system says, as pure functions of their inputs. Every hotline and phone number comes from the
 * crisis resources directory (src/lib/crisis/resources.ts); nothing here quotes what a person wrote.
 */

const DISCORD_MAX = 2_000;
const ALERT_COLOR = { open: 0xe67e22, acknowledged: 0x3498db, resolved: 0x2ecc71 } as const;

export type AlertLevel = Exclude<CrisisLevel, 'none'>;
export type AlertTrigger = 'mention' | 'context_menu';

// -------------------------------------------------------------------------------------------------------------------
// Replies to the person concerned and to members

/**
 * `/crisis`: the resources for the country; when the person added words that screen as a possible crisis, the
 * reply fitted to them (imminent risk says to call emergency services now; worry about someone else gets guidance).
 */
export function renderCrisisCommandReply(assessment: Assessment | null, country: string | null): string {
	return assessment && assessment.level !== 'none' ? renderCrisisReply(assessment, country) : renderResourcesOnly(country);
}

/**
 * The reply to the member who used "Check in on this message": how to help, the resources (they may call for the
 * other person or for themselves), and whether the moderators are told. Never names anyone.
 */
export function renderCheckInReply(worry: Assessment, country: string | null, moderatorsTold: boolean): string {
	const reply = renderCrisisReply(worry, country, { audience: 'third_party' });
	const notes = ['Nobody is told that you used this.'];
	if (moderatorsTold) notes.push("This server's moderators have been let know privately, without your name.");
	return fit([reply, `_${notes.join(' ')}_`]);
}

export const BOT_MESSAGE_CHECK_IN =
	"That message was written by a bot, so there is nobody to check in on. If you're worried about someone, use this on their message, or use `/crisis` to see support resources.";

/** A mention that screened as a possible crisis: the resources went to their DMs. Pings nobody. */
export function renderSentPrivately(userId: string): string {
	return `<@${userId}> I've sent you a direct message.`;
}

/**
 * The resources could not be sent privately (their DMs are closed). Public, so it never quotes them or says what
 * was detected: it points to `/crisis`, whose answer only they can see.
 */
export function renderDmsClosed(userId: string): string {
	return (
		`<@${userId}> I wanted to send you something privately, but I can't send you direct messages. ` +
		'You can use `/crisis` here at any time to see support resources that only you can see. ' +
		"If you're in danger right now, please contact your local emergency number."
	);
}

/**
 * The DM the author of a checked-in message may get (when the server turned the offer on): warm, short, never says
 * who asked or quotes the message, and asks nothing of them. Split into messages of at most 2,000 characters.
 */
export function renderAuthorOffer(country: string | null): string[] {
	const intro =
		"Hi, this is Haven, the wellbeing bot in one of your servers. Someone there read something you wrote and wanted to make sure you're okay. " +
		"Nobody is in trouble and you don't need to reply. If things are hard right now, you don't have to go through it alone:";
	return split([intro, renderResourcesOnly(country), 'You can also talk to me here any time, or use `/crisis` for these resources.']);
}

// -------------------------------------------------------------------------------------------------------------------
// Moderator alerts

export const ALERT_PREFIX = 'crisis-alert';
export const ALERT_ACTIONS = ['ack', 'resolve'] as const;
export type AlertAction = (typeof ALERT_ACTIONS)[number];

export function alertButtonId(action: AlertAction, eventId: number): string {
	return `${ALERT_PREFIX}:${action}:${eventId}`;
}

export function parseAlertButton(customId: string): { action: AlertAction; eventId: number } | null {
	const match = /^crisis-alert:(ack|resolve):(\d{1,12})$/.exec(customId);
	return match ? { action: match[1] as AlertAction, eventId: Number(match[2]) } : null;
}

const LEVEL_WORDS: Record<AlertLevel, string> = {
	concern: '**Concern**: signs of distress, or someone worried about them',
	high: '**High**: they may be thinking about suicide or self-harm',
	imminent: '**Imminent**: they may be in immediate danger',
};

const TRIGGER_WORDS: Record<AlertTrigger, string> = {
	mention: 'the message mentioned Haven. Its author was sent support resources privately.',
	context_menu: 'a member used "Check in on this message" on it (Haven does not say who) and was given guidance on how to help.',
};

export interface AlertInput {
	eventId: number;
	level: AlertLevel;
	trigger: AlertTrigger;
	jumpUrl: string;
	roleId: string | null;
}

export interface AlertState {
	acknowledgedBy: string | null;
	acknowledgedAt: Date | null;
	resolvedBy: string | null;
	resolvedAt: Date | null;
}

export const OPEN_ALERT: AlertState = Object.freeze({ acknowledgedBy: null, acknowledgedAt: null, resolvedBy: null, resolvedAt: null });

const when = (date: Date | null) => (date ? ` <t:${Math.floor(date.getTime() / 1000)}:R>` : '');

/** The status part of an alert (embed and buttons): what a button press edits, leaving the text and its ping alone. */
export function renderAlertStatus(eventId: number, state: AlertState): Required<Pick<View, 'embeds' | 'components'>> {
	const lines: string[] = [];
	let color: number = ALERT_COLOR.open;
	if (state.resolvedBy) {
		color = ALERT_COLOR.resolved;
		lines.push(`**Resolved** by <@${state.resolvedBy}>${when(state.resolvedAt)}.`);
		if (state.acknowledgedBy && state.acknowledgedBy !== state.resolvedBy)
			lines.push(`Acknowledged by <@${state.acknowledgedBy}>${when(state.acknowledgedAt)}.`);
	} else if (state.acknowledgedBy) {
		color = ALERT_COLOR.acknowledged;
		lines.push(`**Acknowledged** by <@${state.acknowledgedBy}>${when(state.acknowledgedAt)}. Press Resolved once they have been looked after.`);
	} else {
		lines.push('**Open**: nobody has acknowledged this alert yet.');
	}
	const embed: APIEmbed = { color, description: lines.join('\n'), footer: { text: `Alert ${eventId}` } };
	const button = (
		action: AlertAction,
		label: string,
		style: ButtonStyle.Primary | ButtonStyle.Success,
		disabled: boolean,
	): APIButtonComponentWithCustomId => ({
		type: ComponentType.Button,
		custom_id: alertButtonId(action, eventId),
		label,
		style,
		disabled,
	});
	return {
		embeds: [embed],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					button('ack', 'Acknowledge', ButtonStyle.Primary, state.acknowledgedBy !== null || state.resolvedBy !== null),
					button('resolve', 'Resolved', ButtonStyle.Success, state.resolvedBy !== null),
				],
			},
		],
	};
}

/**
 * A moderator alert: the level, a link to the message and how it came up; the optional role ping is the only
 * mention (the poster sets allowed_mentions to that role). The least needed: no quote, no name, no reporter.
 */
export function renderAlert(input: AlertInput, state: AlertState = OPEN_ALERT): View & { content: string } {
	const lines = [
		...(input.roleId ? [`<@&${input.roleId}>`] : []),
		`**Haven wellbeing alert** · level ${LEVEL_WORDS[input.level]}.`,
		`Message: ${input.jumpUrl}`,
		`How it came up: ${TRIGGER_WORDS[input.trigger]}`,
	];
	if (input.level === 'imminent') {
		lines.push(
			'If you know them, please reach out now. If you believe their life is in danger and know where they are, contact emergency services.',
		);
	}
	lines.push('Please check in with care, privately. Nobody is punished for talking about suicide or self-harm.');
	return { content: lines.join('\n'), ...renderAlertStatus(input.eventId, state) };
}

/** Said (privately) to someone who pressed an alert button without being allowed to. */
export const ALERT_NOT_ALLOWED =
	'Only members who can see the alert channel and have Manage Server, Manage Messages or the alert role can acknowledge or resolve alerts.';

export function renderAlertAlready(action: AlertAction, state: AlertState): string {
	if (action === 'resolve' || state.resolvedBy) return `This alert was already resolved by <@${state.resolvedBy}>${when(state.resolvedAt)}.`;
	return `This alert was already acknowledged by <@${state.acknowledgedBy}>${when(state.acknowledgedAt)}.`;
}

// -------------------------------------------------------------------------------------------------------------------
// Helpers

/** Joins parts with blank lines, shortening the last parts' text to fit one Discord message. */
function fit(parts: string[]): string {
	const text = parts.filter(Boolean).join('\n\n');
	return text.length <= DISCORD_MAX ? text : `${text.slice(0, DISCORD_MAX - 1)}…`;
}

/** Joins parts with blank lines into as few messages of at most 2,000 characters as possible. */
function split(parts: string[]): string[] {
	const messages: string[] = [];
	let current = '';
	for (const part of parts.filter(Boolean)) {
		const next = current ? `${current}\n\n${part}` : part;
		if (next.length <= DISCORD_MAX) current = next;
		else {
			if (current) messages.push(current);
			current = part.length <= DISCORD_MAX ? part : `${part.slice(0, DISCORD_MAX - 1)}…`;
		}
	}
	if (current) messages.push(current);
	return messages;
}
