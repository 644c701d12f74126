import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { Routes, type APIMessage } from 'discord.js';
import type { Ai } from '../ai/index.ts';
import { companionTurn, recordConversation, type CompanionDeps } from '../companion/companion.ts';
import { renderCrisisReply } from '../crisis/resources.ts';
import { mergeModeration, screen, type Assessment, type ModerationScores } from '../crisis/screen.ts';
import { describeError } from '../discord/interaction-errors.ts';
import { countCrisisScreen } from '../operations/metrics.ts';
import { DEFAULT_GUILD_SETTINGS, getGuildSettings, type GuildSettings } from '../settings/guild-settings.ts';
import { DEFAULT_USER_SETTINGS, getUserSettings, resourceCountry, type UserSettings } from '../settings/user-settings.ts';
import { BLOCKED_MESSAGE, refuseNow } from '../operations/blocks.ts';
import { sendAlert, type AlertOutcome, type AlertPoster } from './alerts.ts';
import { recordCrisisEvent, type NewCrisisEvent } from './events.ts';
import { renderCareOffer } from '../care/follow-ups.ts';
import { hasPlan } from '../care/safety-plan.ts';
import type { View } from '../discord/reply.ts';
import {
	alertsConfigured,
	atLeast,
	AUTHOR_OFFER_WINDOW_MS,
	eventDetails,
	MODERATION_TIMEOUT_MS,
	NO_RISK,
	SETTINGS_TIMEOUT_MS,
	within,
	worryAbout,
} from './policy.ts';
import {
	BOT_MESSAGE_CHECK_IN,
	renderAuthorOffer,
	renderCheckInReply,
	renderCrisisCommandReply,
	renderDmsClosed,
	renderSentPrivately,
} from './crisis-views.ts';

/**
 * The safety system's flows: a triggering message (a DM, a mention, `/crisis`, the message context menu) is screened
 * once, and when it may be about a crisis:
 *   1. the person concerned gets the deterministic resources privately, first (nothing waits before it but reading
 *      settings, bounded, and the AI moderation pass, started with the screen and bounded);
 *   2. a crisis event is recorded;
 *   3. in a server with alerts on, the moderators get an alert (deduplicated); and, concurrently,
 *   4. the AI reply, told to be careful, is sent after the resources (only when the AI really answered).
 * The pieces (listener, commands) give each flow its ways to answer; the flows know nothing of discord.js objects.
 */

export interface SafetyLog {
	debug(message: string): void;
	warn(message: string): void;
	error(message: string): void;
}

export interface SafetyDeps {
	/** A fresh EntityManager (one per use). */
	em(): EntityManager;
	ai: Ai;
	companion: CompanionDeps;
	post: AlertPoster;
	log: SafetyLog;
	now(): Date;
}

/**
 * Emitted when a flow has finished all its work (resources, event, alert, AI reply): for tests and metrics. The
 * outcomes hold levels, ids and delivery states, never text.
 */
export const safetyOutcomes = new EventEmitter<{ message: [MessageOutcome]; command: [CommandOutcome]; checkIn: [CheckInOutcome] }>();

export function containerSafetyDeps(): SafetyDeps {
	const { client, db, ai, logger, aiIdentifierKey } = container;
	return {
		em: () => db.orm.em.fork(),
		ai,
		companion: { ai, identifierKey: aiIdentifierKey, memory: { em: () => db.orm.em.fork() } },
		post: async (channelId, body) => (await client.rest.post(Routes.channelMessages(channelId), { body })) as APIMessage,
		log: logger,
		now: () => new Date(),
	};
}

/** Settings of the person and the server, never holding the reply back long: defaults when the database is slow or down. */
async function loadSettings(deps: SafetyDeps, userId: string, guildId: string | null): Promise<{ user: UserSettings; guild: GuildSettings }> {
	const note = (what: string) => (reason: 'timeout' | 'error', error?: unknown) =>
		deps.log.warn(`Safety: ${what} settings unavailable (${reason}${error ? `: ${describeError(error)}` : ''}); defaults used`);
	const [user, guild] = await Promise.all([
		within(getUserSettings(deps.em(), userId), SETTINGS_TIMEOUT_MS, { ...DEFAULT_USER_SETTINGS }, note('user')),
		guildId ? within(getGuildSettings(deps.em(), guildId), SETTINGS_TIMEOUT_MS, DEFAULT_GUILD_SETTINGS, note('server')) : DEFAULT_GUILD_SETTINGS,
	]);
	return { user, guild };
}

