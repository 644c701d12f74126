import { Events, Listener } from '@sapphire/framework';
import type { Message } from 'discord.js';
import { describeError } from '../../lib/discord/interaction-errors.ts';
import { recordServed } from '../../lib/operations/served.ts';

/**
 * A DM to Haven or a message mentioning it counts its author as served (src/lib/operations/served.ts). The same
 * filter as the messages listener: other server messages are left without being read.
 */
export class ServedMessage extends Listener<typeof Events.MessageCreate> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.MessageCreate });
	}

	override async run(message: Message) {
		const me = this.container.client.user;
		if (!me || message.author.bot || message.webhookId || message.system || message.author.id === me.id) return;
		if (message.inGuild() ? !message.mentions.users.has(me.id) : !message.channel.isDMBased()) return;
		await recordServed(this.container.db.orm.em.fork(), message.author.id).catch((error: unknown) =>
			this.container.logger.warn(`Could not record a served person: ${describeError(error)}`),
		);
	}
}
