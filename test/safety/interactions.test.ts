// /crisis, "Check in on this message", /guildsettings and moderator alerts through the fake Discord: private answers
// first, events recorded (encrypted details only with alerts on), alerts deduplicated, Acknowledge / Resolved stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ComponentType, InteractionResponseType, MessageFlags, PermissionFlagsBits } from 'discord.js';
import { forgetAuthorOffers } from '../../src/lib/safety/flows.ts';
import { ALERT_NOT_ALLOWED, alertButtonId } from '../../src/lib/safety/crisis-views.ts';
import { snowflakeAt, type SlashCommandInput } from '../support/fake-discord.ts';
import {
	ALICE,
	BOB,
	CAROL,
	completions,
	counter,
	dmOf,
	ENCRYPTION_KEY,
	MOD,
	nextOutcome,
	postsTo,
	sql,
	useSafetyWorld,
	type SafetyWorld,
} from './support.ts';

let s: SafetyWorld;
let nextId = 1;
/** A fresh member id: per-person cooldowns of earlier tests never get in the way. */
const someone = () => snowflakeAt(1_480_000_000_000, nextId++);

useSafetyWorld((world) => (s = world));

const ADMIN_PERMISSIONS = PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;

async function guildSettings(subcommand: string, options: SlashCommandInput['options'] = {}) {
	const ix = s.fake.sendSlashCommand({
		name: 'guildsettings',
		guildId: s.guildId,
		userId: someone(),
		permissions: ADMIN_PERMISSIONS,
		subcommand,
		options,
	});
	const callback = await ix.callback();
	return { data: callback.body.data, text: `${callback.body.data.content ?? ''}\n${JSON.stringify(callback.body.data.embeds ?? [])}` };
}

async function crisis(options: SlashCommandInput['options'], userId = someone()) {
	const done = nextOutcome('command');
	const ix = s.fake.sendSlashCommand({ name: 'crisis', guildId: s.guildId, userId, options });
	const callback = await ix.callback();
	return { ix, callback, outcome: await done };
}

async function checkIn(authorId: string, content: string, reporterId = someone()) {
	const done = nextOutcome('checkIn');
	const ix = s.fake.sendContextMenu({
		name: 'Check in on this message',
		type: 'message',
		guildId: s.guildId,
		channelId: s.general,
		userId: reporterId,
		targetUserId: authorId,
		targetMessage: { content },
	});
	const callback = await ix.callback();
	return { ix, callback, reporterId, targetId: ix.payload.data.target_id as string, outcome: await done };
}

function assertPrivate(data: any) {
	assert.equal(data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral, 'ephemeral');
	assert.deepEqual(data.allowed_mentions, { parse: [] }, 'pings nobody');
}

async function event(id: number | undefined) {
	assert.ok(id !== undefined, 'an event was recorded');
	const rows = await sql<Record<string, any>>('select * from crisis_events where id = ?', [id]);
	return rows[0]!;
}

