import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import { MessageFlags, type ButtonInteraction } from 'discord.js';
import { NO_MENTIONS, send, updateSoon } from '../lib/discord/reply.ts';
import { getGuildSettings } from '../lib/settings/guild-settings.ts';
import { findAlert, markAlert } from '../lib/safety/events.ts';
import { canRespondToAlert } from '../lib/safety/policy.ts';
import { ALERT_NOT_ALLOWED, parseAlertButton, renderAlertAlready, renderAlertStatus, type AlertAction } from '../lib/safety/crisis-views.ts';

/**
 * Acknowledge / Resolved on a moderator alert (custom id `crisis-alert:<ack|resolve>:<event id>`). Who and when is
 * recorded on the crisis event, first press wins; the alert's status embed and buttons are updated in place (its text
 * and role ping are left alone, so nobody is pinged again). Allowed: members who can see the alert channel and have
 * Manage Server, Manage Messages or the alert role (safety/policy.ts, canRespondToAlert), checked on every press.
 */
export class CrisisAlertButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseAlertButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, { action, eventId }: { action: AlertAction; eventId: number }) {
		if (!interaction.inGuild()) return;
		const guildId = interaction.guildId;
		const em = () => this.container.db.orm.em.fork();
		const settings = await getGuildSettings(em(), guildId);
		const member = interaction.member;
		const roles = Array.isArray(member.roles) ? member.roles : [...member.roles.cache.keys()];
		if (!canRespondToAlert(interaction.memberPermissions, roles, settings.alertRoleId)) return send(interaction, { content: ALERT_NOT_ALLOWED });

		const known = await findAlert(em(), eventId);
		if (!known || known.guildId !== guildId) return send(interaction, { content: 'Haven no longer knows this alert.' });

		let changed = false;
		let state = known;
		await updateSoon(interaction, async () => {
			changed = await markAlert(em(), eventId, guildId, action, interaction.user.id);
			state = (await findAlert(em(), eventId)) ?? known;
			return renderAlertStatus(eventId, state);
		});
		if (!changed) {
			await interaction.followUp({ content: renderAlertAlready(action, state), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
		}
	}
}
