import { container } from '@sapphire/framework';
import { announceFeedback, dmThroughRest } from './owner-loop.ts';

/**
 * Tells the owners of new feedback #id from the running service: the system log (LOG_CHANNEL_ID) when set, otherwise
 * a DM to each owner. Nothing without the bot (API-only). Never throws; callers do not wait for it.
 */
export async function announceNewFeedback(id: number): Promise<void> {
	const { bot, client, config, db, logger } = container;
	if (!bot) return;
	await announceFeedback(db.orm.em.fork(), id, {
		logChannel: bot.logChannel ? (line) => bot.systemLog(line) : undefined,
		ownerIds: config.discord.ownerIds,
		dm: (userId, content) => dmThroughRest(client.rest, userId, content),
		warn: (message) => logger.warn(message),
	});
}
