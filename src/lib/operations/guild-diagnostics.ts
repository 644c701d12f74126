import type { EntityManager } from '@mikro-orm/postgresql';
import { PermissionFlagsBits, type PermissionsBitField, type APIEmbed, type APIEmbedField } from 'discord.js';
import { observeFaults, type FunnelledFault } from '../discord/interaction-errors.ts';
import type { View } from '../discord/reply.ts';
import { COLOR } from '../discord/info-views.ts';
import { discordTime, formatDuration, plural } from '../discord/text.ts';
import type { GuildSettings } from '../settings/guild-settings.ts';
import { guildColumns, metaOf } from '../privacy/user-data.ts';

/**
 * What `/guildcontext` and `/guilddebug` show a server's admins: counts and settings, permissions, the shard, recent
 * faults and versions. Never message content, never who did what: counts, ids of channels and roles, error ids.
 * Data gathering is in small functions; views are pure functions of plain inputs.
 */

// ---------------------------------------------------------------------------------------------------------------------
// Recent faults per server, fed by the error funnel (src/lib/discord/interaction-errors.ts, `observeFaults`)

export interface Fault {
	where: string;
	errorId: string;
	errorName: string;
	at: Date;
}

/** A small in-memory ring per server: the newest `perGuild` faults of the last `maxAgeMs`, for at most `maxGuilds` servers. */
export class FaultRing {
	readonly perGuild: number;
	readonly maxGuilds: number;
	readonly maxAgeMs: number;
	readonly #byGuild = new Map<string, Fault[]>();

	constructor(perGuild = 10, maxGuilds = 1_000, maxAgeMs = 24 * 3_600_000) {
		this.perGuild = perGuild;
		this.maxGuilds = maxGuilds;
		this.maxAgeMs = maxAgeMs;
	}

