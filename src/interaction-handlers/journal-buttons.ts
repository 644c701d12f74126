import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { updateSoon } from '../lib/discord/reply.ts';
import { whisper } from '../lib/wellbeing/answer.ts';
import {
	CLEAR_CANCELLED,
	clearEntries,
	deleteEntry,
	entryAt,
	NOT_YOURS,
	parseJournalButton,
	renderCleared,
	renderEntry,
	type JournalButton,
} from '../lib/wellbeing/journal.ts';

/**
 * The buttons of `/journal read` (pages, delete one) and `/journal delete` (confirm, cancel). Each carries its
 * author's id: anyone else is refused, whatever the message.
 */
export class JournalButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseJournalButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: JournalButton) {
		if (interaction.user.id !== button.userId) return whisper(interaction, NOT_YOURS);
		const em = () => this.container.db.orm.em.fork();
		const userId = button.userId;
		await updateSoon(interaction, async () => {
			switch (button.kind) {
				case 'page':
					return renderEntry(userId, await entryAt(em(), userId, button.index));
				case 'delete': {
					const deleted = await deleteEntry(em(), userId, button.entryId);
					return renderEntry(
						userId,
						await entryAt(em(), userId, 0),
						deleted ? '🗑️ Deleted that entry for good.' : 'That entry was already deleted.',
					);
				}
				case 'clear':
					return button.confirm ? renderCleared(await clearEntries(em(), userId)) : CLEAR_CANCELLED;
			}
		});
	}
}
