// Care after the first contact, through the fake Discord: /safetyplan (modals, one part at a time, screened and
// encrypted), the plan button and the follow-up offer after a crisis reply, follow-up DMs at the due time (the
// scheduler's clock moved by the test), and unacknowledged alerts raised once more.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { InteractionResponseType, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { parsePlanButton, parsePlanModal, professionalsPrefill, savePart } from '../../src/lib/care/safety-plan.ts';
import { followUpStore, parseCareButton } from '../../src/lib/care/follow-ups.ts';
import { createCareScheduler, followUpSender } from '../../src/lib/care/scheduler.ts';
import { inQuietHours, localMinutes } from '../../src/lib/wellbeing/reminders.ts';
import { deleteUserData, exportUserData, remainingReferences } from '../../src/lib/privacy/user-data.ts';
import { purge } from '../../src/lib/privacy/retention.ts';
import { snowflakeAt, type RecordedRequest, type SentInteraction } from '../support/fake-discord.ts';
import { dmOf, MOD, nextOutcome, postsTo, sql, useSafetyWorld, type SafetyWorld } from './support.ts';

let s: SafetyWorld;
let nextId = 1;
/** A fresh person for each test: plans, follow-ups and cooldowns of earlier tests never get in the way. */
const someone = () => snowflakeAt(1_490_000_000_000, nextId++);

useSafetyWorld((world) => (s = world));

const CRISIS = 'I want to kill myself, I cannot do this anymore';
const HOUR = 3_600_000;

function sendDm(authorId: string, content: string) {
	const done = nextOutcome('message');
	s.fake.sendMessage({ authorId, dm: true, content });
	return done;
}

/** Every button's custom id in a message body. */
function buttons(body: any): string[] {
	return (body?.components ?? []).flatMap((row: any) => row.components.map((c: any) => c.custom_id as string));
}

function textOf(body: any): string {
	return `${body?.content ?? ''}\n${JSON.stringify(body?.embeds ?? [])}`;
}

function press(userId: string, customId: string, where: { dm?: boolean; message?: any } = {}): SentInteraction {
	return s.fake.sendButton({ customId, userId, dm: where.dm ?? true, message: where.message ?? { content: 'x', components: [] } });
}

function assertPrivate(data: any) {
	assert.equal(data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral, 'only they see it');
}

/** The first answer's data, or, when the work was slow and the answer deferred, the edit that followed. */
async function answerOf(ix: SentInteraction, callback: RecordedRequest): Promise<any> {
	if (callback.body.type !== InteractionResponseType.DeferredChannelMessageWithSource) return callback.body.data;
	return (await ix.edit(5_000)).body;
}

async function slash(userId: string, name: string, subcommand?: string, options: Record<string, string | number | boolean> = {}) {
	const ix = s.fake.sendSlashCommand({ name, dm: true, userId, subcommand, options });
	return { ix, callback: await ix.callback() };
}

/** Writes one part of the plan through its modal, as a person does (from the step message). */
async function writePart(userId: string, index: number, text: string) {
	const open = await press(userId, `plan:write:${userId}:${index}`).callback();
	assert.equal(open.body.type, InteractionResponseType.Modal);
	const submit = s.fake.sendModalSubmit({
		customId: open.body.data.custom_id,
		userId,
		dm: true,
		fields: { text },
		message: { content: 'step', components: [] },
	});
	return { modal: open.body.data, submit, callback: await submit.callback() };
}

async function planColumns(userId: string): Promise<Record<string, string | null> | undefined> {
	const [row] = await sql<Record<string, string | null>>(
		'select warning_signs, coping, distractions, people, professionals, environment, reasons from safety_plans where user_id = ?',
		[userId],
	);
	return row;
}

