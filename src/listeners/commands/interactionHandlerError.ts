import { Events, Listener, type InteractionHandlerError as Payload } from '@sapphire/framework';
import { funnelError } from '../../lib/discord/interaction-errors.ts';

/** The error funnel for buttons, select menus and modals (their `run`). */
export class InteractionHandlerError extends Listener<typeof Events.InteractionHandlerError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.InteractionHandlerError });
	}

	override async run(error: unknown, { interaction }: Payload) {
		await funnelError(interaction, error, this.container.logger);
	}
}
