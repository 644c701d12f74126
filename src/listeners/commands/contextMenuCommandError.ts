import { Events, Listener, type ContextMenuCommandErrorPayload } from '@sapphire/framework';
import { funnelError } from '../../lib/discord/interaction-errors.ts';

/** The error funnel for context-menu commands. */
export class ContextMenuCommandError extends Listener<typeof Events.ContextMenuCommandError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ContextMenuCommandError });
	}

	override async run(error: unknown, { interaction }: ContextMenuCommandErrorPayload) {
		await funnelError(interaction, error, this.container.logger);
	}
}
