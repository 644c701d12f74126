import { Events, Listener, type ContextMenuCommandDeniedPayload, type UserError } from '@sapphire/framework';
import { deniedMessage } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

/** As chatInputCommandDenied, for context-menu commands. */
export class ContextMenuCommandDenied extends Listener<typeof Events.ContextMenuCommandDenied> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ContextMenuCommandDenied });
	}

	override async run(error: UserError, { interaction }: ContextMenuCommandDeniedPayload) {
		if (Reflect.get(Object(error.context), 'silent')) return;
		if (interaction.isRepliable()) await send(interaction, { content: deniedMessage(error) }).catch(() => undefined);
	}
}
