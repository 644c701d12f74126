import { Events, Listener, type AutocompleteInteractionPayload } from '@sapphire/framework';
import { funnelError } from '../../lib/discord/interaction-errors.ts';

/** The error funnel for autocomplete: an empty list of choices, and the log line. */
export class CommandAutocompleteInteractionError extends Listener<typeof Events.CommandAutocompleteInteractionError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.CommandAutocompleteInteractionError });
	}

	override async run(error: unknown, { interaction }: AutocompleteInteractionPayload) {
		await funnelError(interaction, error, this.container.logger);
	}
}
