// /checkin through the fake Discord: log (trend, encrypted note, the moodCheckIns count, crisis notes), history,
// reminders (set/show/off, timezone validation and autocomplete) and the reminder scheduler driven by an explicit clock:
// due -> DM, quiet hours, closed DMs -> turned off, two instances -> one DM, the DM's off button.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { ApplicationCommandOptionType, InteractionResponseType } from 'discord.js';
import { reminderStore } from '../../src/lib/wellbeing/reminder-store.ts';
import { createReminderScheduler, REMINDER_OFF_BUTTON } from '../../src/lib/wellbeing/reminders.ts';
import { waitFor } from '../support/wait.ts';
import { assertPrivate, counter, run, someone, sql, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const log = (userId: string, mood: string, intensity: number, note?: string) =>
	run(w.fake, { name: 'checkin', subcommand: 'log', userId, options: { mood, intensity, ...(note === undefined ? {} : { note }) } });

describe('registration', () => {
	test('/checkin is valid for Discord: subcommands and a group, no direct options beside them', () => {
		const checkin = w.fake.registeredCommands().find((c) => c.name === 'checkin')!;
		assert.ok(checkin, 'registered globally');
		const kinds = checkin.options.map((o: any) => `${o.type}:${o.name}`);
		assert.deepEqual(kinds, [
			`${ApplicationCommandOptionType.Subcommand}:log`,
			`${ApplicationCommandOptionType.Subcommand}:history`,
			`${ApplicationCommandOptionType.SubcommandGroup}:reminders`,
		]);
		const reminders = checkin.options.find((o: any) => o.name === 'reminders');
		assert.deepEqual(
			reminders.options.map((o: any) => o.name),
			['set', 'show', 'off'],
		);
		for (const name of ['checkin', 'coping', 'ghostletter', 'joke', 'compliment', 'trivia', 'wouldyourather']) {
			const command = w.fake.registeredCommands().find((c) => c.name === name);
			assert.ok(command, `/${name} registered`);
			const types = (command.options ?? []).map((o: any) => o.type);
			const nested = types.filter(
				(t: number) => t === ApplicationCommandOptionType.Subcommand || t === ApplicationCommandOptionType.SubcommandGroup,
			);
			assert.ok(nested.length === 0 || nested.length === types.length, `/${name}: subcommands are not mixed with options`);
		}
	});
});

describe('/checkin log and history', () => {
	test('logs privately, encrypts the note at rest, counts in moodCheckIns and GET /v1/stats', async () => {
		const user = someone();
		const before = await counter('moodCheckIns');
		const { callback } = await log(user, 'anxious', 4, 'exam tomorrow, cannot focus');
		assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource);
		assertPrivate(callback);
		const text = textOf(callback.body);
		assert.match(text, /Logged: \*\*Anxious\*\*, intensity 4\/5, with a private note \(stored encrypted\)/);
		assert.match(text, /first check-in/);
		assert.match(text, /\/coping breathing/, 'a heavy check-in suggests a coping tool');
		const rows = await sql<{ note: string; mood: string; intensity: number; guild_id: string }>(
			'select note, mood, intensity, guild_id from mood_check_ins where user_id = ?',
			[user],
		);
		assert.equal(rows.length, 1);
		assert.match(rows[0]!.note, /^hv2:/, 'ciphertext at rest');
		assert.ok(!rows[0]!.note.includes('exam'));
		assert.equal(rows[0]!.mood, 'anxious');
		assert.equal(rows[0]!.guild_id, w.guildId);
		assert.equal(await counter('moodCheckIns'), before + 1);
		const stats = (await (await fetch(`${w.world.haven.url}/v1/stats`)).json()) as { moodCheckIns: number };
		assert.ok(stats.moodCheckIns >= before + 1);
	});

	test('no cooldown; the trend follows the recent check-ins; a note is optional; works in DMs', async () => {
		const user = someone();
		await log(user, 'sad', 5);
		await log(user, 'stressed', 4);
		await log(user, 'okay', 3);
		const { callback } = await run(w.fake, {
			name: 'checkin',
			subcommand: 'log',
			userId: user,
			dm: true,
			options: { mood: 'good', intensity: 4 },
		});
		assertPrivate(callback);
		const text = textOf(callback.body);
		assert.doesNotMatch(text, /private note/);
		assert.match(text, /Your last 4 check-ins \(oldest first\): 😢5 → 😣4 → 😐3 → 🙂4/);
		assert.match(text, /brighter/);
		const [row] = await sql<{ guild_id: string | null }>('select guild_id from mood_check_ins where user_id = ? order by id desc limit 1', [
			user,
		]);
		assert.equal(row!.guild_id, null, 'a DM check-in belongs to no server');
	});

	test('/checkin history: private, newest first, notes decrypted for their author only', async () => {
		const user = someone();
		const empty = await run(w.fake, { name: 'checkin', subcommand: 'history', userId: user });
		assertPrivate(empty.callback);
		assert.match(textOf(empty.callback.body), /haven't checked in yet/);
		await log(user, 'calm', 2, 'walked by the river');
		await log(user, 'tired', 3);
		const { callback } = await run(w.fake, { name: 'checkin', subcommand: 'history', userId: user, options: { count: 5 } });
		assertPrivate(callback);
		const text = textOf(callback.body);
		assert.match(text, /Your last 2 check-ins/);
		assert.ok(text.indexOf('Tired') < text.indexOf('Calm'), 'newest first');
		assert.match(text, /walked by the river/);
		assert.match(text, /Average intensity: 2\.5\/5/);
		const other = textOf((await run(w.fake, { name: 'checkin', subcommand: 'history', userId: someone() })).callback.body);
		assert.doesNotMatch(other, /river/);
	});

	test('a note that screens as a crisis gets the resources first, privately; counted without user or text', async () => {
		const user = someone();
		const events = await counter('crisisEvents');
		const { callback, ix } = await log(user, 'numb', 5, 'i want to kill myself tonight');
		assertPrivate(callback);
		assert.doesNotMatch(textOf(callback.body), /Check-in saved/);
		assert.match(textOf(callback.body), /emergency|crisis|line/i, 'the resources come first');
		const followup = await ix.followup(0);
		assert.match(textOf(followup.body), /Check-in saved/);
		assert.ok(followup.body.flags & 64, 'still private');
		await waitFor(async () => (await counter('crisisEvents')) === events + 1, { what: 'the crisis event to be recorded' });
		const [event] = await sql<{ user_id: string | null; details: string | null; trigger: string }>(
			'select user_id, details, trigger from crisis_events order by id desc limit 1',
		);
		assert.deepEqual(event, { user_id: null, details: null, trigger: 'command' });
	});
});

describe('/checkin reminders', () => {
	test('set (timezone validated, quiet hours), show, off; one of two quiet hours is refused', async () => {
		const user = someone();
		const show0 = await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'show', userId: user });
		assertPrivate(show0.callback);
		assert.match(textOf(show0.callback.body), /reminders are \*\*off\*\*/);

		const bad = await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 1440, timezone: 'Mars/Olympus_Mons' },
		});
		assertPrivate(bad.callback);
		assert.match(textOf(bad.callback.body), /I don't know the timezone `Mars\/Olympus_Mons`/);
		const half = await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 1440, quiet_start: 23 },
		});
		assert.match(textOf(half.callback.body), /both `quiet_start` and `quiet_end`/);
		assert.equal((await sql('select 1 from check_in_reminders where user_id = ?', [user])).length, 0, 'nothing saved');

		const started = Date.now();
		const set = await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 720, timezone: 'europe/paris' },
		});
		assertPrivate(set.callback);
		const text = textOf(set.callback.body);
		assert.match(text, /Reminders are on/);
		assert.match(text, /Twice a day/);
		assert.match(text, /Timezone: Europe\/Paris/);
		assert.match(text, /Quiet hours: 22:00 to 08:00/, 'default quiet hours');
		const [row] = await sql<{
			enabled: boolean;
			interval_minutes: number;
			timezone: string;
			quiet_start: number;
			quiet_end: number;
			next_due_at: Date;
		}>('select enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at from check_in_reminders where user_id = ?', [user]);
		assert.equal(row!.enabled, true);
		assert.equal(row!.timezone, 'Europe/Paris');
		assert.deepEqual([row!.quiet_start, row!.quiet_end], [22, 8]);
		assert.ok(new Date(row!.next_due_at).getTime() >= started + 720 * 60_000 - 1_000, 'the first reminder comes after one interval');

		// Changing only the interval keeps the timezone and quiet hours; equal hours mean none.
		await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'set', userId: user, options: { every: 240 } });
		let shown = textOf((await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'show', userId: user })).callback.body);
		assert.match(shown, /Every 4 hours/);
		assert.match(shown, /Europe\/Paris/);
		assert.match(shown, /22:00 to 08:00/);
		await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 240, quiet_start: 5, quiet_end: 5 },
		});
		shown = textOf((await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'show', userId: user })).callback.body);
		assert.match(shown, /Quiet hours: none/);

		const off = await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'off', userId: user });
		assertPrivate(off.callback);
		assert.match(textOf(off.callback.body), /Reminders are off/);
		assert.match(textOf(off.callback.body), /reminders are \*\*off\*\*/);
		const again = await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'off', userId: user });
		assert.match(textOf(again.callback.body), /already off/);
	});

	test('timezone autocomplete suggests IANA names', async () => {
		const ix = w.fake.sendSlashCommand({
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: someone(),
			options: { every: 1440, timezone: 'new_y' },
			focused: 'timezone',
		});
		const callback = await ix.callback();
		assert.equal(callback.body.type, InteractionResponseType.ApplicationCommandAutocompleteResult);
		const names = callback.body.data.choices.map((c: { value: string }) => c.value);
		assert.ok(names.includes('America/New_York'), names.join(', '));
		assert.ok(names.length <= 25);
	});

	test('a check-in postpones the next reminder by one interval', async () => {
		const user = someone();
		await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 1440, timezone: 'UTC', quiet_start: 0, quiet_end: 0 },
		});
		await sql('update check_in_reminders set next_due_at = ? where user_id = ?', [new Date(Date.now() + 60_000), user]);
		const { callback } = await log(user, 'good', 3);
		assert.match(textOf(callback.body), /Your next reminder moves to <t:\d+:R>/);
		const [row] = await sql<{ next_due_at: Date }>('select next_due_at from check_in_reminders where user_id = ?', [user]);
		assert.ok(new Date(row!.next_due_at).getTime() > Date.now() + 23 * 3_600_000);
	});
});

