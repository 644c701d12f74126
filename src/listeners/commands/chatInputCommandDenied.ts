import { Events, Listener, type ChatInputCommandDeniedPayload, type UserError } from '@sapphire/framework';
import { deniedMessage } from '../../lib/discord/info-views.ts';
import { send } from '../../lib/discord/reply.ts';

/** Sapphire never answers a denied command, which Discord shows as a failure: say why, privately (cooldown: "try again in N seconds"). */
export class ChatInputCommandDenied extends Listener<typeof Events.ChatInputCommandDenied> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.ChatInputCommandDenied });
	}

	override async run(error: UserError, { interaction }: ChatInputCommandDeniedPayload) {
		if (Reflect.get(Object(error.context), 'silent')) return;
		await send(interaction, { content: deniedMessage(error) }).catch(() => undefined);
	}
}
