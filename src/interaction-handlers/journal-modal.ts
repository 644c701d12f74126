import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ModalSubmitInteraction } from 'discord.js';
import { MODAL_FIELD, parseModalId, type JournalModal } from '../lib/wellbeing/journal.ts';
import { handleJournalEntry } from '../lib/wellbeing/journal-flow.ts';

/** The writing box of `/journal write`. */
export class JournalModalHandler extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.ModalSubmit });
	}

	override parse(interaction: ModalSubmitInteraction) {
		const options = parseModalId(interaction.customId);
		return options ? this.some(options) : this.none();
	}

	override async run(interaction: ModalSubmitInteraction, options: JournalModal) {
		await handleJournalEntry(interaction, options, interaction.fields.getTextInputValue(MODAL_FIELD));
	}
}