/**
 * The AI moderation pass, started for every screened message while the deterministic screen runs (when an AI key is
 * set). Its result may raise the level, never lower it; a failure or a timeout resolves to null, which changes nothing.
 */
function startModeration(deps: SafetyDeps, text: string): Promise<ModerationScores | null> {
	if (!deps.ai.configured || !text.trim()) return Promise.resolve(null);
	return within(deps.ai.moderate(text, { timeoutMs: MODERATION_TIMEOUT_MS }), MODERATION_TIMEOUT_MS + 250, null);
}

async function record(deps: SafetyDeps, event: NewCrisisEvent): Promise<number | undefined> {
	try {
		return await recordCrisisEvent(deps.em(), event);
	} catch (error) {
		deps.log.error(`Safety: could not record a crisis event (${event.trigger}): ${describeError(error)}`);
		return undefined;
	}
}

async function countConversation(deps: SafetyDeps, userId: string, guildId: string | null): Promise<void> {
	await recordConversation(deps.em(), { userId, guildId }).catch((error: unknown) =>
		deps.log.warn(`Could not record a conversation: ${describeError(error)}`),
	);
}

async function alert(
	deps: SafetyDeps,
	settings: GuildSettings,
	request: Omit<Parameters<typeof sendAlert>[0], 'channelId' | 'roleId'>,
): Promise<AlertOutcome | undefined> {
	try {
		return await sendAlert(
			{ ...request, channelId: settings.alertChannelId!, roleId: settings.alertRoleId },
			{ em: deps.em(), post: deps.post, now: deps.now, warn: (m) => deps.log.warn(m) },
		);
	} catch (error) {
		deps.log.error(`Safety: alert failed in server ${request.guildId}: ${describeError(error)}`);
		return 'failed';
	}
}

/**
 * After the crisis reply went out, never before: the person's safety plan when they have one (else the offer to make
 * one) and "Check on me later". Reading whether there is a plan is bounded: on a slow database, the offer to make one.
 */
async function offerCare(deps: SafetyDeps, userId: string, send: ((view: View) => Promise<unknown>) | undefined): Promise<CareOffered | undefined> {
	if (!send) return undefined;
	try {
		const withPlan = await within(hasPlan(deps.em(), userId), SETTINGS_TIMEOUT_MS, false);
		const delivered = await send(renderCareOffer(userId, withPlan));
		if (delivered !== undefined && delivered !== 'sent') return undefined;
		return withPlan ? 'plan' : 'make-plan';
	} catch (error) {
		deps.log.warn(`Safety: the care offer failed: ${describeError(error)}`);
		return undefined;
	}
}

/** What the care offer after a crisis reply held: the person's plan, or the offer to make one. */
export type CareOffered = 'plan' | 'make-plan';

const settle = async (deps: SafetyDeps, what: string, work: Promise<unknown>) => {
	try {
		await work;
	} catch (error) {
		deps.log.error(`Safety: ${what} failed: ${describeError(error)}`);
	}
};

// ---------------------------------------------------------------------------------------------------------------------
// Direct messages and mentions

export interface IncomingMessage {
	kind: 'dm' | 'mention';
	authorId: string;
	channelId: string;
	guildId: string | null;
	/** The message's text, the bot's mention removed. */
	text: string;
	/** The message's link (mentions; for alerts). */
	jumpUrl: string | null;
	/**
	 * The author or the server is blocked (src/lib/operations/blocks.ts): the screen and the resources still run, but
	 * the companion does not answer (a polite refusal instead, privately, now and then) and no careful AI reply follows.
	 */
	blocked?: boolean;
}

export type Delivery = 'sent' | 'closed' | 'failed';

export interface MessageReplies {
	/** Privately: in the DM itself, or (a mention) a new DM to the author. 'closed': Discord refused with 50007. */
	private(content: string): Promise<Delivery>;
	/** Privately, a message with buttons (the care offer after the crisis reply); absent: no offer. */
	privateView?(view: View): Promise<Delivery>;
	/** In the mention's channel, not as a reply (no quote); pings only `ping`, when given. */
	public(content: string, ping?: string): Promise<void>;
	/** The companion's ordinary answer where the message was written. */
	answer(content: string): Promise<void>;
	/** Shows "Haven is typing" where the answer will go (lasts ~10 s on Discord). */
	typing?(): Promise<void>;
}

