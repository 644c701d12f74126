import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { respondSoon, updateSoon } from '../lib/discord/reply.ts';
import {
	CLEAR_CANCELLED,
	clearPlan,
	getPlan,
	NOT_YOUR_PLAN,
	parsePlanButton,
	PLAN_PARTS,
	planModal,
	professionalsPrefill,
	renderCleared,
	renderDone,
	renderPlan,
	renderStep,
	touchPlan,
	type PlanButton,
} from '../lib/care/safety-plan.ts';
import { getGuildSettings } from '../lib/settings/guild-settings.ts';
import { getUserSettings, resourceCountry } from '../lib/settings/user-settings.ts';
import { whisper } from '../lib/wellbeing/answer.ts';

/**
 * The buttons of `/safetyplan` (custom id `plan:<action>:<user id>[:<arg>]`): the editing walk (write a part in a
 * modal, skip or go on, done), the clear confirmation, and "show my plan" / "make a plan" on crisis replies and
 * follow-ups, which answer with a new private message and leave the message they are on as it is. Each carries its
 * author's id and is refused to anyone else.
 */
export class SafetyPlanButtons extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const parsed = parsePlanButton(interaction.customId);
		return parsed ? this.some(parsed) : this.none();
	}

	override async run(interaction: ButtonInteraction, button: PlanButton) {
		if (interaction.user.id !== button.userId) return whisper(interaction, NOT_YOUR_PLAN);
		const em = () => this.container.db.orm.em.fork();
		const userId = button.userId;
		switch (button.kind) {
			case 'view':
				return respondSoon(interaction, async () => {
					const plan = await getPlan(em(), userId);
					if (plan) await touchPlan(em(), userId);
					return renderPlan(userId, plan);
				});
			case 'start':
				return respondSoon(interaction, async () => renderStep(userId, 0, await getPlan(em(), userId)));
			case 'write': {
				// A modal must be the first answer: read the part (and, for services, the country) quickly, then show it.
				const plan = await getPlan(em(), userId);
				const part = PLAN_PARTS[button.index];
				if (!part) return updateSoon(interaction, async () => renderDone(plan));
				let current = plan?.[part.key] ?? null;
				if (!current && part.key === 'professionals') {
					const [user, guild] = await Promise.all([
						getUserSettings(em(), userId),
						interaction.guildId ? getGuildSettings(em(), interaction.guildId) : undefined,
					]);
					current = professionalsPrefill(resourceCountry(user, guild));
				}
				return interaction.showModal(planModal(userId, button.index, current));
			}
			case 'step':
				return updateSoon(interaction, async () => renderStep(userId, button.index, await getPlan(em(), userId)));
			case 'done':
				return updateSoon(interaction, async () => renderDone(await getPlan(em(), userId)));
			case 'clear':
				return updateSoon(interaction, async () => (button.confirm ? renderCleared(await clearPlan(em(), userId)) : CLEAR_CANCELLED));
		}
	}
}
