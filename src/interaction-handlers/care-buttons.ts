import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { renderResourcesOnly } from '../lib/crisis/resources.ts';
import { NO_MENTIONS, respondSoon, send, updateSoon } from '../lib/discord/reply.ts';
import {
	ANSWER_REPLIES,
	cancelFollowUp,
	NOT_YOUR_CHECK_IN,
	parseCareButton,
	renderFollowUpCancelled,
	renderFollowUpScheduled,
	renderWorseFollowUp,
	scheduleFollowUp,
	type CareButton,
} from '../lib/care/follow-ups.ts';
import { hasPlan } from '../lib/care/safety-plan.ts';
import { getUserSettings, resourceCountry } from '../lib/settings/user-settings.ts';
import { whisper } from '../lib/wellbeing/answer.ts';

/**
 * The care buttons (custom id `care:<action>:<user id>[:<arg>]`): "Check on me ..." on a crisis reply schedules the
 * follow-up (only on this press: never without it), "Cancel the check-in" deletes it, and Better / About the same /
 * Worse on the follow-up DM answer it. Nothing of the answer is stored; "worse" gets the resources again and the offer
 * to talk. Each carries its author's id and is refused to anyone else.
 */
export class CareButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parseCareButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: CareButton) {
		if (interaction.user.id !== button.userId) return whisper(interaction, NOT_YOUR_CHECK_IN);
		const em = () => this.container.db.orm.em.fork();
		const userId = button.userId;
		switch (button.kind) {
			case 'follow':
				return respondSoon(interaction, async () =>
					renderFollowUpScheduled(userId, await scheduleFollowUp(em(), userId, button.choice, new Date())),
				);
			case 'cancel':
				return updateSoon(interaction, async () => renderFollowUpCancelled(await cancelFollowUp(em(), userId)));
			case 'answer': {
				const said = { better: 'Better', same: 'About the same', worse: 'Worse' }[button.answer];
				const embeds = interaction.message.embeds.map((embed) => embed.toJSON());
				if (button.answer !== 'worse') {
					await interaction.update({
						content: `You said: **${said}**. ${ANSWER_REPLIES[button.answer]}`,
						embeds,
						components: [],
						allowedMentions: NO_MENTIONS,
					});
					return;
				}
				await interaction.update({ content: `You said: **${said}**.`, embeds, components: [], allowedMentions: NO_MENTIONS });
				const user = await getUserSettings(em(), userId);
				await send(interaction, { content: renderResourcesOnly(resourceCountry(user, undefined)) });
				await send(interaction, renderWorseFollowUp(userId, await hasPlan(em(), userId).catch(() => false)));
				return;
			}
		}
	}
}
