import type { EntityManager } from '@mikro-orm/postgresql';
import { alertedLevels, setAlertMessage } from './events.ts';
import { ALERT_DEDUPE_WINDOW_MS, alertDecision } from './policy.ts';
import { renderAlert, type AlertLevel, type AlertTrigger } from './crisis-views.ts';

/**
 * Moderator alerts: posted to the server's alert channel, deduplicated per person per server per window (an
 * escalation still posts), the optional role the only mention. Decisions for one person in one server are made one at
 * a time (a per-process lock: a server's events always reach the process that runs its shard), so two messages in
 * the same second cannot both post.
 */

export interface AlertMessageBody {
	content: string;
	embeds: unknown[];
	components: unknown[];
	allowed_mentions: { parse: []; roles?: string[] };
}

/** Posts a message to a channel (REST `POST /channels/:id/messages`) and returns the message id. */
export type AlertPoster = (channelId: string, body: AlertMessageBody) => Promise<{ id: string }>;

export interface AlertRequest {
	eventId: number;
	guildId: string;
	userId: string;
	level: AlertLevel;
	trigger: AlertTrigger;
	jumpUrl: string;
	channelId: string;
	roleId: string | null;
}

export type AlertOutcome = 'posted' | 'duplicate' | 'failed';

export interface AlertDeps {
	em: EntityManager;
	post: AlertPoster;
	now?: () => Date;
	windowMs?: number;
	warn?: (message: string) => void;
}

// Holds in a fleet (src/lib/fleet): alerts are per server, and everything that can raise one (a mention, a command, the
// "Check in on this message" menu) arrives on the server's shard, which exactly one instance connects (fleet_shards).
const locks = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier work of the same key (a tiny FIFO mutex; the map never grows past live keys). */
async function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
	const previous = locks.get(key) ?? Promise.resolve();
	const run = previous.then(work, work);
	const tail = run.catch(() => undefined);
	locks.set(key, tail);
	try {
		return await run;
	} finally {
		if (locks.get(key) === tail) locks.delete(key);
	}
}

export function alertBody(request: AlertRequest): AlertMessageBody {
	const view = renderAlert({
		eventId: request.eventId,
		level: request.level,
		trigger: request.trigger,
		jumpUrl: request.jumpUrl,
		roleId: request.roleId,
	});
	return {
		content: view.content,
		embeds: view.embeds ?? [],
		components: view.components ?? [],
		allowed_mentions: request.roleId ? { parse: [], roles: [request.roleId] } : { parse: [] },
	};
}

/** Posts the alert unless one about this person in this server was posted within the window at the same or a higher level. */
export async function sendAlert(request: AlertRequest, deps: AlertDeps): Promise<AlertOutcome> {
	const now = deps.now ?? (() => new Date());
	const windowMs = deps.windowMs ?? ALERT_DEDUPE_WINDOW_MS;
	return serialized(`${request.guildId}:${request.userId}`, async () => {
		const previous = await alertedLevels(deps.em, request.guildId, request.userId, new Date(now().getTime() - windowMs));
		if (alertDecision(previous, request.level) === 'duplicate') return 'duplicate';
		let messageId: string;
		try {
			({ id: messageId } = await deps.post(request.channelId, alertBody(request)));
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			deps.warn?.(
				`Could not post a crisis alert in server ${request.guildId} (channel ${request.channelId}${code === undefined ? '' : `, Discord code ${String(code)}`}): check /guildsettings`,
			);
			return 'failed';
		}
		await setAlertMessage(deps.em, request.eventId, messageId);
		return 'posted';
	});
}
