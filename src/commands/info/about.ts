import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderAbout } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

export const definition: CommandDefinition = {
	name: 'about',
	description: 'What Haven is, its version, uptime and links',
	category: 'Info',
	access: 'everyone',
};

export class AboutCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const { client, version, startedAt, config } = this.container;
		await send(
			interaction,
			renderAbout({
				version,
				uptimeSeconds: (Date.now() - startedAt.getTime()) / 1000,
				guilds: client.guilds.cache.size,
				shards: client.ws.shards.size,
				urls: config.urls,
			}),
		);
	}
}
