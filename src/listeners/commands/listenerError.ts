import { Events, Listener, type ListenerErrorPayload } from '@sapphire/framework';
import { describeError, newErrorId } from '../../lib/discord/interaction-errors.ts';

/** A listener failed (Sapphire's default is off: it would log the error's message, which may quote user content). */
export class ListenerError extends Listener<typeof Events.ListenerError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ListenerError });
	}

	override run(error: unknown, { piece }: ListenerErrorPayload) {
		this.container.logger.error(`Listener ${piece.name} (${String(piece.event)}) failed [error ${newErrorId()}]: ${describeError(error)}`);
	}
}