	add(guildId: string, fault: Fault): void {
		const list = this.#byGuild.get(guildId) ?? [];
		this.#byGuild.delete(guildId); // re-insert: the Map's order is least recently faulted first
		list.push(fault);
		if (list.length > this.perGuild) list.splice(0, list.length - this.perGuild);
		this.#byGuild.set(guildId, list);
		while (this.#byGuild.size > this.maxGuilds) this.#byGuild.delete(this.#byGuild.keys().next().value!);
	}

	/** Newest first. */
	recent(guildId: string, now = new Date()): Fault[] {
		return (this.#byGuild.get(guildId) ?? []).filter((fault) => now.getTime() - fault.at.getTime() <= this.maxAgeMs).reverse();
	}

	forget(guildId: string): void {
		this.#byGuild.delete(guildId);
	}

	clear(): void {
		this.#byGuild.clear();
	}
}

export const guildFaults = new FaultRing();

observeFaults((fault: FunnelledFault) => {
	if (fault.guildId) guildFaults.add(fault.guildId, { where: fault.where, errorId: fault.errorId, errorName: fault.errorName, at: fault.at });
});

// ---------------------------------------------------------------------------------------------------------------------
// Permissions

export type PermissionNeed = readonly (readonly [bigint, string])[];

/** What Haven uses in a server (the invite asks for these). */
export const GUILD_PERMISSIONS: PermissionNeed = [
	[PermissionFlagsBits.ViewChannel, 'View Channels'],
	[PermissionFlagsBits.SendMessages, 'Send Messages'],
	[PermissionFlagsBits.SendMessagesInThreads, 'Send Messages in Threads'],
	[PermissionFlagsBits.EmbedLinks, 'Embed Links'],
	[PermissionFlagsBits.ReadMessageHistory, 'Read Message History'],
];

/** Per configured channel: alerts carry an embed and buttons, check-in prompts are plain messages. */
export const CHANNEL_PERMISSIONS: Record<'alerts' | 'checkins' | 'here', PermissionNeed> = {
	alerts: [
		[PermissionFlagsBits.ViewChannel, 'View Channel'],
		[PermissionFlagsBits.SendMessages, 'Send Messages'],
		[PermissionFlagsBits.EmbedLinks, 'Embed Links'],
	],
	checkins: [
		[PermissionFlagsBits.ViewChannel, 'View Channel'],
		[PermissionFlagsBits.SendMessages, 'Send Messages'],
	],
	here: [
		[PermissionFlagsBits.ViewChannel, 'View Channel'],
		[PermissionFlagsBits.SendMessages, 'Send Messages'],
		[PermissionFlagsBits.EmbedLinks, 'Embed Links'],
	],
};

/** The names of the permissions in `need` that `have` lacks (Administrator has them all). */
export function missingPermissions(have: bigint, need: PermissionNeed): string[] {
	if ((have & PermissionFlagsBits.Administrator) === PermissionFlagsBits.Administrator) return [];
	return need.filter(([bit]) => (have & bit) !== bit).map(([, name]) => name);
}

// ---------------------------------------------------------------------------------------------------------------------
// Data about the server (counts only)

const LABELS: Record<string, string> = {
	mood_check_ins: 'Check-ins',
	crisis_events: 'Crisis events',
	conversations: 'Conversations (answered messages)',
	game_rounds: 'Game rounds',
};

export interface GuildCount {
	table: string;
	label: string;
	total: number;
	/** In the last 30 days (when the table has `created_at`). */
	recent: number | null;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** Rows per server-scoped table (every `guildId` column of the model), never their content. */
export async function guildDataCounts(em: EntityManager, guildId: string, now = new Date()): Promise<GuildCount[]> {
	const metadata = em.getMetadata();
	const since = new Date(now.getTime() - 30 * 86_400_000);
	const counts: GuildCount[] = [];
	for (const column of guildColumns(metadata)) {
		if (column.table === 'guilds') continue;
		const meta = metaOf(metadata, column.entity);
		const hasCreatedAt = Boolean(meta?.properties['createdAt' as keyof typeof meta.properties]);
		const rows = await em.execute<{ total: string | number; recent: string | number | null }[]>(
			`select count(*) as total, ${hasCreatedAt ? 'count(*) filter (where created_at >= ?)' : 'null'} as recent from ${quote(column.table)} where ${quote(column.column)} = ?`,
			hasCreatedAt ? [since, guildId] : [guildId],
		);
		const row = rows[0];
		counts.push({
			table: column.table,
			label: LABELS[column.table] ?? column.table.replace(/_/g, ' '),
			total: Number(row?.total ?? 0),
			recent: row?.recent === null || row?.recent === undefined ? null : Number(row.recent),
		});
	}
	return counts.sort((a, b) => Object.keys(LABELS).indexOf(a.table) - Object.keys(LABELS).indexOf(b.table) || a.table.localeCompare(b.table));
}

export interface GuildRecord {
	joinedAt: Date | null;
	leftAt: Date | null;
	hasSettings: boolean;
}

export async function guildRecord(em: EntityManager, guildId: string): Promise<GuildRecord> {
	const rows = await em.execute<{ joined_at: Date | string; left_at: Date | string | null; settings: unknown }[]>(
		'select joined_at, left_at, settings from guilds where id = ?',
		[guildId],
	);
	const row = rows[0];
	if (!row) return { joinedAt: null, leftAt: null, hasSettings: false };
	const settings = row.settings && typeof row.settings === 'object' ? Object.keys(row.settings as object).length > 0 : false;
	return { joinedAt: new Date(row.joined_at), leftAt: row.left_at ? new Date(row.left_at) : null, hasSettings: settings };
}

// ---------------------------------------------------------------------------------------------------------------------
// /guildcontext

export interface GuildContextInput {
	settingsView: View;
	record: GuildRecord;
	counts: readonly GuildCount[];
	/** Server-wide permissions Haven lacks. */
	missing: readonly string[];
	graceDays: number;
}

export function renderGuildContext(input: GuildContextInput): View {
	const countLines = input.counts.map(
		(count) =>
			`${count.label}: **${count.total.toLocaleString('en-US')}**${count.recent === null ? '' : ` (${count.recent.toLocaleString('en-US')} in the last 30 days)`}`,
	);
	const fields: APIEmbedField[] = [
		{
			name: 'Stored for this server',
			value: [input.record.hasSettings ? 'Its settings (below).' : 'Default settings (nothing changed yet).', ...countLines].join('\n'),
		},
		{
			name: 'Permissions Haven is missing',
			value: input.missing.length
				? `${input.missing.join(', ')}. Haven may fail to answer or post without them.`
				: 'None: Haven has every server permission it uses.',
		},
		{
			name: 'If Haven leaves',
			value: `This server's settings and server data (crisis events, conversation counts, games) are deleted ${plural(input.graceDays, 'day')} after Haven is removed; adding it back before then keeps them. Check-ins stay with their authors, without the server.`,
		},
	];
	const context: APIEmbed = {
		title: 'What Haven knows about this server',
		color: COLOR,
		description: `${input.record.joinedAt ? `Haven has been here since ${discordTime(input.record.joinedAt.toISOString(), 'd')}. ` : ''}Counts only: messages, notes and who wrote them are never shown here.`,
		fields,
		footer: { text: 'Members can see and delete their own data with /privacy.' },
	};
	const settings = (input.settingsView.embeds ?? []).map((embed) => ({ ...embed, title: 'Settings', footer: undefined }));
	return { embeds: [context, ...settings] };
}

// ---------------------------------------------------------------------------------------------------------------------
// /guilddebug

export interface ShardInfo {
	id: number;
	state: string;
	latencyMs: number | null;
	guilds: number;
	lastReady: Date | null;
	resumes: number;
}

export interface ChannelCheck {
	label: string;
	channelId: string | null;
	/** False: configured but not found (deleted, or Haven cannot see it). */
	found: boolean;
	missing: readonly string[];
}

export interface GuildDebugInput {
	guildId: string;
	shard: ShardInfo | null;
	channels: readonly ChannelCheck[];
	alertRole: { roleId: string; found: boolean } | null;
	faults: readonly Fault[];
	versions: Readonly<Record<string, string>>;
	uptimeSeconds: number;
}

function channelLine(check: ChannelCheck): string {
	if (!check.channelId) return `${check.label}: not set`;
	if (!check.found) return `${check.label}: <#${check.channelId}> **not found** (deleted, or Haven cannot see it)`;
	return `${check.label}: <#${check.channelId}> ${check.missing.length ? `**missing** ${check.missing.join(', ')}` : 'OK'}`;
}

export function renderGuildDebug(input: GuildDebugInput): View {
	const shard = input.shard
		? [
				`Shard **${input.shard.id}**: ${input.shard.state}`,
				`Heartbeat latency: ${input.shard.latencyMs === null ? 'not measured yet' : `${input.shard.latencyMs} ms`}`,
				`Servers on this shard: ${input.shard.guilds}`,
				`Last ready: ${input.shard.lastReady ? discordTime(input.shard.lastReady.toISOString(), 'R') : 'not yet'}; resumes: ${input.shard.resumes}`,
			].join('\n')
		: 'Unknown (this server is not on a connected shard)';
	const faults = input.faults.length
		? input.faults
				.slice(0, 10)
				.map((fault) => `${discordTime(fault.at.toISOString(), 'R')} ${fault.where}: ${fault.errorName}, error id \`${fault.errorId}\``)
				.join('\n')
		: 'None in the last 24 hours (since the last restart).';
	const role = input.alertRole
		? `Alert role: <@&${input.alertRole.roleId}> ${input.alertRole.found ? 'OK' : '**not found** (deleted?)'}`
		: 'Alert role: not set';
	const embed: APIEmbed = {
		title: 'Haven diagnostics for this server',
		color: COLOR,
		fields: [
			{ name: 'Gateway', value: shard },
			{ name: 'Channels', value: [...input.channels.map(channelLine), role].join('\n') },
			{ name: 'Recent errors here', value: faults },
			{
				name: 'Versions',
				value: Object.entries(input.versions)
					.map(([name, version]) => `${name} ${version}`)
					.join(' · '),
			},
			{ name: 'Uptime', value: formatDuration(input.uptimeSeconds), inline: true },
			{ name: 'Server id', value: input.guildId, inline: true },
		],
		footer: { text: 'Give the error id to the bot owners when asking for help. No message content is kept for diagnostics.' },
	};
	return { embeds: [embed] };
}

/** Permission bits of a PermissionsBitField-like value (null: none). */
export function bitsOf(permissions: Readonly<PermissionsBitField> | null | undefined): bigint {
	return permissions?.bitfield ?? 0n;
}

/** The settings' configured channels, for the checks. */
export function configuredChannels(settings: GuildSettings): { label: string; channelId: string | null; purpose: 'alerts' | 'checkins' }[] {
	return [
		{ label: 'Crisis alert channel', channelId: settings.alertChannelId, purpose: 'alerts' },
		{ label: 'Check-in channel', channelId: settings.checkinChannelId, purpose: 'checkins' },
	];
}
