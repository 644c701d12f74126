import { Events, Listener } from '@sapphire/framework';
import { DiscordAPIError, RESTJSONErrorCodes, type Message } from 'discord.js';
import { describeError } from '../../lib/discord/interaction-errors.ts';
import { NO_MENTIONS, type View } from '../../lib/discord/reply.ts';
import { handleMessage, type Delivery } from '../../lib/safety/flows.ts';
import { stripBotMention } from '../../lib/safety/policy.ts';

/**
 * Direct messages to Haven and server messages that mention it: the companion answers, after the crisis screen (see
 * src/lib/safety/flows.ts). Ordinary server messages are never read: a message that is not a DM and does not mention
 * Haven is left before its content is looked at. Bots, webhooks, system messages and Haven's own are ignored.
 * Screening runs once per message: edits are not listened to.
 */
export class MessageCreate extends Listener<typeof Events.MessageCreate> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.MessageCreate });
	}

	/** Counted as work in flight until answered, so a shutdown waits for it (src/lib/discord/in-flight.ts). */
	override run(message: Message) {
		return this.container.discordWork.track(this.#handle(message));
	}

	async #handle(message: Message) {
		const me = this.container.client.user;
		if (!me || message.author.bot || message.webhookId || message.system || message.author.id === me.id) return;
		const inGuild = message.inGuild();
		if (inGuild && !message.mentions.users.has(me.id)) return;
		if (!inGuild && !message.channel.isDMBased()) return;

		const log = this.container.logger;
		const where = inGuild ? 'mention' : 'dm';
		const sendable = message.channel.isSendable() ? message.channel : null;

		const privately = async (content: string | View): Promise<Delivery> => {
			const body = typeof content === 'string' ? { content } : content;
			try {
				if (inGuild) await message.author.send({ ...body, allowedMentions: NO_MENTIONS });
				else if (sendable) await sendable.send({ ...body, allowedMentions: NO_MENTIONS });
				else return 'failed';
				return 'sent';
			} catch (error) {
				if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.CannotSendMessagesToThisUser) return 'closed';
				log.warn(`Could not send a private message (${where}): ${describeError(error)}`);
				return 'failed';
			}
		};

		await handleMessage(
			{
				kind: where,
				authorId: message.author.id,
				channelId: message.channelId,
				guildId: message.guildId,
				text: stripBotMention(message.content, me.id),
				jumpUrl: inGuild ? message.url : null,
				blocked: await this.container.blocks.isBlocked(message.author.id, message.guildId),
			},
			{
				private: privately,
				privateView: privately,
				public: async (content, ping) => {
					if (!sendable) return;
					await sendable.send({ content, allowedMentions: ping ? { parse: [], users: [ping] } : NO_MENTIONS });
				},
				typing: async () => {
					await sendable?.sendTyping();
				},
				answer: async (content) => {
					try {
						if (inGuild) await message.reply({ content, allowedMentions: { parse: [], repliedUser: false } });
						else await sendable?.send({ content, allowedMentions: NO_MENTIONS });
					} catch (error) {
						log.debug(`Could not answer a ${where}: ${describeError(error)}`);
					}
				},
			},
		);
	}
}
