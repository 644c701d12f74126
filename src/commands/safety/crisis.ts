import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { countryChoices, INTERNATIONAL, normalizeCountry } from '../../lib/crisis/resources.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { send } from '../../lib/discord/reply.ts';
import { crisisCommand } from '../../lib/safety/flows.ts';

export const definition: CommandDefinition = {
	name: 'crisis',
	description: 'Free, confidential crisis lines for your country, only visible to you',
	category: 'Safety',
	access: 'everyone',
	neverBlocked: true,
	// No cooldown, on purpose: a person in crisis must never be told to wait. The reply is deterministic and cheap.
	cooldownSeconds: 0,
	help: 'Add what is going on if you like; it is never shared with anyone.',
	options: [
		{
			type: ApplicationCommandOptionType.String,
			name: 'message',
			description: "What's going on, if you want to say (only you see the answer)",
			required: false,
			max_length: 1_000,
		},
		{
			type: ApplicationCommandOptionType.String,
			name: 'country',
			description: 'Show the lines of this country (default: yours, else the server’s, else worldwide)',
			required: false,
			choices: countryChoices(),
		},
	],
};

export class CrisisCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const country = interaction.options.getString('country');
		await crisisCommand(
			{
				userId: interaction.user.id,
				guildId: interaction.guildId,
				channelId: interaction.channelId,
				text: interaction.options.getString('message'),
				country: country === INTERNATIONAL ? INTERNATIONAL : normalizeCountry(country),
			},
			{
				reply: (content) => send(interaction, { content }),
				followUp: (content) => send(interaction, { content }),
				followUpView: (view) => send(interaction, view),
			},
		);
	}
}
