import { Events, Listener, type ChatInputCommandErrorPayload } from '@sapphire/framework';
import { funnelError } from '../../lib/discord/interaction-errors.ts';

/** The error funnel for slash commands (src/lib/discord/interaction-errors.ts). */
export class ChatInputCommandError extends Listener<typeof Events.ChatInputCommandError> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ChatInputCommandError });
	}

	override async run(error: unknown, { interaction }: ChatInputCommandErrorPayload) {
		await funnelError(interaction, error, this.container.logger);
	}
}
