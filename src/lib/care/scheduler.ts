import type { EntityManager } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { Routes, type APIMessage, type Client } from 'discord.js';
import { periodic } from '../core/periodic.ts';
import { describeError } from '../discord/interaction-errors.ts';
import { NO_MENTIONS } from '../discord/reply.ts';
import type { AlertPoster } from '../safety/alerts.ts';
import { inQuietHours, localMinutes, outsideQuietHours } from '../wellbeing/reminders.ts';
import { escalateAlerts } from './escalation.ts';
import { followUpStore, renderFollowUpDm, type FollowUpStore } from './follow-ups.ts';

declare module '@sapphire/pieces' {
	interface Container {
		/** Follow-ups after a crisis and unacknowledged-alert reminders; undefined in API-only mode. */
		care?: CareScheduler;
	}
}

/**
 * One tick a minute for care after a crisis: the follow-up DMs that are due (one send per follow-up, claimed by a
 * compare-and-set; inside quiet hours they move to their end; Discord's "cannot DM" drops them quietly; another
 * failure tries again in 15 minutes), then the alerts due to be raised again. The clock is the caller's, so tests move
 * time explicitly with `tick(at)`.
 */

export type CareDelivery = 'sent' | 'closed' | 'failed';

export interface CareLog {
	warn(message: string): void;
	error(message: string): void;
}

export interface CareSchedulerOptions {
	followUps: FollowUpStore;
	/** Sends the follow-up DM; never throws. */
	send(userId: string): Promise<CareDelivery>;
	em(): EntityManager;
	post: AlertPoster;
	log: CareLog;
	now?: () => Date;
	intervalMs?: number;
}

export interface CareTick {
	sent: number;
	closed: number;
	failed: number;
	deferred: number;
	lost: number;
	escalated: number;
}

export interface CareScheduler {
	start(): void;
	stop(): Promise<void>;
	/** One pass at `at` (default: the clock). Concurrent calls share the pass in progress. */
	tick(at?: Date): Promise<CareTick>;
}

export const CARE_TICK_MS = 60_000;
export const RETRY_AFTER_MS = 15 * 60_000;

export function createCareScheduler(options: CareSchedulerOptions): CareScheduler {
	const job = periodic(pass, {
		intervalMs: options.intervalMs ?? CARE_TICK_MS,
		now: options.now,
		onError: (error) => options.log.error(`Care scheduler: a tick failed (${describeError(error)})`),
	});

	async function pass(at: Date): Promise<CareTick> {
		const result: CareTick = { sent: 0, closed: 0, failed: 0, deferred: 0, lost: 0, escalated: 0 };
		for (const due of await options.followUps.due(at, 100)) {
			if (job.stopped) break;
			if (due.timezone && inQuietHours(localMinutes(at, due.timezone), due.quiet)) {
				if (await options.followUps.defer(due.userId, due.dueAt, outsideQuietHours(at, due.timezone, due.quiet))) result.deferred++;
				else result.lost++;
				continue;
			}
			if (!(await options.followUps.claim(due.userId, due.dueAt))) {
				result.lost++;
				continue;
			}
			const delivery = await options.send(due.userId).catch((): CareDelivery => 'failed');
			result[delivery === 'sent' ? 'sent' : delivery === 'closed' ? 'closed' : 'failed']++;
			if (delivery === 'failed') await options.followUps.retry(due.userId, new Date(at.getTime() + RETRY_AFTER_MS));
		}
		if (result.failed) options.log.warn(`Care follow-ups: ${result.failed} could not be delivered; tried again in 15 minutes`);
		if (!job.stopped) {
			result.escalated = await escalateAlerts({ em: options.em, post: options.post, warn: (m) => options.log.warn(m) }, at).catch(
				(error: unknown) => {
					options.log.error(`Alert reminders failed: ${describeError(error)}`);
					return 0;
				},
			);
		}
		return result;
	}

	return job;
}

/** Discord's codes for "this person cannot get a DM from the bot": cannot send to this user, unknown user. */
const UNREACHABLE = new Set([50007, 10013]);

export function followUpSender(client: Client, log: CareLog): (userId: string) => Promise<CareDelivery> {
	return async (userId) => {
		try {
			const channel = await client.users.createDM(userId);
			await channel.send({ ...renderFollowUpDm(userId), allowedMentions: NO_MENTIONS });
			return 'sent';
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			if (typeof code === 'number' && UNREACHABLE.has(code)) return 'closed';
			log.warn(`Care follow-up DM failed: ${describeError(error)}`);
			return 'failed';
		}
	};
}

/** The scheduler as the service runs it: the database, the Discord client, the real clock, a tick a minute. */
export function startCareScheduler(client: Client, em: () => EntityManager, log: CareLog = container.logger): CareScheduler {
	const scheduler = createCareScheduler({
		followUps: followUpStore(em),
		send: followUpSender(client, log),
		em,
		post: async (channelId, body) => (await client.rest.post(Routes.channelMessages(channelId), { body })) as APIMessage,
		log,
	});
	scheduler.start();
	return scheduler;
}
