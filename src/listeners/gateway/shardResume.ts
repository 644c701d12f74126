import { Events, Listener } from '@sapphire/framework';

/** A shard resumed its session (counted for /v1/status by the ShardTracker). */
export class ShardResume extends Listener<typeof Events.ShardResume> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ShardResume });
	}

	override run(shardId: number, replayedEvents: number) {
		this.container.bot?.systemLog(`Shard ${shardId} resumed (${replayedEvents} missed event${replayedEvents === 1 ? '' : 's'} replayed).`);
	}
}
