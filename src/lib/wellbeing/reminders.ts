import { ButtonStyle, ComponentType } from 'discord.js';
import { periodic } from '../core/periodic.ts';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';

/**
 * Check-in reminders: the schedule arithmetic (pure), the scheduler (a tick every minute that sends the reminders that
 * are due), and the views. Everything takes its clock from the caller, so tests drive time explicitly.
 *
 * Rules:
 * - Opt-in. A reminder comes one interval after it was turned on, after the last reminder, or after the person's own
 *   last check-in (checking in postpones it).
 * - Quiet hours are whole local hours in the person's IANA timezone; a reminder that would land inside them moves to
 *   their end. A due reminder found inside quiet hours (the hours changed, or the bot was down) is moved, not sent.
 * - A missed reminder (the bot was down) is sent once, not once per missed interval.
 * - Claiming is a compare-and-set on `next_due_at`: of two instances ticking at once, one sends. A store with
 *   `claimDue` (PostgreSQL: FOR UPDATE SKIP LOCKED) hands each instance of a fleet its own due rows, moved on before
 *   any DM goes out, so a reminder is sent once however many instances tick.
 * - Discord's 50007 (the person does not accept DMs from the bot) turns reminders off; other failures are logged and
 *   the reminder comes again one interval later.
 */

export const REMINDER_INTERVALS = Object.freeze([
	{ name: 'Every 4 hours', minutes: 240 },
	{ name: 'Every 8 hours', minutes: 480 },
	{ name: 'Twice a day (every 12 hours)', minutes: 720 },
	{ name: 'Once a day', minutes: 1_440 },
	{ name: 'Every 2 days', minutes: 2_880 },
	{ name: 'Once a week', minutes: 10_080 },
]);

export const DEFAULT_TIMEZONE = 'UTC';
/** Default quiet hours when none were ever chosen: 22:00 to 08:00 local time. */
export const DEFAULT_QUIET = Object.freeze({ start: 22, end: 8 });
export const TICK_MS = 60_000;
export const BATCH_SIZE = 100;

export function intervalName(minutes: number): string {
	return REMINDER_INTERVALS.find((interval) => interval.minutes === minutes)?.name ?? `Every ${minutes} minutes`;
}

export function isReminderInterval(minutes: number): boolean {
	return REMINDER_INTERVALS.some((interval) => interval.minutes === minutes);
}

/** The IANA name of a timezone as Intl lists it (case-insensitive input, validated by Intl), or null. */
export function validTimeZone(input: string | null | undefined): string | null {
	const value = input?.trim();
	if (!value || value.length > 64) return null;
	const listed = timeZones().find((zone) => zone.toLowerCase() === value.toLowerCase());
	if (listed) return listed;
	try {
		const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
		// An alias Intl knows but does not list (ICU may list Asia/Calcutta, not Asia/Kolkata): keep the person's name.
		return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
	} catch {
		return null;
	}
}

let zones: string[] | undefined;

/** Every timezone Intl knows, plus UTC. */
export function timeZones(): string[] {
	zones ??= [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])];
	return zones;
}

/** Autocomplete: up to 25 zones matching what was typed (by any part of the name, case-insensitive). */
export function suggestTimeZones(typed: string, limit = 25): string[] {
	const query = typed.trim().toLowerCase().replace(/\s+/g, '_');
	const all = timeZones();
	if (!query)
		return [
			'UTC',
			'Europe/London',
			'Europe/Paris',
			'Europe/Berlin',
			'America/New_York',
			'America/Chicago',
			'America/Denver',
			'America/Los_Angeles',
			'America/Sao_Paulo',
			'Asia/Kolkata',
			'Asia/Tokyo',
			'Australia/Sydney',
		]
			.filter((zone) => all.includes(zone))
			.slice(0, limit);
	const starts = all.filter(
		(zone) =>
			zone
				.toLowerCase()
				.split('/')
				.some((part) => part.startsWith(query)) || zone.toLowerCase().startsWith(query),
	);
	const contains = all.filter((zone) => !starts.includes(zone) && zone.toLowerCase().includes(query));
	return [...starts, ...contains].slice(0, limit);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes since local midnight at `at` in `timeZone` (0 to 1439). */
export function localMinutes(at: Date, timeZone: string): number {
	let format = formatters.get(timeZone);
	if (!format)
		formatters.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })));
	const parts = format.formatToParts(at);
	const hour = Number(parts.find((part) => part.type === 'hour')?.value ?? 0) % 24;
	const minute = Number(parts.find((part) => part.type === 'minute')?.value ?? 0);
	return hour * 60 + minute;
}

export interface QuietHours {
	/** Local hour (0-23) quiet hours start at. */
	start: number;
	/** Local hour (0-23) they end at. Equal to start: no quiet hours. */
	end: number;
}

