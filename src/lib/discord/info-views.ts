import {
	ApplicationCommandType,
	ButtonStyle,
	ComponentType,
	OAuth2Scopes,
	PermissionFlagsBits,
	type APIButtonComponent,
	type APIEmbed,
} from 'discord.js';
import type { StatsBody } from '../api/schemas.ts';
import { commandKind, cooldownSeconds, type CommandDefinition } from './definitions.ts';
import type { ReleaseCheck } from '../operations/release-check.ts';
import type { View } from './reply.ts';
import { chunkLines, discordTime, formatDuration, LIMITS, plural } from './text.ts';

/** Views of the info commands, denials and the changelog: pure functions of their inputs (tested without Discord). */

export const COLOR = 0x5fb3a1;

export interface Urls {
	website: string;
	docs: string;
	support: string;
	invite: string;
	source: string;
}

function linkRow(links: readonly { label: string; url: string }[]): NonNullable<View['components']>[number] {
	return {
		type: ComponentType.ActionRow,
		components: links
			.slice(0, 5)
			.map((link): APIButtonComponent => ({ type: ComponentType.Button, style: ButtonStyle.Link, label: link.label, url: link.url })),
	};
}

// -------------------------------------------------------------------------------------------------------------------
// Denials (chatInputCommandDenied)

export const OWNER_ONLY_MESSAGE = "This command is for Haven's owners.";
export const GUILD_ADMIN_MESSAGE = 'You need the Manage Server permission to use this command.';
export const GUILD_ONLY_MESSAGE = 'This command only works in a server.';

/** "try again in N seconds", N = remaining milliseconds rounded up to whole seconds (at least 1). */
export function cooldownMessage(remainingMs: number): string {
	const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
	return `Please slow down a little: try again in ${plural(seconds, 'second')}.`;
}

/** What a refused user reads (chatInputCommandDenied): our preconditions' messages, a cooldown's remaining time. */
export function deniedMessage(error: { identifier: string; message: string; context?: unknown }): string {
	if (error.identifier === 'preconditionCooldown') {
		const remaining = (error.context as { remaining?: unknown } | undefined)?.remaining;
		return cooldownMessage(typeof remaining === 'number' ? remaining : 1000);
	}
	return error.message || "You can't use this command here.";
}

// -------------------------------------------------------------------------------------------------------------------
// Info commands

export function renderPing({ gatewayMs, roundTripMs }: { gatewayMs: number | null; roundTripMs: number | null }): View {
	const gateway = gatewayMs === null || gatewayMs < 0 ? 'not measured yet' : `${Math.round(gatewayMs)} ms`;
	const roundTrip = roundTripMs === null ? 'measuring' : `${Math.max(0, Math.round(roundTripMs))} ms`;
	return { content: `Pong! Gateway heartbeat: ${gateway}. Round trip: ${roundTrip}.` };
}

export interface AboutInput {
	version: string;
	uptimeSeconds: number;
	guilds: number;
	shards: number;
	urls: Urls;
}

export function renderAbout({ version, uptimeSeconds, guilds, shards, urls }: AboutInput): View {
	return {
		embeds: [
			{
				title: 'About Haven',
				color: COLOR,
				description: [
					'Haven is a self-hosted wellbeing companion for Discord: check-ins, coping tools and a kind ear, with care for privacy.',
					'Haven is not a substitute for professional help. If you might be in danger, please contact your local emergency number or a crisis line.',
				].join('\n\n'),
				fields: [
					{ name: 'Version', value: version, inline: true },
					{ name: 'Uptime', value: formatDuration(uptimeSeconds), inline: true },
					{ name: 'Servers', value: String(guilds), inline: true },
					{ name: 'Shards', value: String(shards), inline: true },
				],
			},
		],
		components: [
			linkRow([
				{ label: 'Website', url: urls.website },
				{ label: 'Docs', url: urls.docs },
				{ label: 'Support', url: urls.support },
				{ label: 'Source', url: urls.source },
			]),
		],
	};
}