describe('/crisis', () => {
	test('without text: the resources, privately, with no cooldown; recorded as help-seeking without the person', async () => {
		const before = await counter('crisisEvents');
		const userId = someone();
		const first = await crisis({}, userId);
		assert.equal(first.callback.body.type, InteractionResponseType.ChannelMessageWithSource);
		assertPrivate(first.callback.body.data);
		assert.match(first.callback.body.data.content, /Crisis support worldwide/);
		const row = await event(first.outcome.eventId);
		assert.equal(row.level, 'concern');
		assert.deepEqual(row.categories, ['help_seeking']);
		assert.equal(row.trigger, 'command');
		assert.equal(row.guild_id, s.guildId);
		assert.equal(row.user_id, null);
		assert.equal(row.details, null);
		assert.equal(await counter('crisisEvents'), before + 1);
		assert.equal(completions(s.openai).length, 0, 'no AI without text');
		// No cooldown: asking again at once is answered, not refused.
		const second = await crisis({}, userId);
		assert.match(second.callback.body.data.content, /Crisis support worldwide/);
	});

	test('with text in crisis: the fitted reply first, then a careful AI follow-up, both private', async () => {
		const { ix, callback, outcome } = await crisis({ message: 'i want to kill myself and i dont know what to do' });
		assertPrivate(callback.body.data);
		assert.match(callback.body.data.content, /glad you told me/);
		assert.equal(outcome.aiReply, true);
		const care = await ix.followup(0);
		assert.match(care.body.content, /check on you later/, 'the care offer comes right after the resources');
		const followup = await ix.followup(1);
		assert.equal(followup.body.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
		assert.match(followup.body.content, /I hear you/);
		assert.ok(!followup.body.content.includes('555'), 'no number from the AI');
		assert.ok(s.fake.requests.indexOf(callback) < s.fake.requests.indexOf(followup));
		assert.equal(completions(s.openai)[0]!.careful, true);
		assert.equal((await event(outcome.eventId)).level, 'high');
	});

	test('a country chosen for this answer wins', async () => {
		const { callback } = await crisis({ country: 'JP' });
		assert.match(callback.body.data.content, /Yorisoi Hotline/);
	});

	test('the AI down: the resources still go out, no follow-up', async () => {
		s.openai.mode = 'fail';
		const { ix, callback, outcome } = await crisis({ message: 'i want to die' });
		assert.match(callback.body.data.content, /glad you told me/);
		assert.equal(outcome.aiReply, false);
		const followups = ix.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/webhooks/'));
		assert.deepEqual(
			followups.map((r) => /check on you later/.test(r.body.content)),
			[true],
			'the care offer only',
		);
	});
});

describe('/guildsettings', () => {
	test('needs Manage Server', async () => {
		const ix = s.fake.sendSlashCommand({ name: 'guildsettings', guildId: s.guildId, userId: ALICE, subcommand: 'view' });
		const callback = await ix.callback();
		assert.match(callback.body.data.content, /Manage Server/);
	});

	test('view: the defaults (alerts off, author offer off, worldwide, features on)', async () => {
		const { data, text } = await guildSettings('view');
		assertPrivate(data);
		assert.match(text, /Crisis alerts to moderators.*\*\*Off\*\*/);
		assert.match(text, /Worldwide directory/);
		assert.match(text, /Offer resources.*\*\*off\*\*/);
	});

	test('alerts need a channel, and one Haven can post in', async () => {
		assert.match((await guildSettings('alerts', { enabled: true })).text, /Choose a channel/);
		const refused = await guildSettings('alerts', { enabled: true, channel: { channel: s.rules } });
		assert.match(refused.text, /Haven can't post there: it needs Send Messages/);
		assert.match(refused.text, /Nothing was changed/);
		assert.match((await guildSettings('view')).text, /Crisis alerts to moderators.*\*\*Off\*\*/);
		const general = await guildSettings('checkin-channel', { channel: { channel: s.rules } });
		assert.match(general.text, /Haven can't post there/);
	});

	test('country: applies at once to members without their own', async () => {
		assert.match((await guildSettings('country', { country: 'AU' })).text, /Australia \(AU\)/);
		const { callback } = await crisis({});
		assert.match(callback.body.data.content, /Lifeline/);
		assert.match(callback.body.data.content, /13 11 14/);
		await guildSettings('country', { country: 'INTL' });
	});
});

describe('Check in on this message, alerts off (the default)', () => {
	test('the member who asked gets guidance and resources privately; nobody else hears of it; no text or user kept', async () => {
		const { callback, outcome, reporterId } = await checkIn(ALICE, 'i want to die, nothing matters');
		assertPrivate(callback.body.data);
		const content: string = callback.body.data.content;
		assert.match(content, /Thank you for looking out for them/);
		assert.match(content, /Nobody is told that you used this/);
		assert.doesNotMatch(content, /moderators/);
		assert.ok(!content.includes(reporterId) && !content.includes(ALICE));
		assert.equal(outcome.alert, undefined);
		assert.equal(outcome.authorOffer, undefined, 'the offer is off by default');
		assert.equal(postsTo(s.fake, s.modAlerts).length, 0);
		assert.equal(s.fake.requests.filter((r) => r.path === '/users/@me/channels').length, 0, 'nobody is DMed');
		const row = await event(outcome.eventId);
		assert.equal(row.level, 'high');
		assert.ok(row.categories.includes('third_party'));
		assert.equal(row.trigger, 'context_menu');
		assert.equal(row.user_id, null);
		assert.equal(row.details, null, 'alerts off: no text at all');
	});

	test('a message with no crisis words still counts as worry (concern)', async () => {
		const { callback, outcome } = await checkIn(CAROL, 'see you all at the match tonight');
		assert.match(callback.body.data.content, /Thank you for looking out for them/);
		assert.equal((await event(outcome.eventId)).level, 'concern');
	});

	test("a bot's message: nothing to check; one's own message: answered like /crisis", async () => {
		const bot = await checkIn(s.fake.applicationId, 'hello');
		assert.match(bot.callback.body.data.content, /written by a bot/);
		assert.equal(bot.outcome.eventId, undefined);
		const own = someone();
		const self = await checkIn(own, 'i want to die', own);
		assert.match(self.callback.body.data.content, /glad you told me/);
		assert.equal((await event(self.outcome.eventId)).user_id, null);
	});
});

describe('moderator alerts (opt-in)', () => {
	let alertMessageId: string;
	let alertEventId: number;

	test('turning alerts on: channel and role checked, saved, applies at once', async () => {
		const saved = await guildSettings('alerts', { enabled: true, channel: { channel: s.modAlerts }, role: { role: s.moderatorRole } });
		assert.match(saved.text, /Saved/);
		assert.match(saved.text, /without pinging it/, 'the Moderator role is not mentionable: said so');
		assert.doesNotMatch(saved.text, /everyone in the server can see/);
		assert.match(saved.text, new RegExp(`On\\*\\*, in <#${s.modAlerts}>, pinging <@&${s.moderatorRole}>`));
		const everyone = await guildSettings('alerts', { enabled: true, channel: { channel: s.general } });
		assert.match(everyone.text, /everyone in the server can see that channel/);
		await guildSettings('alerts', { enabled: true, channel: { channel: s.modAlerts } });
	});

	test('the context menu with alerts: an alert with the level, a link and the role ping, never the reporter or the words', async () => {
		const text = 'honestly i want to kill myself';
		const { callback, outcome, reporterId, targetId } = await checkIn(CAROL, text);
		assert.match(callback.body.data.content, /moderators have been let know privately, without your name/);
		assert.equal(outcome.alert, 'posted');
		const [post] = postsTo(s.fake, s.modAlerts);
		const body = post!.body;
		assert.match(body.content, /\*\*Haven wellbeing alert\*\* · level \*\*High\*\*/);
		assert.ok(body.content.includes(`https://discord.com/channels/${s.guildId}/${s.general}/${targetId}`), 'jump link');
		assert.ok(body.content.startsWith(`<@&${s.moderatorRole}>`));
		assert.deepEqual(body.allowed_mentions, { parse: [], roles: [s.moderatorRole] }, 'only the role is pinged');
		assert.ok(!body.content.includes(reporterId), 'never who asked');
		assert.ok(!body.content.includes(CAROL), 'no name');
		assert.ok(!body.content.includes('kill'), 'no quote');
		const buttons = body.components[0].components.map((b: any) => b.custom_id);
		assert.deepEqual(buttons, [alertButtonId('ack', outcome.eventId!), alertButtonId('resolve', outcome.eventId!)]);

		const row = await event(outcome.eventId);
		assert.equal(row.user_id, CAROL, 'kept for the deduplication');
		assert.match(row.details, /^hv2:/, 'the excerpt is encrypted at rest');
		assert.ok(!row.details.includes('kill'));
		assert.ok(ENCRYPTION_KEY);
		const message = s.fake.message(row.alert_message_id);
		assert.ok(message, 'the alert message id is stored');
		alertMessageId = row.alert_message_id;
		alertEventId = outcome.eventId!;
		// The entity decrypts it.
		const { CrisisEvent } = await import('../../src/lib/db/index.ts');
		const { container } = await import('@sapphire/framework');
		const entity = await container.db.orm.em.fork().findOneOrFail(CrisisEvent, { id: outcome.eventId! });
		assert.equal(entity.details, text);
	});

	test('deduplicated per person: a second worry within the window posts nothing; an escalation does', async () => {
		const again = await checkIn(CAROL, 'i want to die');
		assert.equal(again.outcome.alert, 'duplicate');
		assert.equal(postsTo(s.fake, s.modAlerts).length, 0);
		assert.equal((await event(again.outcome.eventId)).alert_message_id, null, 'the event is still recorded');

		const mention = nextOutcome('message');
		s.fake.sendMessage({ authorId: CAROL, guildId: s.guildId, channelId: s.general, mentionsBot: true, content: 'i still want to die' });
		assert.equal((await mention).alert, 'duplicate', 'a mention by the same person too');

		const worse = await checkIn(CAROL, 'i have the pills here and i will take them all tonight');
		assert.equal(worse.outcome.alert, 'posted');
		const [post] = postsTo(s.fake, s.modAlerts);
		assert.match(post!.body.content, /level \*\*Imminent\*\*/);
		assert.match(post!.body.content, /contact emergency services/);
	});

	test('a mention in crisis raises an alert too; the author got the resources by DM first', async () => {
		const author = BOB;
		const done = nextOutcome('message');
		const sent = s.fake.sendMessage({
			authorId: author,
			guildId: s.guildId,
			channelId: s.general,
			mentionsBot: true,
			content: 'i want to kill myself',
		});
		const outcome = await done;
		assert.equal(outcome.alert, 'posted');
		const [post] = postsTo(s.fake, s.modAlerts);
		assert.match(post!.body.content, /the message mentioned Haven/);
		assert.ok(post!.body.content.includes(`/${s.general}/${sent.message.id}`));
		const resources = postsTo(s.fake, dmOf(s.fake, author))[0]!;
		assert.ok(s.fake.requests.indexOf(resources) < s.fake.requests.indexOf(post!), 'resources before the alert');
		const row = await event(outcome.eventId);
		assert.equal(row.user_id, author);
		assert.match(row.details, /^hv2:/);
	});

	test('Acknowledge and Resolved: only the support side may press; who and when are stored; first press wins', async () => {
		const press = (action: 'ack' | 'resolve', userId: string, permissions?: bigint) =>
			s.fake.sendButton({
				customId: alertButtonId(action, alertEventId),
				message: alertMessageId,
				guildId: s.guildId,
				channelId: s.modAlerts,
				userId,
				...(permissions === undefined ? {} : { permissions }),
			});

		// A member who cannot see the alert channel.
		const refused = await press('ack', ALICE).callback();
		assert.equal(refused.body.type, InteractionResponseType.ChannelMessageWithSource);
		assert.equal(refused.body.data.content, ALERT_NOT_ALLOWED);
		assert.equal(refused.body.data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
		// Seeing the channel is not enough.
		const viewer = await press('ack', someone(), PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages).callback();
		assert.equal(viewer.body.data.content, ALERT_NOT_ALLOWED);
		assert.equal((await event(alertEventId)).acknowledged_by, null);

		const ack = await press('ack', MOD).callback();
		assert.equal(ack.body.type, InteractionResponseType.UpdateMessage);
		assert.match(ack.body.data.embeds[0].description, new RegExp(`\\*\\*Acknowledged\\*\\* by <@${MOD}> <t:\\d+:R>`));
		assert.equal(ack.body.data.content, undefined, 'the text (and its ping) is left alone');
		const [ackButton, resolveButton] = ack.body.data.components[0].components;
		assert.equal(ackButton.disabled, true);
		assert.equal(resolveButton.disabled, false);
		let row = await event(alertEventId);
		assert.equal(row.acknowledged_by, MOD);
		const acknowledgedAt = new Date(row.acknowledged_at).getTime();
		assert.ok(Math.abs(Date.now() - acknowledgedAt) < 60_000, 'when');

		const owner = s.fake.guild(s.guildId)!.ownerId;
		const second = press('ack', owner);
		assert.equal((await second.callback()).body.type, InteractionResponseType.UpdateMessage);
		assert.match((await second.followup(0)).body.content, new RegExp(`already acknowledged by <@${MOD}>`));
		assert.equal((await event(alertEventId)).acknowledged_by, MOD, 'first press wins');

		const resolve = await press('resolve', owner).callback();
		assert.match(resolve.body.data.embeds[0].description, new RegExp(`\\*\\*Resolved\\*\\* by <@${owner}>`));
		assert.match(resolve.body.data.embeds[0].description, new RegExp(`Acknowledged by <@${MOD}>`));
		assert.ok(resolve.body.data.components[0].components.every((b: any) => b.type === ComponentType.Button && b.disabled));
		row = await event(alertEventId);
		assert.equal(row.resolved_by, owner);
		assert.ok(new Date(row.resolved_at).getTime() >= acknowledgedAt, 'when');
		assert.equal(new Date(row.acknowledged_at).getTime(), acknowledgedAt, 'acknowledgement kept');
		const edited = s.fake.message(alertMessageId)!;
		assert.match(edited.content, /Haven wellbeing alert/, 'the alert text is still there');
	});

	test('alerts off again: no alert, and no text kept', async () => {
		await guildSettings('alerts', { enabled: false });
		const { outcome } = await checkIn(someone(), 'i want to die');
		assert.equal(outcome.alert, undefined);
		assert.equal(postsTo(s.fake, s.modAlerts).length, 0);
		const row = await event(outcome.eventId);
		assert.equal(row.details, null);
		assert.equal(row.user_id, null);
		await guildSettings('alerts', { enabled: true });
	});
});

describe('offering resources to the author (opt-in)', () => {
	test('on: the author gets a DM that never says who asked, once per window; not for benign words; not when opted out', async () => {
		forgetAuthorOffers();
		assert.match((await guildSettings('author-offer', { enabled: true })).text, /Saved/);
		const author = someone();
		const first = await checkIn(author, 'i want to die');
		assert.equal(first.outcome.authorOffer, 'sent');
		const [dm] = postsTo(s.fake, dmOf(s.fake, author));
		assert.match(dm!.body.content, /Someone there read something you wrote/);
		assert.match(dm!.body.content, /findahelpline/);
		assert.ok(!dm!.body.content.includes(first.reporterId));
		assert.ok(!dm!.body.content.includes('want to die'));
		// After the resources, the author (the person concerned) gets the care offer too: a follow-up, a plan.
		const [, care] = postsTo(s.fake, dmOf(s.fake, author));
		assert.match(care!.body.content, /check on you later/);
		assert.equal(first.outcome.care, 'make-plan');

		s.fake.clearRequests();
		const second = await checkIn(author, 'i want to die');
		assert.equal(second.outcome.authorOffer, 'skipped');
		assert.equal(postsTo(s.fake, dmOf(s.fake, author)).length, 0);

		const calm = someone();
		assert.equal((await checkIn(calm, 'lovely weather today')).outcome.authorOffer, 'skipped');

		const private_ = someone();
		await s.fake.sendSlashCommand({ name: 'preferences', guildId: s.guildId, userId: private_, options: { screening: false } }).callback();
		assert.equal((await checkIn(private_, 'i want to die')).outcome.authorOffer, 'skipped');
		assert.equal(s.fake.requests.filter((r) => r.path === `/channels/${dmOf(s.fake, private_)}/messages`).length, 0);
	});
});
