import { Events, Listener, type UnknownChatInputCommandPayload } from '@sapphire/framework';
import { send } from '../../lib/discord/reply.ts';

/** A registered command this build does not have (a stale registration): answer instead of letting it time out. */
export class UnknownChatInputCommand extends Listener<typeof Events.UnknownChatInputCommand> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.UnknownChatInputCommand });
	}

	override async run({ interaction }: UnknownChatInputCommandPayload) {
		this.container.logger.warn(
			`Unknown slash command /${interaction.commandName}: the registration is older than this build (run haven deploy-commands)`,
		);
		await send(interaction, { content: 'That command is not available any more. Try /help for the current ones.' }).catch(() => undefined);
	}
}
