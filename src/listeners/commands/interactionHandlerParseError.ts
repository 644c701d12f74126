import { Events, Listener, type InteractionHandlerParseError as Payload } from '@sapphire/framework';
import { funnelError } from '../../lib/discord/interaction-errors.ts';

/** The error funnel for buttons, select menus and modals (their `parse`). */
export class InteractionHandlerParseError extends Listener<typeof Events.InteractionHandlerParseError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.InteractionHandlerParseError });
	}

	override async run(error: unknown, { interaction }: Payload) {
		await funnelError(interaction, error, this.container.logger);
	}
}
