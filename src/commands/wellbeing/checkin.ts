import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, type AutocompleteInteraction } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import { checkInFromOptions, historyCount, reminderChoice, reminderFromOptions } from '../../lib/wellbeing/checkin-options.ts';
import {
	HISTORY_DEFAULT,
	HISTORY_MAX,
	logCheckIn,
	MOODS,
	NOTE_MAX_LENGTH,
	recentCheckIns,
	countCheckIns,
	renderCheckInLogged,
	renderHistory,
	TREND_SIZE,
} from '../../lib/wellbeing/checkins.ts';
import { disableReminder, getReminder, postponeReminder, setReminder } from '../../lib/wellbeing/reminder-store.ts';
import { REMINDER_INTERVALS, renderReminderSettings, suggestTimeZones } from '../../lib/wellbeing/reminders.ts';
import { recordScreened, screenPrivately } from '../../lib/safety/screen-command-text.ts';
import { shareCheckIn, shareNote } from '../../lib/wellbeing/checkin-share.ts';

const hourOption = (name: string, description: string) => ({
	type: ApplicationCommandOptionType.Integer as const,
	name,
	description,
	required: false,
	min_value: 0,
	max_value: 23,
});

/**
 * `/checkin log | history | reminders set | reminders show | reminders off`. A command with subcommands cannot take
 * options of its own (Discord's rule), hence `log` for the check-in itself.
 */
export const definition: CommandDefinition = {
	name: 'checkin',
	description: 'Check in with how you feel, privately, and see your recent trend',
	category: 'Wellbeing',
	access: 'everyone',
	// No cooldown beyond Discord's own limits: a person logging how they feel is never told to wait.
	cooldownSeconds: 0,
	help: 'Only you see your check-ins; notes are stored encrypted. Reminders are opt-in, by DM, never in your quiet hours.',
	options: [
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'log',
			description: 'Log how you feel right now (only you see it)',
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: 'mood',
					description: 'The word closest to how you feel',
					required: true,
					choices: MOODS.map((mood) => ({ name: `${mood.emoji} ${mood.label}`, value: mood.value })),
				},
				{
					type: ApplicationCommandOptionType.Integer,
					name: 'intensity',
					description: 'How strong is it? 1 (a little) to 5 (very)',
					required: true,
					min_value: 1,
					max_value: 5,
				},
				{
					type: ApplicationCommandOptionType.String,
					name: 'note',
					description: 'A private note for yourself (stored encrypted)',
					required: false,
					max_length: NOTE_MAX_LENGTH,
				},
				{
					type: ApplicationCommandOptionType.Boolean,
					name: 'share',
					description: "Also post your mood and intensity (never the note) in this server's check-in channel",
					required: false,
				},
			],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'history',
			description: 'Your recent check-ins and trend (only you see them)',
			options: [
				{
					type: ApplicationCommandOptionType.Integer,
					name: 'count',
					description: `How many to show (default ${HISTORY_DEFAULT})`,
					required: false,
					min_value: 1,
					max_value: HISTORY_MAX,
				},
			],
		},
		{
			type: ApplicationCommandOptionType.SubcommandGroup,
			name: 'reminders',
			description: 'Optional check-in reminders by DM',
			options: [
				{
					type: ApplicationCommandOptionType.Subcommand,
					name: 'set',
					description: 'Turn reminders on, or change them',
					options: [
						{
							type: ApplicationCommandOptionType.Integer,
							name: 'every',
							description: 'How often',
							required: true,
							choices: REMINDER_INTERVALS.map(({ name, minutes }) => ({ name, value: minutes })),
						},
						{
							type: ApplicationCommandOptionType.String,
							name: 'timezone',
							description: 'Your timezone, e.g. Europe/Paris (default: as before, else UTC)',
							required: false,
							autocomplete: true,
							max_length: 64,
						},
						hourOption('quiet_start', 'Quiet hours start at this local hour, 0-23 (default 22)'),
						hourOption('quiet_end', 'Quiet hours end at this local hour, 0-23 (default 8; same as start: none)'),
					],
				},
				{ type: ApplicationCommandOptionType.Subcommand, name: 'show', description: 'Show your reminder settings' },
				{ type: ApplicationCommandOptionType.Subcommand, name: 'off', description: 'Turn reminders off' },
			],
		},
	],
};

