import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction, StringSelectMenuInteraction } from 'discord.js';
import { NO_MENTIONS } from '../lib/discord/reply.ts';
import { guardComponent } from '../lib/wellbeing/answer.ts';
import { isMood, logCheckIn, recentCheckIns, renderCheckInLogged, TREND_SIZE } from '../lib/wellbeing/checkins.ts';
import {
	parseIntensityButton,
	QUICK_MOOD,
	QUICK_START,
	renderIntensityPicker,
	renderMoodPicker,
	snoozeReminder,
	SNOOZE_BUTTON,
} from '../lib/wellbeing/quick-checkin.ts';
import { postponeReminder } from '../lib/wellbeing/reminder-store.ts';

type Quick = { kind: 'start' } | { kind: 'snooze' } | { kind: 'mood' } | { kind: 'intensity'; mood: string; intensity: number };

/** "Check in now" (mood select, then intensity) and "Snooze 1 hour" under a reminder DM (src/lib/wellbeing/quick-checkin.ts). */
export class CheckinQuick extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.MessageComponent });
	}

	override parse(interaction: ButtonInteraction | StringSelectMenuInteraction) {
		if (interaction.customId === QUICK_START && interaction.isButton()) return this.some<Quick>({ kind: 'start' });
		if (interaction.customId === SNOOZE_BUTTON && interaction.isButton()) return this.some<Quick>({ kind: 'snooze' });
		if (interaction.customId === QUICK_MOOD && interaction.isStringSelectMenu()) return this.some<Quick>({ kind: 'mood' });
		const intensity = interaction.isButton() ? parseIntensityButton(interaction.customId) : null;
		return intensity ? this.some<Quick>({ kind: 'intensity', ...intensity }) : this.none();
	}

	override async run(interaction: ButtonInteraction | StringSelectMenuInteraction, quick: Quick) {
		// guardComponent only reads the custom id and answers privately, which a select menu supports the same way.
		await guardComponent(interaction as ButtonInteraction, async () => {
			const em = () => this.container.db.orm.em.fork();
			const userId = interaction.user.id;
			const now = new Date();
			switch (quick.kind) {
				case 'start':
					return void (await interaction.update({ ...renderMoodPicker(), allowedMentions: NO_MENTIONS }));
				case 'mood': {
					const mood = interaction.isStringSelectMenu() ? interaction.values[0] : undefined;
					if (!isMood(mood)) return void (await interaction.update({ ...renderMoodPicker(), allowedMentions: NO_MENTIONS }));
					return void (await interaction.update({ ...renderIntensityPicker(mood), allowedMentions: NO_MENTIONS }));
				}
				case 'snooze': {
					const due = await snoozeReminder(em(), userId, now);
					return void (await interaction.update({
						content: due
							? `Snoozed: the next reminder comes <t:${Math.floor(due.getTime() / 1000)}:R>.`
							: 'Check-in reminders are off, so there is nothing to snooze.',
						embeds: [],
						components: [],
						allowedMentions: NO_MENTIONS,
					}));
				}
				case 'intensity': {
					const row = await logCheckIn(em(), {
						userId,
						guildId: interaction.guildId,
						mood: quick.mood,
						intensity: quick.intensity,
						note: null,
					});
					const [recent, next] = await Promise.all([recentCheckIns(em(), userId, TREND_SIZE), postponeReminder(em(), userId, now)]);
					const view = renderCheckInLogged(
						row,
						recent,
						next ? `Your next reminder moves to <t:${Math.floor(next.getTime() / 1000)}:R>.` : undefined,
					);
					return void (await interaction.update({ content: '', ...view, components: [], allowedMentions: NO_MENTIONS }));
				}
			}
		});
	}
}
