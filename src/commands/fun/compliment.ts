import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, GuildMember } from 'discord.js';
import { aiSafetyIdentifier } from '../../lib/companion/companion.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { compliment, renderCompliment } from '../../lib/wellbeing/fun.ts';
import { answerSoon, FEATURE_OFF, featureOn } from '../../lib/wellbeing/answer.ts';

export const definition: CommandDefinition = {
	name: 'compliment',
	description: 'A kind compliment, for you or for another member',
	category: 'Fun',
	access: 'everyone',
	cooldownSeconds: 5,
	help: 'For someone else, it shows their display name without pinging them.',
	options: [
		{
			type: ApplicationCommandOptionType.User,
			name: 'member',
			description: 'Who the compliment is for (default: you). They are not pinged.',
			required: false,
		},
	],
};

export class ComplimentCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		if (!(await featureOn(interaction.guildId, 'games'))) return send(interaction, { content: FEATURE_OFF.games });
		const target = interaction.options.getUser('member');
		const member = interaction.options.getMember('member');
		const self =
			interaction.member instanceof GuildMember
				? interaction.member.displayName
				: ((interaction.member as { nick?: string | null } | null)?.nick ?? interaction.user.displayName);
		const targetName =
			!target || target.id === interaction.user.id
				? null
				: member instanceof GuildMember
					? member.displayName
					: ((member as { nick?: string | null } | null)?.nick ?? target.displayName);
		const { ai, aiIdentifierKey } = this.container;
		await answerSoon(
			interaction,
			async () =>
				renderCompliment(await compliment(ai, aiSafetyIdentifier(interaction.user.id, aiIdentifierKey)), {
					targetName,
					fromName: self,
				}),
			{ ephemeral: false },
		);
	}
}
