import { Events, Listener } from '@sapphire/framework';
import type { CloseEvent } from 'discord.js';

/** A shard closed for good (an unrecoverable close code, such as an invalid token or disallowed intents). */
export class ShardDisconnect extends Listener<typeof Events.ShardDisconnect> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ShardDisconnect });
	}

	override run(event: CloseEvent, shardId: number) {
		this.container.logger.error(`Shard ${shardId} disconnected and will not reconnect (close code ${event.code})`);
		this.container.bot?.logChannel?.post(`Shard ${shardId} disconnected and will not reconnect (close code ${event.code}).`);
	}
}
