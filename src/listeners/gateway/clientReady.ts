import { Events, Listener } from '@sapphire/framework';
import type { Client } from 'discord.js';

/** Every shard is ready (discord.js emits it once per login): the startup line (log and LOG_CHANNEL_ID), the bot-list integration, the server table. */
export class ClientReady extends Listener<typeof Events.ClientReady> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ClientReady });
	}

	override async run(client: Client<true>) {
		this.container.client.id ??= client.user.id;
		await this.container.bot?.ready(client);
	}
}
