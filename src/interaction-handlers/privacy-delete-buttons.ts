import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { send, updateSoon } from '../lib/discord/reply.ts';
import { forgetServed } from '../lib/operations/served.ts';
import { deleteUserData } from '../lib/privacy/user-data.ts';
import {
	DELETE_NOT_YOURS,
	parseDeleteButton,
	renderDeleteCancelled,
	renderDeleteDone,
	renderDeleteExpired,
	type DeleteButton,
} from '../lib/privacy/views.ts';

/**
 * The buttons of `/privacy delete`. Only the person the confirmation was made for can press them (checked on every
 * click: the id is in the button); a confirmation pressed after it expired deletes nothing.
 */
export class PrivacyDeleteButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseDeleteButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: DeleteButton) {
		if (interaction.user.id !== button.userId) return send(interaction, { content: DELETE_NOT_YOURS });
		if (button.action === 'cancel') return updateSoon(interaction, async () => renderDeleteCancelled());
		if (Date.now() > button.expiresAt) return updateSoon(interaction, async () => renderDeleteExpired());
		await updateSoon(interaction, async () => {
			const report = await deleteUserData(this.container.db.orm.em.fork(), button.userId);
			// Their next use records them as served again (the users total itself never goes down).
			forgetServed(button.userId);
			if (report.unclassified.length) {
				this.container.logger.warn(`Privacy: columns without a deletion rule were handled by the default: ${report.unclassified.join(', ')}`);
			}
			return renderDeleteDone(report);
		});
	}
}