describe('custom ids', () => {
	test('buttons and modals name their owner; anything else is not ours', () => {
		const user = '123456789012345678';
		assert.deepEqual(parsePlanButton(`plan:write:${user}:4`), { kind: 'write', userId: user, index: 4 });
		assert.deepEqual(parsePlanButton(`plan:clear:${user}:yes`), { kind: 'clear', userId: user, confirm: true });
		assert.deepEqual(parsePlanModal(`plan-modal:${user}:6`), { userId: user, index: 6 });
		assert.deepEqual(parseCareButton(`care:follow:${user}:4h`), { kind: 'follow', userId: user, choice: '4h' });
		assert.deepEqual(parseCareButton(`care:answer:${user}:worse`), { kind: 'answer', userId: user, answer: 'worse' });
		for (const forged of [
			`plan:write:${user}:9`,
			`plan-modal:${user}:7`,
			`plan:view:${user}:1`,
			`care:follow:${user}:1y`,
			`care:answer:${user}:fine`,
			'plan:view:abc',
		])
			assert.equal(parsePlanButton(forged) ?? parsePlanModal(forged) ?? parseCareButton(forged), null, forged);
	});
});

describe('/safetyplan', () => {
	test('edit walks the seven parts one at a time in modals (skippable, prefilled); view shows it privately; stored encrypted', async () => {
		const user = someone();
		const { callback } = await slash(user, 'safetyplan', 'edit');
		assertPrivate(callback.body.data);
		assert.match(callback.body.data.content, /Part 1 of 7: Warning signs/);
		assert.deepEqual(buttons(callback.body.data), [`plan:write:${user}:0`, `plan:step:${user}:1`, `plan:done:${user}`]);

		const first = await writePart(user, 0, 'Not sleeping, pulling away from friends');
		assert.equal(first.modal.components[0].components[0].value, undefined, 'nothing to prefill yet');
		assert.equal(first.callback.body.type, InteractionResponseType.UpdateMessage, 'the walk goes on in the same message');
		assert.match(first.callback.body.data.content, /Saved part 1/);
		assert.match(first.callback.body.data.content, /Part 2 of 7: Things I can do on my own to cope/);

		// Skip part 2 and 3.
		const skipped = await press(user, `plan:step:${user}:3`).callback();
		assert.match(skipped.body.data.content, /Part 4 of 7: People I can ask for help/);
		await writePart(user, 3, 'My sister Ana, by phone');

		// Part 5 is prefilled with the crisis lines of the person's country (none chosen: the worldwide directory).
		const services = await press(user, `plan:write:${user}:4`).callback();
		const prefill = services.body.data.components[0].components[0].value as string;
		assert.equal(prefill, professionalsPrefill(null));
		assert.ok(prefill.length > 20);
		await writePart(user, 4, `${prefill}\nDr Osei, Tuesdays`);
		await writePart(user, 6, 'My dog Pip and the concert in June');

		// Editing again prefills the part with what is there.
		const again = await press(user, `plan:write:${user}:0`).callback();
		assert.equal(again.body.data.components[0].components[0].value, 'Not sleeping, pulling away from friends');

		const view = await slash(user, 'safetyplan', 'view');
		assertPrivate(view.callback.body.data);
		const text = textOf(await answerOf(view.ix, view.callback));
		for (const expected of ['Not sleeping, pulling away from friends', 'My sister Ana, by phone', 'Dr Osei, Tuesdays', 'My dog Pip']) {
			assert.ok(text.includes(expected), expected);
		}
		assert.match(text, /Reasons for living/);

		// Ciphertext at rest, in every part written.
		const row = (await planColumns(user))!;
		for (const [column, value] of Object.entries(row)) {
			if (value === null) continue;
			assert.match(value, /^hv\d:/, `${column} is encrypted`);
			assert.ok(!/sister|sleeping|Osei|Pip/.test(value), `${column} holds no plain text`);
		}
		assert.equal(row.coping, null, 'a skipped part stays empty');
	});

	test('every part is ciphertext at rest, bound to its row, and reads back', async () => {
		const user = someone();
		const words = ['signs-w1', 'coping-w2', 'places-w3', 'people-w4', 'services-w5', 'safer-w6', 'reasons-w7'];
		for (const [index, word] of words.entries()) await writePart(user, index, `my ${word} here`);
		const row = (await planColumns(user))!;
		assert.equal(Object.keys(row).length, 7);
		for (const [column, value] of Object.entries(row)) {
			assert.match(value ?? '', /^hv2:/, `${column} is encrypted and bound to its row`);
			for (const word of words) assert.ok(!value!.includes(word), `${column} holds no plain text`);
		}
		const view = await slash(user, 'safetyplan', 'view');
		const text = textOf(await answerOf(view.ix, view.callback));
		for (const word of words) assert.ok(text.includes(word), word);
	});

	test('a crisis written into the plan gets the resources first, then the part is saved and the walk goes on', async () => {
		const user = someone();
		const { callback, submit } = await writePart(user, 0, 'when I start planning how to kill myself');
		assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource, 'the first answer is the resources');
		assertPrivate(callback.body.data);
		assert.match(callback.body.data.content, /glad you told me|not alone|crisis|call/i);
		const next = await submit.followup(0);
		assert.match(next.body.content, /Part 2 of 7/);
		assert.match((await planColumns(user))!.warning_signs!, /^hv\d:/);
	});

	test('clear asks first, and only the plan’s owner can confirm', async () => {
		const user = someone();
		await writePart(user, 6, 'my cat');
		const { callback } = await slash(user, 'safetyplan', 'clear');
		assertPrivate(callback.body.data);
		const yes = `plan:clear:${user}:yes`;
		assert.ok(buttons(callback.body.data).includes(yes));
		const stranger = await press(someone(), yes).callback();
		assert.match(stranger.body.data.content, /someone else/);
		assert.ok(await planColumns(user), 'still there');
		const confirmed = await press(user, yes).callback();
		assert.equal(confirmed.body.type, InteractionResponseType.UpdateMessage);
		assert.match(confirmed.body.data.content, /deleted/);
		assert.equal(await planColumns(user), undefined);
	});
});

