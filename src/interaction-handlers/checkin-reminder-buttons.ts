import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { NO_MENTIONS } from '../lib/discord/reply.ts';
import { disableReminder } from '../lib/wellbeing/reminder-store.ts';
import { REMINDER_OFF_BUTTON } from '../lib/wellbeing/reminders.ts';
import { guardComponent } from '../lib/wellbeing/answer.ts';

/** "Turn off reminders" under a reminder DM: turns off the reminders of whoever clicks (the DM's recipient). */
export class CheckinReminderButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		return interaction.customId === REMINDER_OFF_BUTTON ? this.some() : this.none();
	}

	override async run(interaction: ButtonInteraction) {
		await guardComponent(interaction, async () => {
			const was = await disableReminder(this.container.db.orm.em.fork(), interaction.user.id, new Date());
			await interaction.update({
				content: was ? 'Check-in reminders are off. `/checkin reminders set` turns them on again.' : 'Check-in reminders were already off.',
				embeds: [],
				components: [],
				allowedMentions: NO_MENTIONS,
			});
		});
	}
}