describe('the reminder scheduler (explicit clock)', () => {
	// Far in the future: the service's own minute tick (real clock) never sees these rows.
	const T = new Date('2031-03-10T12:00:00Z');
	const at = (iso: string) => new Date(iso);

	async function remind(user: string, options: Record<string, string | number>, due: Date) {
		await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'set', userId: user, options: { every: 1440, ...options } });
		await sql('update check_in_reminders set next_due_at = ? where user_id = ?', [due, user]);
	}

	// Each test counts only its own reminders.
	beforeEach(async () => {
		await sql('update check_in_reminders set enabled = false');
	});

	const dmPosts = (user: string) =>
		w.fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${w.fake.dmChannel(user).id}/messages`);

	test('the service started the scheduler at boot', () => {
		assert.ok(container.reminders, 'container.reminders');
		assert.equal(container.reminders.running, true);
	});

	test('due -> one DM with an off button; the next one is one interval later; not due -> nothing', async () => {
		const user = someone();
		await remind(user, { timezone: 'UTC', quiet_start: 22, quiet_end: 8 }, T);
		const early = await container.reminders!.tick(new Date(T.getTime() - 60_000));
		assert.equal(early.sent, 0);
		assert.equal(dmPosts(user).length, 0);
		const result = await container.reminders!.tick(T);
		assert.equal(result.sent, 1);
		const [dm] = dmPosts(user);
		assert.ok(dm, 'a DM was sent');
		assert.match(textOf(dm.body), /Time for a check-in/);
		assert.deepEqual(dm.body.allowed_mentions, { parse: [] });
		assert.ok(dm.body.components[0].components.some((b: { custom_id: string }) => b.custom_id === REMINDER_OFF_BUTTON));
		const [row] = await sql<{ next_due_at: Date; last_sent_at: Date; enabled: boolean }>(
			'select next_due_at, last_sent_at, enabled from check_in_reminders where user_id = ?',
			[user],
		);
		assert.equal(new Date(row!.next_due_at).toISOString(), '2031-03-11T12:00:00.000Z');
		assert.equal(new Date(row!.last_sent_at).toISOString(), T.toISOString());
		// A second tick at the same moment sends nothing more.
		assert.equal((await container.reminders!.tick(T)).sent, 0);
		assert.equal(dmPosts(user).length, 1);

		// The DM's button turns reminders off.
		const click = w.fake.sendButton({
			customId: REMINDER_OFF_BUTTON,
			userId: user,
			dm: true,
			message: { embeds: dm.body.embeds, components: dm.body.components },
		});
		const answer = await click.callback();
		assert.equal(answer.body.type, InteractionResponseType.UpdateMessage);
		assert.match(answer.body.data.content, /reminders are off/);
		assert.deepEqual(answer.body.data.components, []);
		const [off] = await sql<{ enabled: boolean }>('select enabled from check_in_reminders where user_id = ?', [user]);
		assert.equal(off!.enabled, false);
	});

	test('quiet hours are respected in the person’s timezone: moved to their end, not sent', async () => {
		const user = someone();
		// 23:30 in Tokyo (UTC+9) is 14:30 UTC: inside 22:00-07:00 local quiet hours.
		const due = at('2031-03-10T14:30:00Z');
		await remind(user, { timezone: 'Asia/Tokyo', quiet_start: 22, quiet_end: 7 }, due);
		const result = await container.reminders!.tick(due);
		assert.equal(result.sent, 0);
		assert.equal(result.deferred, 1);
		assert.equal(dmPosts(user).length, 0);
		const [row] = await sql<{ next_due_at: Date }>('select next_due_at from check_in_reminders where user_id = ?', [user]);
		assert.equal(new Date(row!.next_due_at).toISOString(), '2031-03-10T22:00:00.000Z', '07:00 in Tokyo');
		// At 07:00 Tokyo time it goes out; the next lands at 07:00 the day after, outside quiet hours.
		assert.equal((await container.reminders!.tick(at('2031-03-10T22:00:00Z'))).sent, 1);
		assert.equal(dmPosts(user).length, 1);
		const [next] = await sql<{ next_due_at: Date }>('select next_due_at from check_in_reminders where user_id = ?', [user]);
		assert.equal(new Date(next!.next_due_at).toISOString(), '2031-03-11T22:00:00.000Z');
	});

	test('closed DMs (50007) turn reminders off; /checkin reminders show says why', async () => {
		const user = someone();
		await remind(user, { timezone: 'UTC', quiet_start: 0, quiet_end: 0 }, T);
		w.fake.setDmsClosed(user);
		const result = await container.reminders!.tick(T);
		assert.equal(result.closed, 1);
		const [row] = await sql<{ enabled: boolean; disabled_reason: string }>(
			'select enabled, disabled_reason from check_in_reminders where user_id = ?',
			[user],
		);
		assert.deepEqual(row, { enabled: false, disabled_reason: 'dms_closed' });
		assert.equal((await container.reminders!.tick(new Date(T.getTime() + 2 * 86_400_000))).closed, 0, 'never tried again');
		const shown = textOf((await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'show', userId: user })).callback.body);
		assert.match(shown, /did not let Haven send you a direct message/);
		w.fake.setDmsClosed(user, false);
	});

	test('two instances ticking at once send each reminder once (compare-and-set on next_due_at)', async () => {
		const users = [someone(), someone(), someone()];
		const due = at('2031-04-01T10:00:00Z');
		for (const user of users) await remind(user, { timezone: 'UTC', quiet_start: 0, quiet_end: 0 }, due);
		const sentBy: string[] = [];
		const instance = (name: string) =>
			createReminderScheduler({
				store: reminderStore(() => container.db.orm.em.fork()),
				send: async (userId) => {
					if (users.includes(userId)) sentBy.push(`${name}:${userId}`);
					return 'sent';
				},
				log: { info() {}, warn() {}, error() {} },
			});
		const [a, b] = [instance('a'), instance('b')];
		const results = await Promise.all([a.tick(due), b.tick(due), a.tick(due)]);
		assert.equal(sentBy.length, 3, sentBy.join(', '));
		assert.deepEqual(new Set(sentBy.map((s) => s.split(':')[1])), new Set(users));
		assert.equal(results[0], results[2], 'concurrent ticks of one instance share the pass');
		await Promise.all([a.stop(), b.stop()]);
	});
});
