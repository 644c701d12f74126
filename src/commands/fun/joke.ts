import type { Command } from '@sapphire/framework';
import { aiSafetyIdentifier } from '../../lib/companion/companion.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { joke, renderJoke } from '../../lib/wellbeing/fun.ts';
import { answerSoon, FEATURE_OFF, featureOn } from '../../lib/wellbeing/answer.ts';

export const definition: CommandDefinition = {
	name: 'joke',
	description: 'A short, kind, clean joke',
	category: 'Fun',
	access: 'everyone',
	cooldownSeconds: 5,
	help: 'Posted in the channel.',
};

export class JokeCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!(await featureOn(interaction.guildId, 'games'))) return send(interaction, { content: FEATURE_OFF.games });
		const { ai, aiIdentifierKey } = this.container;
		await answerSoon(interaction, async () => renderJoke(await joke(ai, aiSafetyIdentifier(interaction.user.id, aiIdentifierKey))), {
			ephemeral: false,
		});
	}
}