/** Is this local time (minutes since midnight) inside [start, end), wrapping past midnight? */
export function inQuietHours(minutes: number, quiet: QuietHours | null): boolean {
	if (!quiet || quiet.start === quiet.end) return false;
	const start = quiet.start * 60;
	const end = quiet.end * 60;
	return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}

/** `at`, or the end of the quiet hours it falls in, on a whole minute (DST-safe: a clock change is corrected for). */
export function outsideQuietHours(at: Date, timeZone: string, quiet: QuietHours | null): Date {
	let when = at;
	for (let step = 0; step < 4; step++) {
		const minutes = localMinutes(when, timeZone);
		if (!inQuietHours(minutes, quiet)) return when;
		const end = quiet!.end * 60;
		const wait = (((end - minutes) % 1_440) + 1_440) % 1_440 || 1_440;
		let next = Math.floor(when.getTime() / 60_000) * 60_000 + wait * 60_000;
		// The clocks changed in between (the local time is off by the shift): land on the end hour itself.
		const drift = ((((localMinutes(new Date(next), timeZone) - end) % 1_440) + 2_160) % 1_440) - 720;
		if (drift !== 0 && Math.abs(drift) <= 180) {
			const corrected = next - drift * 60_000;
			if (corrected > when.getTime() && !inQuietHours(localMinutes(new Date(corrected), timeZone), quiet)) next = corrected;
		}
		when = new Date(next);
	}
	return when;
}

export interface ReminderSchedule {
	intervalMinutes: number;
	timezone: string;
	quiet: QuietHours | null;
}

/** When the next reminder is due after `from` (a reminder sent, reminders turned on, or a check-in). */
export function nextDue(from: Date, schedule: ReminderSchedule): Date {
	return outsideQuietHours(new Date(from.getTime() + schedule.intervalMinutes * 60_000), schedule.timezone, schedule.quiet);
}

// ---------------------------------------------------------------------------------------------------------------------
// Scheduler

export interface DueReminder extends ReminderSchedule {
	userId: string;
	nextDueAt: Date;
}

export interface ReminderStore {
	/** Enabled reminders due at `now`, earliest first. */
	due(now: Date, limit: number): Promise<DueReminder[]>;
	/**
	 * Moves a reminder from `expected` to `next` if nobody else did (compare-and-set); true when this caller won.
	 * `sentAt` is recorded as the last reminder when given.
	 */
	claim(userId: string, expected: Date, next: Date, sentAt: Date | null): Promise<boolean>;
	/** Turns reminders off (e.g. 'dms_closed'). */
	disable(userId: string, reason: string, now: Date): Promise<void>;
	/**
	 * Takes up to `limit` due reminders no other caller holds, moves each to `plan(reminder).next` (recording
	 * `sentAt` when given) and returns them with their plan, in one step: two callers never get the same reminder.
	 */
	claimDue?(now: Date, limit: number, plan: (reminder: DueReminder) => ReminderPlan): Promise<Array<{ reminder: DueReminder; plan: ReminderPlan }>>;
}

/** What a tick does with a due reminder: move it to `next`; `sentAt` set when a DM goes out now. */
export interface ReminderPlan {
	next: Date;
	sentAt: Date | null;
}

export type ReminderDelivery = 'sent' | 'closed' | 'failed';

export interface ReminderLog {
	info(message: string): void;
	warn(message: string): void;
	error(message: string): void;
}

export interface SchedulerOptions {
	store: ReminderStore;
	/** Sends the reminder DM. Never throws: 'closed' for Discord's 50007, 'failed' for anything else. */
	send(userId: string): Promise<ReminderDelivery>;
	log: ReminderLog;
	now?: () => Date;
	/** How often to tick. Default: every minute. */
	intervalMs?: number;
	batchSize?: number;
}

export interface TickResult {
	sent: number;
	closed: number;
	failed: number;
	/** Due inside quiet hours: moved to their end. */
	deferred: number;
	/** Claimed by someone else first. */
	lost: number;
}

export interface ReminderScheduler {
	start(): void;
	/** Stops the timer and waits for a tick in progress. Nothing is left running. */
	stop(): Promise<void>;
	/** One pass at `at` (default: the clock). Concurrent calls share the pass in progress. */
	tick(at?: Date): Promise<TickResult>;
	readonly running: boolean;
}

