import { Events, Listener } from '@sapphire/framework';
import { describeError } from '../../lib/discord/interaction-errors.ts';

/** A gateway connection error; discord.js handles the reconnect. Logged only (not to LOG_CHANNEL_ID). */
export class ShardError extends Listener<typeof Events.ShardError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ShardError });
	}

	override run(error: Error, shardId: number) {
		this.container.logger.warn(`Shard ${shardId} connection error: ${describeError(error)}`);
	}
}
