import { INTERNATIONAL } from '../crisis/resources.ts';
import {
	applyGuildSettingsPatch,
	DEFAULT_GUILD_SETTINGS,
	ESCALATE_MIN_MINUTES,
	FEATURES,
	type Feature,
	type GuildSettingsPatch,
} from './guild-settings.ts';
import { checkAlertRole, checkChannel, type ChannelCheckInput, type RoleCheckInput } from './views.ts';

/**
 * A `/guildsettings` change, from the subcommand's options to the patch that is saved (pure). What Discord knows about
 * the chosen channel and role comes in as facts, read by the command beforehand: `channelToCheck` says which channel.
 * A problem refuses the whole change; warnings are shown with the saved settings.
 */

/** The options of one changing subcommand, as Discord gave them (the chosen channel and role as ids). */
export type GuildSettingsOptions =
	| { sub: 'alerts'; enabled: boolean; channelId: string | null; roleId: string | null; noRole: boolean; escalateAfter?: number | null }
	| { sub: 'country'; country: string }
	| { sub: 'author-offer'; enabled: boolean }
	| { sub: 'checkin-channel'; channelId: string | null }
	| { sub: 'feature'; feature: string; enabled: boolean }
	| { sub: 'unknown' };

/** A channel as `checkChannel` needs it; a channel that is missing, or not a text channel, has `isTextChannel: false`. */
export type ChannelFacts = Omit<ChannelCheckInput, 'purpose'>;

export interface GuildSettingsFacts {
	/** The alert channel saved now (used by `alerts` when no channel is given). */
	currentAlertChannelId: string | null;
	/** The channel named by `channelToCheck`; absent, it counts as unusable. */
	channel?: ChannelFacts;
	/** The role of the `role` option; null when it is not in the server. */
	role?: RoleCheckInput | null;
}

export type GuildSettingsChange = { patch: GuildSettingsPatch; warnings: string[] } | { problem: string };

/** The channel Haven will post to after this change, to be looked up in Discord first; null when there is none. */
export function channelToCheck(
	options: GuildSettingsOptions,
	currentAlertChannelId: string | null,
): { id: string; purpose: ChannelCheckInput['purpose'] } | null {
	if (options.sub === 'alerts') {
		const target = options.channelId ?? currentAlertChannelId;
		// A new channel is always checked; the saved one only when alerts are being turned on.
		return target && (options.channelId || options.enabled) ? { id: target, purpose: 'alerts' } : null;
	}
	if (options.sub === 'checkin-channel' && options.channelId) return { id: options.channelId, purpose: 'checkins' };
	return null;
}

const unusableChannel: ChannelFacts = { isTextChannel: false, botPermissions: 0n, everyoneCanView: false };

/** The patch for a subcommand's options, or the problem that refuses it (nothing is saved then). */
export function patchFromOptions(options: GuildSettingsOptions, facts: GuildSettingsFacts): GuildSettingsChange {
	const patch: GuildSettingsPatch = {};
	const warnings: string[] = [];
	const target = channelToCheck(options, facts.currentAlertChannelId);
	if (target) {
		const checked = checkChannel({ ...(facts.channel ?? unusableChannel), purpose: target.purpose });
		if (checked.problem) return { problem: checked.problem };
		warnings.push(...checked.warnings);
	}
	switch (options.sub) {
		case 'alerts': {
			if (options.enabled && !target) return { problem: 'Choose a channel for the alerts (the `channel` option).' };
			if (options.roleId) {
				if (!facts.role) return { problem: 'That role was not found in this server.' };
				const checked = checkAlertRole(facts.role);
				if (checked.problem) return { problem: checked.problem };
				warnings.push(...checked.warnings);
				patch.alertRoleId = options.roleId;
			} else if (options.noRole) {
				patch.alertRoleId = null;
			}
			patch.alertsEnabled = options.enabled;
			if (options.channelId) patch.alertChannelId = options.channelId;
			// 0 turns the reminder off; otherwise minutes within the schema's range (Discord enforces it too).
			if (options.escalateAfter !== undefined && options.escalateAfter !== null)
				patch.alertEscalateMinutes = options.escalateAfter > 0 ? Math.max(ESCALATE_MIN_MINUTES, options.escalateAfter) : null;
			break;
		}
		case 'country':
			patch.country = options.country === INTERNATIONAL ? null : options.country;
			break;
		case 'author-offer':
			patch.offerResourcesToAuthor = options.enabled;
			break;
		case 'checkin-channel':
			patch.checkinChannelId = options.channelId;
			break;
		case 'feature':
			if (!FEATURES.includes(options.feature as Feature)) return { problem: 'Unknown feature.' };
			patch.features = { [options.feature]: options.enabled };
			break;
		default:
			return { problem: 'Unknown setting.' };
	}
	try {
		applyGuildSettingsPatch(DEFAULT_GUILD_SETTINGS, patch);
	} catch (error) {
		if (error instanceof RangeError) return { problem: 'That value is not valid.' };
		throw error;
	}
	return { patch, warnings };
}