describe('the care offer after a crisis reply', () => {
	test('a DM in crisis, no plan: the resources first, then the offer to check on them and to make a plan', async () => {
		const user = someone();
		const outcome = await sendDm(user, CRISIS);
		assert.equal(outcome.care, 'make-plan');
		const posts = postsTo(s.fake, dmOf(s.fake, user));
		assert.equal(posts.length, 3, 'resources, the offer, the careful AI reply');
		assert.match(posts[0]!.body.content, /glad you told me/i);
		assert.deepEqual(buttons(posts[0]!.body), [], 'the crisis reply itself is unchanged');
		const offer = posts[1]!;
		assert.ok(s.fake.requests.indexOf(posts[0]!) < s.fake.requests.indexOf(offer), 'after the resources');
		assert.deepEqual(buttons(offer.body), [`care:follow:${user}:4h`, `care:follow:${user}:1d`, `plan:start:${user}`]);
		assert.ok(!buttons(offer.body).some((id) => id.startsWith('plan:view')), 'no plan to show');
		// "Make a safety plan" starts the walk in a new private message.
		const start = await press(user, `plan:start:${user}`, { message: offer.body }).callback();
		assert.equal(start.body.type, InteractionResponseType.ChannelMessageWithSource);
		assert.match(start.body.data.content, /Part 1 of 7/);
	});

	test('a person with a plan gets the button that shows it, after the resources, in a DM, /crisis and the check-in menu', async () => {
		const user = someone();
		await savePart(container.db.orm.em.fork(), user, 'reasons', 'My brother');
		const outcome = await sendDm(user, CRISIS);
		assert.equal(outcome.care, 'plan');
		const [resources, offer] = postsTo(s.fake, dmOf(s.fake, user));
		assert.deepEqual(buttons(resources!.body), []);
		assert.deepEqual(buttons(offer!.body), [`plan:view:${user}`, `care:follow:${user}:4h`, `care:follow:${user}:1d`]);
		const shown = await press(user, `plan:view:${user}`, { message: offer!.body }).callback();
		assertPrivate(shown.body.data);
		assert.match(textOf(shown.body.data), /My brother/);

		// /crisis: the resources are the reply; the offer is the first follow-up.
		const done = nextOutcome('command');
		const ix = s.fake.sendSlashCommand({ name: 'crisis', guildId: s.guildId, userId: user, options: {} });
		const reply = await ix.callback();
		assert.match(reply.body.data.content, /Crisis support worldwide/);
		assert.deepEqual(buttons(reply.body.data), []);
		const followup = await ix.followup(0);
		assert.ok(buttons(followup.body).includes(`plan:view:${user}`));
		assertPrivate(followup.body);
		assert.equal((await done).care, 'plan');

		// The check-in menu on one's own message answers like /crisis.
		const checked = nextOutcome('checkIn');
		const menu = s.fake.sendContextMenu({
			name: 'Check in on this message',
			type: 'message',
			guildId: s.guildId,
			channelId: s.general,
			userId: user,
			targetUserId: user,
			targetMessage: { content: 'i want to die' },
		});
		assert.deepEqual(buttons((await menu.callback()).body.data), []);
		assert.ok(buttons((await menu.followup(0)).body).includes(`plan:view:${user}`));
		assert.equal((await checked).care, 'plan');
	});

	test('an ordinary DM gets no offer; someone else cannot use a person’s buttons', async () => {
		const user = someone();
		const outcome = await sendDm(user, 'had a nice walk today');
		assert.equal(outcome.care, undefined);
		assert.equal(postsTo(s.fake, dmOf(s.fake, user)).length, 1);
		const other = await press(someone(), `care:follow:${user}:4h`).callback();
		assert.match(other.body.data.content, /someone else/);
		assert.equal((await sql('select 1 from crisis_follow_ups where user_id = ?', [user])).length, 0);
	});
});