export function renderStats(stats: StatsBody): View {
	const number = (value: number) => value.toLocaleString('en-US');
	return {
		embeds: [
			{
				title: 'Haven in numbers',
				color: COLOR,
				fields: [
					{ name: 'People', value: number(stats.users), inline: true },
					{ name: 'Servers', value: number(stats.guilds), inline: true },
					{ name: 'Conversations', value: number(stats.conversations), inline: true },
					{ name: 'Mood check-ins', value: number(stats.moodCheckIns), inline: true },
					{ name: 'Times crisis resources were shared', value: number(stats.crisisEvents), inline: true },
				],
				footer: { text: 'Totals since Haven started counting; the same numbers as GET /v1/stats.' },
			},
		],
	};
}

export function renderVersion(check: ReleaseCheck): View {
	const latest = check.latest;
	const release = latest ? (latest.url ? `[${latest.tag}](${latest.url})` : latest.tag) : 'unknown';
	const verdict = {
		current: 'Up to date: this is the latest release.',
		outdated: `A newer release is available: ${release}.`,
		ahead: `This build is newer than the latest release (${release}).`,
		unknown: latest
			? `Cannot compare this build with the latest release (${release}).`
			: `Cannot check the latest release right now: ${check.problem ?? 'no answer'}.`,
	}[check.state];
	const fields = [
		{ name: 'Running', value: check.running, inline: true },
		{ name: 'Latest release', value: release, inline: true },
	];
	if (latest?.publishedAt) fields.push({ name: 'Released', value: discordTime(latest.publishedAt, 'd'), inline: true });
	return { embeds: [{ title: 'Haven version', color: COLOR, description: verdict, fields }] };
}

export interface HelpInput {
	definitions: readonly CommandDefinition[];
	/** Owner commands are listed to owners only. */
	isOwner: boolean;
}

function helpLine(definition: CommandDefinition): string {
	const cooldown = cooldownSeconds(definition);
	const name = commandKind(definition) === ApplicationCommandType.ChatInput ? `/${definition.name}` : `${definition.name} (right-click menu)`;
	const extra = definition.help ? ` ${definition.help}` : '';
	const admin = definition.access === 'guildAdmin' ? ' Needs Manage Server.' : '';
	return `**${name}**: ${definition.description}.${extra}${admin} ${cooldown ? `_Cooldown ${cooldown} s._` : '_No cooldown._'}`.replace(
		/\.\./g,
		'.',
	);
}

export function renderHelp({ definitions, isOwner }: HelpInput): View {
	const visible = definitions.filter((definition) => isOwner || definition.access !== 'owner');
	const categories = new Map<string, CommandDefinition[]>();
	for (const definition of [...visible].sort((a, b) => a.name.localeCompare(b.name))) {
		const category = definition.access === 'owner' ? 'Owner' : definition.category;
		categories.set(category, [...(categories.get(category) ?? []), definition]);
	}
	const order = [...categories.keys()].sort((a, b) => (a === 'Owner' ? 1 : b === 'Owner' ? -1 : a.localeCompare(b)));
	const lines: string[] = [];
	for (const category of order) {
		if (lines.length) lines.push('');
		lines.push(`__**${category}**__`);
		for (const definition of categories.get(category)!) lines.push(helpLine(definition));
	}
	const chunks = chunkLines(lines, LIMITS.embedDescription).slice(0, LIMITS.embeds);
	return {
		embeds: chunks.map((description, index): APIEmbed => ({
			...(index === 0 ? { title: 'Haven commands' } : {}),
			color: COLOR,
			description,
			...(index === chunks.length - 1
				? { footer: { text: 'Cooldowns are per person and per command. Replies are only visible to you.' } }
				: {}),
		})),
	};
}

export const INVITE_PERMISSIONS =
	PermissionFlagsBits.ViewChannel |
	PermissionFlagsBits.SendMessages |
	PermissionFlagsBits.SendMessagesInThreads |
	PermissionFlagsBits.EmbedLinks |
	PermissionFlagsBits.ReadMessageHistory;

