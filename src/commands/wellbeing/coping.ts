import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { aiSafetyIdentifier } from '../../lib/companion/companion.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { COPING, COPING_KINDS, copingExercise, FEELING_MAX_LENGTH, renderCoping, type CopingKind } from '../../lib/wellbeing/coping.ts';
import { answerSoon } from '../../lib/wellbeing/answer.ts';
import { recordScreened, screenPrivately } from '../../lib/safety/screen-command-text.ts';

export const definition: CommandDefinition = {
	name: 'coping',
	description: 'Small coping exercises: breathing, grounding, affirmations and more',
	category: 'Wellbeing',
	access: 'everyone',
	cooldownSeconds: 8,
	help: 'Tell it how you feel to get one adapted to you (with AI when available). Only you see it unless you choose public.',
	options: COPING_KINDS.map((kind) => ({
		type: ApplicationCommandOptionType.Subcommand as const,
		name: kind,
		description: COPING[kind].description,
		options: [
			{
				type: ApplicationCommandOptionType.String as const,
				name: 'feeling',
				description: 'How are you feeling? (optional; adapts the exercise, never shown)',
				required: false,
				max_length: FEELING_MAX_LENGTH,
			},
			{
				type: ApplicationCommandOptionType.Boolean as const,
				name: 'public',
				description: 'Show the exercise in the channel (default: only you)',
				required: false,
			},
		],
	})),
};

export class CopingCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const kind = interaction.options.getSubcommand(true) as CopingKind;
		if (!COPING_KINDS.includes(kind)) throw new Error(`unknown /coping subcommand ${kind}`);
		const feeling = interaction.options.getString('feeling')?.trim().slice(0, FEELING_MAX_LENGTH) || null;
		const deps = { em: () => this.em(), warn: (m: string) => this.container.logger.warn(m) };
		// A feeling that screens as a possible crisis: resources first, privately; the exercise follows, private too.
		const screened = await screenPrivately(feeling, { userId: interaction.user.id, guildId: interaction.guildId }, deps);
		if (screened) await send(interaction, { content: screened.resources });
		const shownPublicly = !screened && interaction.options.getBoolean('public') === true;
		const { aiIdentifierKey, ai } = this.container;
		await answerSoon(
			interaction,
			async () => {
				const exercise = await copingExercise(ai, {
					kind,
					feeling,
					shownPublicly,
					careful: screened !== null,
					user: aiSafetyIdentifier(interaction.user.id, aiIdentifierKey),
				});
				return renderCoping(kind, exercise);
			},
			{ ephemeral: !shownPublicly },
		);
		if (screened) await recordScreened(screened, interaction.guildId, deps);
	}
}
