import { PermissionFlagsBits, type APIEmbed } from 'discord.js';
import { INTERNATIONAL, resourcesFor } from '../crisis/resources.ts';
import type { View } from '../discord/reply.ts';
import { FEATURE_LABELS, FEATURES, type GuildSettings } from './guild-settings.ts';
import type { UserSettings } from './user-settings.ts';

/** Views and checks of `/guildsettings` and `/preferences`: pure functions (permissions come in as bitfields). */

const COLOR = 0x5fb3a1;

function countryName(code: string | null): string {
	const r = resourcesFor(code);
	return r.code === INTERNATIONAL ? 'Worldwide directory (no country chosen)' : `${r.name} (${r.code})`;
}

const onOff = (value: boolean) => (value ? 'on' : 'off');

export function renderGuildSettings(settings: GuildSettings, notices: readonly string[] = []): View {
	const alerts = settings.alertsEnabled
		? settings.alertChannelId
			? `**On**, in <#${settings.alertChannelId}>${settings.alertRoleId ? `, pinging <@&${settings.alertRoleId}>` : ', no role pinged'}` +
				(settings.alertEscalateMinutes
					? `; a high or imminent alert nobody acknowledged within ${settings.alertEscalateMinutes} minutes is raised once more`
					: '; unacknowledged alerts are not raised again')
			: '**On**, but no channel is set: nothing is posted until one is'
		: `**Off**${settings.alertChannelId ? ` (channel kept: <#${settings.alertChannelId}>)` : ''}`;
	const embed: APIEmbed = {
		title: 'Haven settings for this server',
		color: COLOR,
		fields: [
			{ name: 'Crisis alerts to moderators', value: alerts },
			{ name: 'Country for crisis resources', value: `${countryName(settings.country)}. Members can choose their own with /preferences.` },
			{
				name: 'Offer resources to the author of a checked-in message',
				value: `**${onOff(settings.offerResourcesToAuthor)}**: ${settings.offerResourcesToAuthor ? 'when their own words screen as a possible crisis, Haven DMs them resources (never saying who asked), at most once a day.' : 'only the member who asked gets guidance.'}`,
			},
			{ name: 'Check-in channel', value: settings.checkinChannelId ? `<#${settings.checkinChannelId}>` : 'not set' },
			{ name: 'Features', value: FEATURES.map((feature) => `${FEATURE_LABELS[feature]}: **${onOff(settings.features[feature])}**`).join('\n') },
		],
		footer: { text: 'Changes apply at once. Nobody is ever muted, kicked or banned by Haven for writing about self-harm.' },
	};
	return { content: notices.join('\n') || undefined, embeds: [embed] };
}

export interface ChannelCheckInput {
	/** The channel exists in this server and can hold messages. */
	isTextChannel: boolean;
	/** Haven's permissions in it. */
	botPermissions: bigint;
	/** Whether @everyone can see it. */
	everyoneCanView: boolean;
	purpose: 'alerts' | 'checkins';
}

const PERMISSION_NAMES: Array<[bigint, string]> = [
	[PermissionFlagsBits.ViewChannel, 'View Channel'],
	[PermissionFlagsBits.SendMessages, 'Send Messages'],
	[PermissionFlagsBits.EmbedLinks, 'Embed Links'],
];

/** Can Haven use this channel? `problem` refuses the change; `warnings` are shown with the saved settings. */
export function checkChannel(input: ChannelCheckInput): { problem?: string; warnings: string[] } {
	if (!input.isTextChannel) return { problem: 'Please choose a text channel of this server.', warnings: [] };
	const needed = input.purpose === 'alerts' ? PERMISSION_NAMES : PERMISSION_NAMES.slice(0, 2);
	const missing = needed.filter(([bit]) => (input.botPermissions & bit) !== bit).map(([, name]) => name);
	if (missing.length) {
		return {
			problem: `Haven can't post there: it needs ${missing.join(', ')} in that channel. Give it those permissions, or choose another channel.`,
			warnings: [],
		};
	}
	const warnings =
		input.purpose === 'alerts' && input.everyoneCanView
			? [
					'Note: everyone in the server can see that channel. Alerts are about people who may be struggling: a channel only your moderators can see is better.',
				]
			: [];
	return { warnings };
}

export interface RoleCheckInput {
	isEveryone: boolean;
	managed: boolean;
	mentionable: boolean;
	botCanMentionAll: boolean;
}

export function checkAlertRole(input: RoleCheckInput): { problem?: string; warnings: string[] } {
	if (input.isEveryone) return { problem: "@everyone can't be the alert role: choose the role of the people who look after alerts.", warnings: [] };
	if (input.managed) return { problem: 'That role belongs to a bot or an integration: choose a role your moderators have.', warnings: [] };
	if (!input.mentionable && !input.botCanMentionAll) {
		return {
			warnings: [
				"Note: that role can't be mentioned by Haven (it is not mentionable and Haven lacks Mention All Roles), so alerts will name it without pinging it.",
			],
		};
	}
	return { warnings: [] };
}

export function renderPreferences(settings: UserSettings, notices: readonly string[] = []): View {
	const embed: APIEmbed = {
		title: 'Your Haven preferences',
		color: COLOR,
		fields: [
			{
				name: 'Country for crisis resources',
				value: settings.country ? countryName(settings.country) : "Not set: the server's country is used, else the worldwide directory.",
			},
			{
				name: 'Crisis screening of your DMs and mentions',
				value: settings.screeningOptOut
					? "**Off**: Haven won't check your DMs and mentions for signs of crisis. `/crisis` always works."
					: '**On**: if a DM or mention to Haven sounds like you may be in crisis, Haven privately sends you support resources first.',
			},
		],
		footer: { text: 'Only you can see this.' },
	};
	return { content: notices.join('\n') || undefined, embeds: [embed] };
}
