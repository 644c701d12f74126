import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ModalSubmitInteraction } from 'discord.js';
import { NO_MENTIONS, send } from '../lib/discord/reply.ts';
import { getPlan, NOT_YOUR_PLAN, parsePlanModal, PLAN_FIELD, PLAN_PARTS, renderStep, savePart } from '../lib/care/safety-plan.ts';
import { recordScreened, screenPrivately } from '../lib/safety/screen-command-text.ts';
import { whisper } from '../lib/wellbeing/answer.ts';

/**
 * One part of a safety plan, written in its modal (custom id `plan-modal:<user id>:<part>`). The text is screened by the
 * rules (a plan names warning signs and means on purpose, which the learned model would read as a crisis): a crisis
 * written into the plan gets the resources first, privately, then the part is saved (encrypted) and the walk goes on to
 * the next part. An empty box clears the part.
 */
export class SafetyPlanModal extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.ModalSubmit });
	}

	override parse(interaction: ModalSubmitInteraction) {
		const parsed = parsePlanModal(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ModalSubmitInteraction, { userId, index }: { userId: string; index: number }) {
		if (interaction.user.id !== userId) return whisper(interaction, NOT_YOUR_PLAN);
		const em = () => this.container.db.orm.em.fork();
		const deps = { em, warn: (m: string) => this.container.logger.warn(m) };
		const text = interaction.fields.getTextInputValue(PLAN_FIELD);
		const screened = await screenPrivately(text, { userId, guildId: interaction.guildId }, deps, { rulesOnly: true });
		if (screened) await send(interaction, { content: screened.resources });
		await savePart(em(), userId, PLAN_PARTS[index]!.key, text);
		const saved = `Saved part ${index + 1}${text.trim() ? '' : ' (left empty)'}.`;
		const next = renderStep(userId, index + 1, await getPlan(em(), userId), saved);
		if (!screened && interaction.isFromMessage()) await interaction.update({ ...next, allowedMentions: NO_MENTIONS });
		else await send(interaction, next);
		if (screened) await recordScreened(screened, interaction.guildId, deps);
	}
}