export function createReminderScheduler(options: SchedulerOptions): ReminderScheduler {
	const batchSize = options.batchSize ?? BATCH_SIZE;
	const job = periodic(pass, {
		intervalMs: options.intervalMs ?? TICK_MS,
		now: options.now,
		onError: (error) => options.log.error(`Check-in reminders: a tick failed (${error instanceof Error ? error.name : 'error'})`),
	});

	async function deliver(userId: string, at: Date, result: TickResult): Promise<void> {
		const delivery = await options.send(userId).catch((): ReminderDelivery => 'failed');
		if (delivery === 'sent') result.sent++;
		else if (delivery === 'closed') {
			result.closed++;
			await options.store.disable(userId, 'dms_closed', at);
		} else result.failed++;
	}

	async function pass(at: Date): Promise<TickResult> {
		const result: TickResult = { sent: 0, closed: 0, failed: 0, deferred: 0, lost: 0 };
		if (options.store.claimDue) {
			const claimed = await options.store.claimDue(at, batchSize, (reminder) =>
				inQuietHours(localMinutes(at, reminder.timezone), reminder.quiet)
					? { next: outsideQuietHours(at, reminder.timezone, reminder.quiet), sentAt: null }
					: { next: nextDue(at, reminder), sentAt: at },
			);
			for (const { reminder, plan } of claimed) {
				if (!plan.sentAt) {
					result.deferred++;
					continue;
				}
				// Claimed already (moved on in the database). Stopping mid-batch hands the rest back, due as they were, for
				// the next tick of whichever instance is still running.
				if (job.stopped) {
					await options.store.claim(reminder.userId, plan.next, reminder.nextDueAt, null).catch(() => false);
					continue;
				}
				await deliver(reminder.userId, at, result);
			}
			if (result.failed) options.log.warn(`Check-in reminders: ${result.failed} could not be delivered; they come again next interval`);
			return result;
		}
		const due = await options.store.due(at, batchSize);
		for (const reminder of due) {
			if (job.stopped) break;
			if (inQuietHours(localMinutes(at, reminder.timezone), reminder.quiet)) {
				if (await options.store.claim(reminder.userId, reminder.nextDueAt, outsideQuietHours(at, reminder.timezone, reminder.quiet), null))
					result.deferred++;
				else result.lost++;
				continue;
			}
			if (!(await options.store.claim(reminder.userId, reminder.nextDueAt, nextDue(at, reminder), at))) {
				result.lost++;
				continue;
			}
			await deliver(reminder.userId, at, result);
		}
		if (result.failed) options.log.warn(`Check-in reminders: ${result.failed} could not be delivered; they come again next interval`);
		return result;
	}

	return job;
}

// ---------------------------------------------------------------------------------------------------------------------
// Views

export const REMINDER_OFF_BUTTON = 'checkin-reminders:off';

const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;

export function describeQuiet(quiet: QuietHours | null): string {
	return !quiet || quiet.start === quiet.end ? 'none' : `${hour(quiet.start)} to ${hour(quiet.end)}`;
}

/** The reminder DM. */
export function renderReminderDm(): View {
	return {
		embeds: [
			{
				title: 'Time for a check-in',
				color: COLOR,
				description: [
					'Hi, this is your check-in reminder from Haven. How are you feeling right now?',
					'',
					'**Check in now** takes two clicks (a mood, then how strong it is); `/checkin log` also takes a private note.',
				].join('\n'),
				footer: { text: 'You turned these reminders on. /checkin reminders off, or the button, stops them.' },
			},
		],
		components: [
			{
				type: ComponentType.ActionRow,
				components: [
					{ type: ComponentType.Button, style: ButtonStyle.Primary, label: 'Check in now', custom_id: 'checkin-quick:start' },
					{ type: ComponentType.Button, style: ButtonStyle.Secondary, label: 'Snooze 1 hour', custom_id: 'checkin-reminders:snooze' },
					{ type: ComponentType.Button, style: ButtonStyle.Secondary, label: 'Turn off reminders', custom_id: REMINDER_OFF_BUTTON },
				],
			},
		],
	};
}

export interface ReminderSettingsView {
	enabled: boolean;
	intervalMinutes: number;
	timezone: string;
	quiet: QuietHours | null;
	nextDueAt: Date | null;
	disabledReason: string | null;
}

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

export function renderReminderSettings(settings: ReminderSettingsView | null, notice?: string): View {
	const lines: string[] = [];
	if (notice) lines.push(notice, '');
	if (!settings) {
		lines.push(
			'Check-in reminders are **off**. `/checkin reminders set` turns them on: Haven sends you a DM at the interval you choose, never during your quiet hours.',
		);
	} else {
		lines.push(
			`Check-in reminders are **${settings.enabled ? 'on' : 'off'}**.`,
			`- How often: ${intervalName(settings.intervalMinutes)}`,
			`- Timezone: ${settings.timezone}`,
			`- Quiet hours: ${describeQuiet(settings.quiet)}`,
		);
		if (settings.enabled && settings.nextDueAt)
			lines.push(`- Next reminder: <t:${unix(settings.nextDueAt)}:f> (<t:${unix(settings.nextDueAt)}:R>)`);
		if (!settings.enabled && settings.disabledReason === 'dms_closed') {
			lines.push(
				'',
				"They were turned off because Discord did not let Haven send you a direct message. Allow direct messages from this server's members (or from Haven), then run `/checkin reminders set` again.",
			);
		}
	}
	lines.push('', 'Reminders come by direct message, so your DMs must be open to Haven.');
	return { embeds: [{ title: 'Check-in reminders', color: COLOR, description: lines.join('\n') }] };
}
