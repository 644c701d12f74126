import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { updateSoon } from '../lib/discord/reply.ts';
import { whisper } from '../lib/wellbeing/answer.ts';
import { JOURNAL_BUTTONS, NOT_YOURS, JOURNAL_PAGES } from '../lib/wellbeing/journal.ts';
import { pressPageButton, type PageButton } from '../lib/wellbeing/private-pages.ts';

/**
 * The buttons of `/journal read` (pages, delete one) and `/journal delete` (confirm, cancel). Each carries its
 * author's id: anyone else is refused, whatever the message.
 */
export class JournalButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = JOURNAL_BUTTONS.parse(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: PageButton) {
		if (interaction.user.id !== button.userId) return whisper(interaction, NOT_YOURS);
		await updateSoon(interaction, () => pressPageButton(JOURNAL_PAGES, () => this.container.db.orm.em.fork(), button));
	}
}