/** Keeps the typing indicator up while the AI works: Discord shows it for about 10 s per call. */
async function whileTyping<T>(replies: MessageReplies, work: Promise<T>): Promise<T> {
	if (!replies.typing) return work;
	const show = () => void replies.typing!().catch(() => undefined);
	show();
	const timer = setInterval(show, 8_000);
	try {
		return await work;
	} finally {
		clearInterval(timer);
	}
}

export interface MessageOutcome {
	level: Assessment['level'];
	screened: boolean;
	resources: Delivery | 'none';
	eventId?: number;
	alert?: AlertOutcome;
	aiReply: boolean;
	/** The care offer sent after the resources, if any. */
	care?: CareOffered;
}

export async function handleMessage(
	message: IncomingMessage,
	replies: MessageReplies,
	deps: SafetyDeps = containerSafetyDeps(),
): Promise<MessageOutcome> {
	const { user, guild } = await loadSettings(deps, message.authorId, message.guildId);
	const screened = !user.screeningOptOut;
	const moderation = screened ? startModeration(deps, message.text) : Promise.resolve(null);
	let assessment = screened ? screen(message.text) : NO_RISK;
	if (screened) countCrisisScreen(assessment.level, 'message');
	// Nothing found: the moderation pass decides whether this is a crisis before anything is answered.
	if (assessment.level === 'none') assessment = mergeModeration(assessment, await moderation);
	const aiAllowed = message.kind === 'dm' || guild.features.aiMentions;

	if (assessment.level === 'none') {
		const outcome: MessageOutcome = { level: 'none', screened, resources: 'none', aiReply: false };
		if (message.blocked) {
			if (refuseNow(message.authorId, deps.now().getTime())) await settle(deps, 'the refusal', replies.private(BLOCKED_MESSAGE));
		} else if (aiAllowed) {
			const turn = await whileTyping(
				replies,
				companionTurn(
					{ userId: message.authorId, channelId: message.channelId, guildId: message.guildId, text: message.text },
					deps.companion,
				),
			);
			await replies.answer(turn.reply);
			if (message.text.trim()) await countConversation(deps, message.authorId, message.guildId);
			outcome.aiReply = turn.fromAi;
		}
		safetyOutcomes.emit('message', outcome);
		return outcome;
	}

	// 1. Resources, privately, first.
	const resources = await replies.private(renderCrisisReply(assessment, resourceCountry(user, guild)));
	if (message.kind === 'mention') {
		const note =
			resources === 'closed'
				? replies.public(renderDmsClosed(message.authorId), message.authorId)
				: resources === 'sent'
					? replies.public(renderSentPrivately(message.authorId))
					: undefined;
		if (note) await settle(deps, 'the public note', note);
	}
	if (resources === 'failed') deps.log.warn(`Safety: crisis resources could not be delivered (${message.kind})`);

	const outcome: MessageOutcome = { level: assessment.level, screened, resources, aiReply: false };
	// The care offer (the plan, a follow-up), privately, once the resources are out.
	if (resources === 'sent') outcome.care = await offerCare(deps, message.authorId, replies.privateView?.bind(replies));
	const alertsOn = message.guildId !== null && alertsConfigured(guild);

	// 2 and 3. The event (the second opinion may still raise a concern), then the alert.
	const recordAndAlert = async () => {
		const final = mergeModeration(assessment, await moderation);
		const level = final.level === 'none' ? 'concern' : final.level;
		outcome.level = level;
		outcome.eventId = await record(deps, {
			guildId: message.guildId,
			userId: alertsOn ? message.authorId : null,
			level,
			categories: final.categories,
			trigger: message.kind,
			details: eventDetails(message.text, alertsOn),
		});
		if (alertsOn && outcome.eventId !== undefined && message.jumpUrl) {
			outcome.alert = await alert(deps, guild, {
				eventId: outcome.eventId,
				guildId: message.guildId!,
				userId: message.authorId,
				level,
				trigger: 'mention',
				jumpUrl: message.jumpUrl,
			});
		}
	};

	// 4. The careful AI reply, after the resources, privately; only a real answer (a fallback would only repeat them).
	const careful = async () => {
		if (resources !== 'sent' || !aiAllowed || message.blocked || !deps.ai.configured) return;
		const turn = await companionTurn(
			{ userId: message.authorId, channelId: message.channelId, guildId: null, text: message.text, careful: true },
			deps.companion,
		);
		if (!turn.fromAi) return;
		if ((await replies.private(turn.reply)) !== 'sent') return;
		outcome.aiReply = true;
		await countConversation(deps, message.authorId, message.guildId);
	};

	await Promise.all([settle(deps, 'recording the crisis event', recordAndAlert()), settle(deps, 'the careful reply', careful())]);
	safetyOutcomes.emit('message', outcome);
	return outcome;
}

