import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { updateSoon } from '../lib/discord/reply.ts';
import {
	CLEAR_CANCELLED,
	clearLetters,
	deleteLetter,
	letterAt,
	NOT_YOURS,
	parseLetterButton,
	renderCleared,
	renderLetter,
	type LetterButton,
} from '../lib/wellbeing/ghost-letters.ts';
import { whisper } from '../lib/wellbeing/answer.ts';

/**
 * The buttons of `/ghostletter read` (pages, delete one) and `/ghostletter clear` (confirm, cancel). They sit on
 * ephemeral messages, and each carries its author's id: anyone else is refused, whatever the message.
 */
export class GhostletterButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseLetterButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: LetterButton) {
		if (interaction.user.id !== button.userId) return whisper(interaction, NOT_YOURS);
		const em = () => this.container.db.orm.em.fork();
		const userId = button.userId;
		await updateSoon(interaction, async () => {
			switch (button.kind) {
				case 'page':
					return renderLetter(userId, await letterAt(em(), userId, button.index));
				case 'delete': {
					const deleted = await deleteLetter(em(), userId, button.letterId);
					return renderLetter(
						userId,
						await letterAt(em(), userId, 0),
						deleted ? '🗑️ Deleted that letter for good.' : 'That letter was already deleted.',
					);
				}
				case 'clear':
					return button.confirm ? renderCleared(await clearLetters(em(), userId)) : CLEAR_CANCELLED;
			}
		});
	}
}
