import type { Command } from '@sapphire/framework';
import { MessageFlags } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderPing } from '../../lib/discord/info-views.ts';
import { NO_MENTIONS } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'ping',
	description: "Check that Haven is responding, with the gateway's and a round trip's latency",
	category: 'Info',
	access: 'everyone',
};

export class PingCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const gatewayMs = this.container.client.ws.ping;
		const response = await interaction.reply({
			...renderPing({ gatewayMs, roundTripMs: null }),
			flags: MessageFlags.Ephemeral,
			allowedMentions: NO_MENTIONS,
			withResponse: true,
		});
		const sent = response.resource?.message;
		if (!sent) return;
		// Discord stamped the reply when it stored it: the time from the user's command to our stored answer.
		await interaction.editReply(renderPing({ gatewayMs, roundTripMs: sent.createdTimestamp - interaction.createdTimestamp }));
	}
}
