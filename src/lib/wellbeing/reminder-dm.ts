import type { EntityManager } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import type { Client } from 'discord.js';
import { describeError } from '../discord/interaction-errors.ts';
import { NO_MENTIONS } from '../discord/reply.ts';
import { reminderStore } from './reminder-store.ts';
import { createReminderScheduler, renderReminderDm, type ReminderDelivery, type ReminderLog, type ReminderScheduler } from './reminders.ts';

declare module '@sapphire/pieces' {
	interface Container {
		/** The check-in reminder scheduler; undefined in API-only mode. */
		reminders?: ReminderScheduler;
	}
}

/** Discord's codes that mean "this person cannot get a DM from the bot": cannot send to this user, unknown user. */
const UNREACHABLE = new Set([50007, 10013]);

/** Sends the reminder DM through the client: 'closed' when Discord refuses the DM for good. */
export function reminderSender(client: Client, log: ReminderLog): (userId: string) => Promise<ReminderDelivery> {
	return async (userId) => {
		try {
			const channel = await client.users.createDM(userId);
			await channel.send({ ...renderReminderDm(), allowedMentions: NO_MENTIONS });
			return 'sent';
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			if (typeof code === 'number' && UNREACHABLE.has(code)) return 'closed';
			log.warn(`Check-in reminder DM failed: ${describeError(error)}`);
			return 'failed';
		}
	};
}

/** The scheduler as the service runs it: the database, the Discord client, the real clock, a tick a minute. */
export function startReminderScheduler(client: Client, em: () => EntityManager, log: ReminderLog = container.logger): ReminderScheduler {
	const scheduler = createReminderScheduler({ store: reminderStore(em), send: reminderSender(client, log), log });
	scheduler.start();
	return scheduler;
}
