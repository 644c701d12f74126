import type { EntityManager } from '@mikro-orm/postgresql';
import type { AlertPoster } from '../safety/alerts.ts';
import { ESCALATE_MAX_MINUTES, getGuildSettings } from '../settings/guild-settings.ts';

/**
 * Moderator alerts at high or imminent that nobody acknowledged in time are raised once more in the alert channel.
 * Off by default; a server turns it on with `/guildsettings alerts escalate-after:<minutes>`. The reminder links the
 * alert and pings the alert role again (the only mention); it quotes nothing. Claimed by a compare-and-set on
 * `crisis_events.escalated_at`, so it is posted once however many schedulers run.
 */

/** Alerts older than this are left alone (the longest setting, a day, and an hour for a scheduler that was down). */
export const ESCALATION_HORIZON_MS = (ESCALATE_MAX_MINUTES + 60) * 60_000;

interface Candidate {
	id: number;
	guild_id: string;
	level: string;
	alert_message_id: string;
	created_at: Date | string;
}

export interface EscalationDeps {
	em(): EntityManager;
	post: AlertPoster;
	warn(message: string): void;
}

export function renderEscalation(input: {
	guildId: string;
	channelId: string;
	alertMessageId: string;
	level: string;
	minutes: number;
	roleId: string | null;
}): {
	content: string;
	embeds: unknown[];
	components: unknown[];
	allowed_mentions: { parse: []; roles?: string[] };
} {
	const link = `https://discord.com/channels/${input.guildId}/${input.channelId}/${input.alertMessageId}`;
	const lines = [
		...(input.roleId ? [`<@&${input.roleId}>`] : []),
		`**Still open**: this ${input.level} wellbeing alert has not been acknowledged for ${input.minutes} minutes: ${link}`,
		'Could someone check in with them? Press Acknowledge on the alert when you do.',
	];
	return {
		content: lines.join('\n'),
		embeds: [],
		components: [],
		allowed_mentions: input.roleId ? { parse: [], roles: [input.roleId] } : { parse: [] },
	};
}

/** Raises the alerts due at `now` once more; returns how many were posted. */
export async function escalateAlerts(deps: EscalationDeps, now: Date, limit = 50): Promise<number> {
	const candidates = await deps
		.em()
		.getConnection()
		.execute<Candidate[]>(
			`select id, guild_id, level, alert_message_id, created_at from crisis_events
			 where alert_message_id is not null and acknowledged_at is null and resolved_at is null and escalated_at is null
			   and guild_id is not null and level in ('high', 'imminent') and created_at > ?
			 order by created_at limit ?`,
			[new Date(now.getTime() - ESCALATION_HORIZON_MS), limit],
		);
	let posted = 0;
	const settingsOf = new Map<string, Awaited<ReturnType<typeof getGuildSettings>>>();
	for (const event of candidates) {
		let settings = settingsOf.get(event.guild_id);
		if (!settings) settingsOf.set(event.guild_id, (settings = await getGuildSettings(deps.em(), event.guild_id)));
		const minutes = settings.alertEscalateMinutes;
		if (!minutes || !settings.alertsEnabled || !settings.alertChannelId) continue;
		if (new Date(event.created_at).getTime() + minutes * 60_000 > now.getTime()) continue;
		const claimed = await deps
			.em()
			.getConnection()
			.execute<{ id: number }[]>(
				'update crisis_events set escalated_at = ? where id = ? and escalated_at is null and acknowledged_at is null and resolved_at is null returning id',
				[now, event.id],
			);
		if (claimed.length !== 1) continue;
		try {
			await deps.post(
				settings.alertChannelId,
				renderEscalation({
					guildId: event.guild_id,
					channelId: settings.alertChannelId,
					alertMessageId: event.alert_message_id,
					level: event.level,
					minutes,
					roleId: settings.alertRoleId,
				}) as Parameters<AlertPoster>[1],
			);
			posted++;
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			deps.warn(
				`Could not raise an unacknowledged alert again in server ${event.guild_id}${code === undefined ? '' : ` (Discord code ${String(code)})`}`,
			);
		}
	}
	return posted;
}