export class CheckinCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const group = interaction.options.getSubcommandGroup(false);
		const sub = interaction.options.getSubcommand(true);
		if (group === 'reminders') return this.reminders(interaction, sub);
		if (sub === 'history') return this.history(interaction);
		return this.log(interaction);
	}

	override async autocompleteRun(interaction: AutocompleteInteraction) {
		const focused = interaction.options.getFocused(true);
		if (focused.name !== 'timezone') return interaction.respond([]);
		await interaction.respond(suggestTimeZones(String(focused.value)).map((zone) => ({ name: zone, value: zone })));
	}

	private async log(interaction: Command.ChatInputCommandInteraction) {
		const checkIn = checkInFromOptions({
			mood: interaction.options.getString('mood', true),
			intensity: interaction.options.getInteger('intensity', true),
			note: interaction.options.getString('note'),
		});
		if ('problem' in checkIn) return send(interaction, { content: checkIn.problem });
		const share = interaction.options.getBoolean('share') === true;
		const em = this.em();
		const who = { userId: interaction.user.id, guildId: interaction.guildId };
		const deps = { em: () => em, warn: (m: string) => this.container.logger.warn(m) };
		// A note that screens as a possible crisis: the resources first, privately, before anything else.
		const screened = await screenPrivately(checkIn.note, who, deps);
		if (screened) await send(interaction, { content: screened.resources });
		await respondSoon(interaction, async () => {
			const row = await logCheckIn(em, { ...who, ...checkIn });
			const [recent, next] = await Promise.all([recentCheckIns(em, who.userId, TREND_SIZE), postponeReminder(em, who.userId, new Date())]);
			const notes = next ? [`Your next reminder moves to <t:${Math.floor(next.getTime() / 1000)}:R>.`] : [];
			// Shared only when asked, in a server, and only the mood and intensity.
			if (share && who.guildId)
				notes.push(shareNote(await shareCheckIn(em, who.guildId, { userId: who.userId, mood: row.mood, intensity: row.intensity })));
			return renderCheckInLogged(row, recent, notes.length ? notes.join('\n') : undefined);
		});
		if (screened) await recordScreened(screened, interaction.guildId, deps);
	}

	private async history(interaction: Command.ChatInputCommandInteraction) {
		const count = historyCount(interaction.options.getInteger('count'));
		const em = this.em();
		await respondSoon(interaction, async () => {
			const [rows, total] = await Promise.all([recentCheckIns(em, interaction.user.id, count), countCheckIns(em, interaction.user.id)]);
			return renderHistory(rows, total);
		});
	}

	private async reminders(interaction: Command.ChatInputCommandInteraction, sub: string) {
		const userId = interaction.user.id;
		const now = new Date();
		const em = this.em();
		if (sub === 'off') {
			return respondSoon(interaction, async () => {
				const was = await disableReminder(em, userId, now);
				return renderReminderSettings(
					await getReminder(em, userId),
					was ? 'Reminders are off. Your check-ins are untouched.' : 'Reminders were already off.',
				);
			});
		}
		if (sub === 'show') return respondSoon(interaction, async () => renderReminderSettings(await getReminder(em, userId)));

		const request = reminderFromOptions({
			every: interaction.options.getInteger('every', true),
			timezone: interaction.options.getString('timezone'),
			quietStart: interaction.options.getInteger('quiet_start'),
			quietEnd: interaction.options.getInteger('quiet_end'),
		});
		if ('problem' in request) return send(interaction, { content: request.problem });
		await respondSoon(interaction, async () => {
			const saved = await setReminder(em, userId, reminderChoice(request, await getReminder(em, userId)), now);
			return renderReminderSettings(saved, 'Reminders are on. The first one comes after one interval, by DM.');
		});
	}
}
