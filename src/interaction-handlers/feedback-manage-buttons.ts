import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { isOwner } from '../lib/discord/command.ts';
import { feedbackActionView, feedbackListView } from '../lib/feedback/manage.ts';
import { OWNER_ONLY_MESSAGE } from '../lib/discord/info-views.ts';
import { parseFeedbackButton, type FeedbackButton } from '../lib/feedback/views.ts';
import { send, updateSoon } from '../lib/discord/reply.ts';
import { replyModal } from '../lib/feedback/owner-loop.ts';

/** The buttons of `/feedback-manage`: list pages and actions on one item. Owners only, checked on every click. */
export class FeedbackManageButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseFeedbackButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: FeedbackButton) {
		if (!isOwner(interaction.user.id)) return send(interaction, { content: OWNER_ONLY_MESSAGE });
		if (button.kind === 'action' && button.action === 'reply') return interaction.showModal(replyModal(button.id));
		const em = this.container.db.orm.em.fork();
		await updateSoon(interaction, () =>
			button.kind === 'list'
				? feedbackListView(em, button.filter, button.page)
				: feedbackActionView(em, button.action, button.id, interaction.user.id),
		);
	}
}
