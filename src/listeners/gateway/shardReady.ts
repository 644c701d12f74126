import { Events, Listener } from '@sapphire/framework';

/** A shard identified again after the client was ready (a new session, not a resume). */
export class ShardReady extends Listener<typeof Events.ShardReady> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ShardReady });
	}

	override run(shardId: number) {
		if (this.container.client.isReady()) this.container.bot?.systemLog(`Shard ${shardId} is ready again (new session).`);
	}
}