describe('follow-ups', () => {
	const dueOf = async (user: string) => {
		const [row] = await sql<{ due_at: Date }>('select due_at from crisis_follow_ups where user_id = ?', [user]);
		return row ? new Date(row.due_at) : undefined;
	};
	const followUpDms = (user: string): RecordedRequest[] =>
		postsTo(s.fake, dmOf(s.fake, user)).filter((r) => /Checking in, as you asked/.test(textOf(r.body)));

	test('never without consent: a crisis reply alone schedules nothing', async () => {
		const user = someone();
		await sendDm(user, CRISIS);
		assert.equal(await dueOf(user), undefined);
		await container.care!.tick(new Date(Date.now() + 3 * 24 * HOUR));
		assert.equal(followUpDms(user).length, 0);
	});

	test('"in 4 hours": one DM at the due time, not before, never twice; "worse" brings the resources and the offer to talk', async () => {
		const user = someone();
		const pressedAt = Date.now();
		const scheduled = await press(user, `care:follow:${user}:4h`).callback();
		assertPrivate(scheduled.body.data);
		assert.match(scheduled.body.data.content, /I'll send you a direct message/);
		assert.deepEqual(buttons(scheduled.body.data), [`care:cancel:${user}`]);
		const due = (await dueOf(user))!;
		assert.ok(Math.abs(due.getTime() - (pressedAt + 4 * HOUR)) < 60_000, 'four hours later');
		const columns = await sql<{ column_name: string }>(
			"select column_name from information_schema.columns where table_name = 'crisis_follow_ups' order by 1",
		);
		assert.deepEqual(
			columns.map((c) => c.column_name),
			['created_at', 'due_at', 'user_id'],
			'nothing they wrote',
		);

		assert.equal((await container.care!.tick(new Date(due.getTime() - 60_000))).sent, 0, 'not before');
		assert.equal(followUpDms(user).length, 0);
		assert.equal((await container.care!.tick(due)).sent, 1);
		const [dm] = followUpDms(user);
		assert.ok(dm);
		assert.deepEqual(buttons(dm.body), [`care:answer:${user}:better`, `care:answer:${user}:same`, `care:answer:${user}:worse`]);
		assert.deepEqual(dm.body.allowed_mentions, { parse: [] });
		assert.equal((await container.care!.tick(new Date(due.getTime() + HOUR))).sent, 0, 'sent once');
		assert.equal(followUpDms(user).length, 1);
		assert.equal(await dueOf(user), undefined, 'nothing kept after it was sent');

		const worse = press(user, `care:answer:${user}:worse`, { message: { embeds: dm.body.embeds, components: dm.body.components } });
		const answer = await worse.callback();
		assert.equal(answer.body.type, InteractionResponseType.UpdateMessage);
		assert.deepEqual(answer.body.data.components, [], 'answered once');
		assert.match((await worse.followup(0)).body.content, /Crisis support worldwide/);
		assert.match((await worse.followup(1)).body.content, /if you'd like to talk, just write to me here/);
	});

	test('"better" is answered warmly; concurrent ticks send once', async () => {
		const user = someone();
		await press(user, `care:follow:${user}:1d`).callback();
		const due = (await dueOf(user))!;
		// Two instances of Haven ticking at the same moment: both read the due follow-up before either claims it (a
		// barrier in their stores makes that interleaving certain), so one sends and the other finds it taken.
		const em = () => container.db.orm.em.fork();
		const log = { warn: () => undefined, error: () => undefined };
		let read = 0;
		let bothRead!: () => void;
		const barrier = new Promise<void>((resolve) => (bothRead = resolve));
		const instance = () => {
			const store = followUpStore(em);
			return createCareScheduler({
				followUps: {
					...store,
					async due(at, limit) {
						const rows = await store.due(at, limit);
						if (++read === 2) bothRead();
						await barrier;
						return rows;
					},
				},
				send: followUpSender(container.client, log),
				em,
				post: async () => ({ id: '0' }),
				log,
			});
		};
		const [one, other] = [instance(), instance()];
		const [a, b] = await Promise.all([one.tick(due), other.tick(due)]);
		await Promise.all([one.stop(), other.stop()]);
		assert.equal(a.sent + b.sent, 1);
		assert.equal(a.lost + b.lost, 1, 'the other found it taken');
		assert.equal(followUpDms(user).length, 1);
		const better = await press(user, `care:answer:${user}:better`).callback();
		assert.match(better.body.data.content, /glad to hear/);
	});

	test('cancelled: nothing is sent', async () => {
		const user = someone();
		await press(user, `care:follow:${user}:1d`).callback();
		const cancelled = await press(user, `care:cancel:${user}`).callback();
		assert.equal(cancelled.body.type, InteractionResponseType.UpdateMessage);
		assert.match(cancelled.body.data.content, /Cancelled/);
		assert.equal(await dueOf(user), undefined);
		await container.care!.tick(new Date(Date.now() + 3 * 24 * HOUR));
		assert.equal(followUpDms(user).length, 0);
	});

	test('quiet hours in the person’s timezone: the follow-up lands after them', async () => {
		const user = someone();
		// Quiet hours covering the hours around "4 hours from now", in Tokyo time.
		const zone = 'Asia/Tokyo';
		const hourThen = Math.floor(localMinutes(new Date(Date.now() + 4 * HOUR), zone) / 60);
		const quiet = { start: (hourThen + 23) % 24, end: (hourThen + 3) % 24 };
		await sql(
			`insert into check_in_reminders (user_id, enabled, interval_minutes, timezone, quiet_start, quiet_end, next_due_at, created_at, updated_at)
			 values (?, false, 1440, ?, ?, ?, now(), now(), now())`,
			[user, zone, quiet.start, quiet.end],
		);
		await press(user, `care:follow:${user}:4h`).callback();
		const due = (await dueOf(user))!;
		assert.ok(due.getTime() > Date.now() + 4 * HOUR, 'moved later');
		assert.equal(inQuietHours(localMinutes(due, zone), quiet), false);
		assert.equal(localMinutes(due, zone), quiet.end * 60, 'at the end of the quiet hours');
	});

	test('closed DMs turn it off quietly', async () => {
		const user = someone();
		await press(user, `care:follow:${user}:4h`).callback();
		const due = (await dueOf(user))!;
		s.fake.setDmsClosed(user);
		try {
			const result = await container.care!.tick(due);
			assert.equal(result.closed, 1);
			assert.equal(await dueOf(user), undefined, 'not tried again');
		} finally {
			s.fake.setDmsClosed(user, false);
		}
	});
});

describe('unacknowledged alerts', () => {
	async function settings(options: Record<string, any>) {
		const ix = s.fake.sendSlashCommand({
			name: 'guildsettings',
			guildId: s.guildId,
			userId: someone(),
			permissions: PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages,
			subcommand: 'alerts',
			options,
		});
		return textOf((await ix.callback()).body.data);
	}

	async function mention(userId: string, content: string) {
		const done = nextOutcome('message');
		s.fake.sendMessage({ authorId: userId, guildId: s.guildId, channelId: s.general, mentionsBot: true, content });
		return done;
	}

	async function acknowledge(eventId: number) {
		const [row] = await sql<{ alert_message_id: string }>('select alert_message_id from crisis_events where id = ?', [eventId]);
		const ack = s.fake.sendButton({
			customId: `crisis-alert:ack:${eventId}`,
			message: row!.alert_message_id,
			guildId: s.guildId,
			channelId: s.modAlerts,
			userId: MOD,
		});
		assert.equal((await ack.callback()).body.type, InteractionResponseType.UpdateMessage);
	}

	const reminders = () => postsTo(s.fake, s.modAlerts).filter((r) => /Still open/.test(r.body.content));

	test('off by default; with escalate-after, a high alert nobody acknowledged is raised once more, once', async () => {
		await settings({ enabled: true, channel: { channel: s.modAlerts }, role: { role: s.moderatorRole } });
		const first = await mention(someone(), CRISIS);
		assert.equal(first.alert, 'posted');
		await container.care!.tick(new Date(Date.now() + 2 * HOUR));
		assert.equal(reminders().length, 0, 'off by default');
		await acknowledge(first.eventId!);

		assert.match(await settings({ enabled: true, 'escalate-after': 10 }), /raised once more/);
		const outcome = await mention(someone(), CRISIS);
		assert.equal(outcome.alert, 'posted');
		const [row] = await sql<{ alert_message_id: string; created_at: Date }>(
			'select alert_message_id, created_at from crisis_events where id = ?',
			[outcome.eventId],
		);
		const created = new Date(row!.created_at).getTime();
		assert.equal((await container.care!.tick(new Date(created + 9 * 60_000))).escalated, 0, 'not yet');
		assert.equal((await container.care!.tick(new Date(created + 11 * 60_000))).escalated, 1);
		const [reminder] = reminders();
		assert.ok(reminder);
		assert.ok(reminder.body.content.includes(`/${s.modAlerts}/${row!.alert_message_id}`), 'links the alert');
		assert.deepEqual(reminder.body.allowed_mentions, { parse: [], roles: [s.moderatorRole] });
		assert.equal((await container.care!.tick(new Date(created + 30 * 60_000))).escalated, 0, 'once');
		assert.equal(reminders().length, 1);
	});

	test('an acknowledged alert, or a concern, is not raised again', async () => {
		await settings({ enabled: true, channel: { channel: s.modAlerts }, 'escalate-after': 5 });
		const high = await mention(someone(), CRISIS);
		await acknowledge(high.eventId!);
		const concern = await mention(someone(), "I feel hopeless and I don't know how much longer I can keep going");
		assert.equal(concern.level, 'concern');
		await container.care!.tick(new Date(Date.now() + HOUR));
		assert.equal(reminders().length, 0);
		await settings({ enabled: true, 'escalate-after': 0 });
	});
});

describe('privacy', () => {
	test('export shows the plan decrypted and the follow-up; delete removes both; unused plans expire', async () => {
		const user = someone();
		await writePart(user, 1, 'Breathing slowly');
		await press(user, `care:follow:${user}:1d`).callback();
		const em = container.db.orm.em.fork();
		const data = await exportUserData(em, user);
		assert.equal(data.other.safety_plans?.[0]?.coping, 'Breathing slowly');
		assert.equal(data.other.crisis_follow_ups?.length, 1);
		const report = await deleteUserData(em.fork(), user);
		assert.deepEqual(report.unclassified, []);
		assert.deepEqual(await remainingReferences(em.fork(), user), {});

		const later = someone();
		await writePart(later, 0, 'Tired all the time');
		await purge(container.db.orm, new Date(Date.now() + 729 * 24 * HOUR));
		assert.ok(await planColumns(later), 'kept while in use');
		await purge(container.db.orm, new Date(Date.now() + 731 * 24 * HOUR));
		assert.equal(await planColumns(later), undefined, 'deleted two years after its last use');
	});
});