/** The OAuth2 link that adds the bot (CLIENT_ID) with the permissions it uses. */
export function authorizeUrl(clientId: string): string {
	const query = new URLSearchParams({
		client_id: clientId,
		scope: [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands].join(' '),
		permissions: String(INVITE_PERMISSIONS),
	});
	return `https://discord.com/oauth2/authorize?${query}`;
}

export type LinkKind = 'invite' | 'support' | 'docs' | 'source';

export function renderLink(kind: LinkKind, urls: Urls, clientId: string | undefined): View {
	switch (kind) {
		case 'invite': {
			const links = [
				...(clientId ? [{ label: 'Add Haven to a server', url: authorizeUrl(clientId) }] : []),
				{ label: 'Invite page', url: urls.invite },
			];
			return { content: `Add Haven to your server: ${clientId ? authorizeUrl(clientId) : urls.invite}`, components: [linkRow(links)] };
		}
		case 'support':
			return {
				content: `Questions, problems or ideas? Haven's support: ${urls.support}`,
				components: [linkRow([{ label: 'Support', url: urls.support }])],
			};
		case 'docs':
			return { content: `Haven's documentation: ${urls.docs}`, components: [linkRow([{ label: 'Docs', url: urls.docs }])] };
		case 'source':
			return { content: `Haven is open source: ${urls.source}`, components: [linkRow([{ label: 'Source code', url: urls.source }])] };
	}
}

export function renderPrivacy(urls: Urls): View {
	return {
		embeds: [
			{
				title: 'Privacy',
				color: COLOR,
				description: [
					'Haven keeps only what its features need:',
					'- what you choose to save (feedback, check-ins, notes), with sensitive text encrypted at rest;',
					'- counts for the public statistics, which contain no messages;',
					'- short-lived conversation memory, which expires on its own.',
					'',
					'Feedback is never public unless you agreed to be quoted and an owner approved it; it is shown without your name.',
					'Messages are only sent to the AI provider to write a reply, never for training by Haven.',
					'',
					`Haven is self-hosted: the people who run this bot look after its data. Questions or requests: ${urls.support}`,
				].join('\n'),
			},
		],
		components: [
			linkRow([
				{ label: 'Docs', url: urls.docs },
				{ label: 'Support', url: urls.support },
			]),
		],
	};
}

// -------------------------------------------------------------------------------------------------------------------
// /changelog

export const CHANGELOG_PAGE_CHARS = 3_900;

export function changelogPrefix(page: number): string {
	return `changelog:${page}`;
}

export type ChangelogSource =
	{ ok: true; pages: string[]; path: string } | { ok: false; reason: 'unset' | 'missing' | 'empty' | 'unreadable'; path?: string };

export function renderChangelog(source: ChangelogSource, requestedPage: number): View {
	if (!source.ok) {
		const why = {
			unset: 'No patch notes are configured: set PATCHNOTES_PATH to the patch-notes file.',
			missing: `The patch-notes file was not found at \`${source.path}\` (PATCHNOTES_PATH).`,
			empty: `The patch-notes file \`${source.path}\` is empty.`,
			unreadable: `The patch-notes file \`${source.path}\` could not be read.`,
		}[source.reason];
		return { content: why, embeds: [], components: [] };
	}
	const total = source.pages.length;
	const page = Math.min(Math.max(0, requestedPage), total - 1);
	const embed: APIEmbed = {
		title: 'Patch notes',
		color: COLOR,
		description: source.pages[page]!,
		footer: { text: `Page ${page + 1} of ${total}` },
	};
	const components: View['components'] =
		total > 1
			? [
					{
						type: ComponentType.ActionRow,
						components: [
							{
								type: ComponentType.Button,
								style: ButtonStyle.Secondary,
								label: 'Previous',
								custom_id: changelogPrefix(page - 1),
								disabled: page === 0,
							},
							{
								type: ComponentType.Button,
								style: ButtonStyle.Secondary,
								label: 'Next',
								custom_id: changelogPrefix(page + 1),
								disabled: page >= total - 1,
							},
						],
					},
				]
			: [];
	return { content: '', embeds: [embed], components };
}
