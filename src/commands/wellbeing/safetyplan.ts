import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { getPlan, hasPlan, renderClearConfirm, renderPlan, renderStep, touchPlan } from '../../lib/care/safety-plan.ts';

export const definition: CommandDefinition = {
	name: 'safetyplan',
	description: 'Your safety plan: what helps when things get hard, in your own words (only you see it)',
	category: 'Wellbeing',
	access: 'everyone',
	// No cooldown: reading one's plan in a hard moment must never be told to wait; every answer is private and cheap.
	cooldownSeconds: 0,
	help: 'Seven short parts, each optional; stored encrypted. When you reach out to Haven in a hard moment, it offers you your plan.',
	options: [
		{ type: ApplicationCommandOptionType.Subcommand, name: 'view', description: 'Show your safety plan (only you see it)' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'edit', description: 'Write or change your plan, one part at a time' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'clear', description: 'Delete your safety plan (asks to confirm)' },
	],
};

export class SafetyplanCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		const userId = interaction.user.id;
		if (sub === 'clear') return respondSoon(interaction, async () => renderClearConfirm(userId, await hasPlan(this.em(), userId)));
		if (sub === 'edit') return respondSoon(interaction, async () => renderStep(userId, 0, await getPlan(this.em(), userId)));
		return respondSoon(interaction, async () => {
			const plan = await getPlan(this.em(), userId);
			if (plan) await touchPlan(this.em(), userId);
			return renderPlan(userId, plan);
		});
	}
}
