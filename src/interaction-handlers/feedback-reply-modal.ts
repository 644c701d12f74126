import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ModalSubmitInteraction } from 'discord.js';
import { isOwner } from '../lib/discord/command.ts';
import { OWNER_ONLY_MESSAGE } from '../lib/discord/info-views.ts';
import { respondSoon, send } from '../lib/discord/reply.ts';
import { describeReply, dmThroughRest, parseReplyModal, REPLY_FIELD, replyToFeedback } from '../lib/feedback/owner-loop.ts';

/** The reply box of `/feedback-manage reply` and the "Reply by DM" button: the text goes to the author by DM. */
export class FeedbackReplyModal extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.ModalSubmit });
	}

	override parse(interaction: ModalSubmitInteraction) {
		const id = parseReplyModal(interaction.customId);
		return id === null ? this.none() : this.some(id);
	}

	override async run(interaction: ModalSubmitInteraction, id: number) {
		if (!isOwner(interaction.user.id)) return send(interaction, { content: OWNER_ONLY_MESSAGE });
		const { client, db } = this.container;
		await respondSoon(interaction, async () => {
			const result = await replyToFeedback(db.orm.em.fork(), id, interaction.fields.getTextInputValue(REPLY_FIELD), (userId, content) =>
				dmThroughRest(client.rest, userId, content),
			);
			return { content: describeReply(id, result) };
		});
	}
}