// ---------------------------------------------------------------------------------------------------------------------
// /crisis

export interface CrisisCommandInput {
	userId: string;
	guildId: string | null;
	channelId: string;
	/** What the person added, if anything. */
	text: string | null;
	/** The country chosen for this answer, if any (over the person's and the server's). */
	country: string | null;
}

export interface InteractionReplies {
	/** The first, ephemeral answer. */
	reply(content: string): Promise<void>;
	/** A later ephemeral message. */
	followUp(content: string): Promise<void>;
	/** A later ephemeral message with buttons (the care offer after the crisis reply); absent: no offer. */
	followUpView?(view: View): Promise<void>;
}

/**
 * `/crisis` always answers with resources, screening any text added (never opted out). It is private: the event is
 * recorded without the person's id and never alerts moderators, so anyone can ask for help without being flagged.
 */
export interface CommandOutcome {
	eventId?: number;
	aiReply: boolean;
	care?: CareOffered;
}

export async function crisisCommand(
	input: CrisisCommandInput,
	replies: InteractionReplies,
	deps: SafetyDeps = containerSafetyDeps(),
): Promise<CommandOutcome> {
	const text = input.text?.trim() || null;
	const assessment = text ? screen(text) : null;
	if (assessment) countCrisisScreen(assessment.level, 'command');
	const { user, guild } = await loadSettings(deps, input.userId, input.guildId);
	await replies.reply(renderCrisisCommandReply(assessment, input.country ?? resourceCountry(user, guild)));

	const asked = atLeast(assessment ?? NO_RISK, 'concern', ['help_seeking']);
	const result: CommandOutcome = { aiReply: false };
	result.care = await offerCare(deps, input.userId, replies.followUpView?.bind(replies));
	const recorded = (async () => {
		result.eventId = await record(deps, {
			guildId: input.guildId,
			userId: null,
			level: asked.level as NewCrisisEvent['level'],
			categories: asked.categories,
			trigger: 'command',
			details: null,
		});
	})();
	const careful = async () => {
		if (!text || !deps.ai.configured) return;
		const turn = await companionTurn({ userId: input.userId, channelId: input.channelId, guildId: null, text, careful: true }, deps.companion);
		if (!turn.fromAi) return;
		await replies.followUp(turn.reply);
		result.aiReply = true;
		await countConversation(deps, input.userId, input.guildId);
	};
	await Promise.all([settle(deps, 'recording the crisis event', recorded), settle(deps, 'the careful reply', careful())]);
	safetyOutcomes.emit('command', result);
	return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// "Check in on this message"

export interface CheckInInput {
	reporterId: string;
	guildId: string;
	authorId: string;
	authorIsBot: boolean;
	/** The message's text (may be empty: an image, an embed). */
	text: string;
	jumpUrl: string;
}

export interface CheckInReplies {
	/** The ephemeral answer to the member who asked. */
	reply(content: string): Promise<void>;
	/** DMs to the message's author (the offer). */
	dmAuthor(messages: string[]): Promise<Delivery>;
	/** A later ephemeral message with buttons (the care offer, on one's own message); absent: no offer. */
	followUpView?(view: View): Promise<void>;
	/** A DM with buttons to the message's author (the care offer after the author offer); absent: no offer. */
	dmAuthorView?(view: View): Promise<Delivery>;
}

export interface CheckInOutcome {
	eventId?: number;
	alert?: AlertOutcome;
	authorOffer?: Delivery | 'skipped';
	care?: CareOffered;
}

/**
 * The last offer DM per author per server (process memory: a restart forgets it, which errs on the side of offering).
 * Holds in a fleet (src/lib/fleet): keyed by server, and a server's menu uses all arrive at the one instance that
 * connects its shard.
 */
const offers = new Map<string, number>();

function offeredRecently(key: string, now: number): boolean {
	for (const [k, at] of offers) if (now - at >= AUTHOR_OFFER_WINDOW_MS) offers.delete(k);
	return offers.has(key);
}

/**
 * A member is worried about someone's message. They get guidance on how to help and resources, privately; who used
 * it is never revealed (not to the author, not to moderators). The event counts as at least concern (worry about
 * someone else). With alerts on, moderators get an alert; with the offer on, the author may get resources by DM, but
 * only when their own words screen as a possible crisis, they have not opted out of screening, and they were not
 * offered in this server within the window. Used on one's own message, it answers like `/crisis`.
 */
export async function checkInOnMessage(
	input: CheckInInput,
	replies: CheckInReplies,
	deps: SafetyDeps = containerSafetyDeps(),
): Promise<CheckInOutcome> {
	const moderationOfOwn = startModeration(deps, input.text);
	const own = screen(input.text);
	countCrisisScreen(own.level, 'context_menu');
	const { user: reporter, guild } = await loadSettings(deps, input.reporterId, input.guildId);

	const outcome: CheckInOutcome = {};
	const done = () => {
		safetyOutcomes.emit('checkIn', outcome);
		return outcome;
	};
	if (input.authorIsBot) {
		await replies.reply(BOT_MESSAGE_CHECK_IN);
		return done();
	}

	if (input.authorId === input.reporterId) {
		await replies.reply(renderCrisisCommandReply(own, resourceCountry(reporter, guild)));
		outcome.care = await offerCare(deps, input.reporterId, replies.followUpView?.bind(replies));
		const asked = atLeast(own, 'concern', ['help_seeking']);
		outcome.eventId = await record(deps, {
			guildId: input.guildId,
			userId: null,
			level: asked.level as NewCrisisEvent['level'],
			categories: asked.categories,
			trigger: 'context_menu',
			details: null,
		});
		return done();
	}

	const alertsOn = alertsConfigured(guild);
	await replies.reply(renderCheckInReply(worryAbout(own), resourceCountry(reporter, guild), alertsOn));

	const authorView = mergeModeration(own, await moderationOfOwn);
	const worry = worryAbout(authorView);
	const level = worry.level as NewCrisisEvent['level'];
	outcome.eventId = await record(deps, {
		guildId: input.guildId,
		userId: alertsOn || guild.offerResourcesToAuthor ? input.authorId : null,
		level,
		categories: worry.categories,
		trigger: 'context_menu',
		details: eventDetails(input.text, alertsOn),
	});

	const alerting = async () => {
		if (!alertsOn || outcome.eventId === undefined) return;
		outcome.alert = await alert(deps, guild, {
			eventId: outcome.eventId,
			guildId: input.guildId,
			userId: input.authorId,
			level,
			trigger: 'context_menu',
			jumpUrl: input.jumpUrl,
		});
	};
	const offering = async () => {
		if (!guild.offerResourcesToAuthor) return;
		const selfRisk = authorView.level !== 'none' && authorView.categories.some((c) => c !== 'third_party' && c !== 'help_seeking');
		const key = `${input.guildId}:${input.authorId}`;
		if (!selfRisk || offeredRecently(key, deps.now().getTime())) {
			outcome.authorOffer = 'skipped';
			return;
		}
		const author = await within(getUserSettings(deps.em(), input.authorId), SETTINGS_TIMEOUT_MS, { ...DEFAULT_USER_SETTINGS });
		if (author.screeningOptOut) {
			outcome.authorOffer = 'skipped';
			return;
		}
		offers.set(key, deps.now().getTime());
		outcome.authorOffer = await replies.dmAuthor(renderAuthorOffer(resourceCountry(author, guild)));
		if (outcome.authorOffer === 'sent') outcome.care = await offerCare(deps, input.authorId, replies.dmAuthorView?.bind(replies));
	};
	await Promise.all([settle(deps, 'the alert', alerting()), settle(deps, 'the author offer', offering())]);
	return done();
}

/** For tests: forget the offers made. */
export function forgetAuthorOffers(): void {
	offers.clear();
}
