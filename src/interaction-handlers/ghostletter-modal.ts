import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ModalSubmitInteraction } from 'discord.js';
import { MODAL_FIELD, parseModalId, type LetterMode } from '../lib/wellbeing/ghost-letters.ts';
import { handleLetter } from '../lib/wellbeing/letter-flow.ts';

/** The writing box of `/ghostletter keep|letgo` (opened when no `letter` option was given). */
export class GhostletterModal extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.ModalSubmit });
	}

	override parse(interaction: ModalSubmitInteraction) {
		const mode = parseModalId(interaction.customId);
		return mode ? this.some(mode) : this.none();
	}

	override async run(interaction: ModalSubmitInteraction, mode: LetterMode) {
		await handleLetter(interaction, mode, interaction.fields.getTextInputValue(MODAL_FIELD));
	}
}
