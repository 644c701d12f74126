import { Events, Listener } from '@sapphire/framework';

/** The gateway connection of a shard dropped; discord.js reconnects (and resumes when it can). */
export class ShardReconnecting extends Listener<typeof Events.ShardReconnecting> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ShardReconnecting });
	}

	override run(shardId: number) {
		this.container.bot?.systemLog(`Shard ${shardId} lost its gateway connection; reconnecting.`);
	}
}
