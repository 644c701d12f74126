// DMs and mentions through the fake Discord: the crisis screen decides, resources go privately and first, the AI
// reply (careful) comes after, and ordinary server messages are never read.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MessageFlags } from 'discord.js';
import { NUMBER_PLACEHOLDER } from '../../src/lib/ai/index.ts';
import { ALICE, BOB, CAROL, MOD, completions, counter, dmOf, nextOutcome, postsTo, sql, useSafetyWorld, type SafetyWorld } from './support.ts';

let s: SafetyWorld;

useSafetyWorld((world) => (s = world));

const CRISIS = 'I want to kill myself, I cannot do this anymore';

function sendDm(authorId: string, content: string) {
	const done = nextOutcome('message');
	s.fake.sendMessage({ authorId, dm: true, content });
	return done;
}

function sendMention(authorId: string, content: string) {
	const done = nextOutcome('message');
	const sent = s.fake.sendMessage({ authorId, guildId: s.guildId, channelId: s.general, mentionsBot: true, content });
	return { done, sent };
}

describe('direct messages', () => {
	test('a DM that is not a crisis gets just the companion reply, counted as a conversation', async () => {
		const before = await counter('conversations');
		const crisisBefore = await counter('crisisEvents');
		const outcome = await sendDm(ALICE, 'I had a long day at work and feel a bit flat');
		assert.equal(outcome.level, 'none');
		assert.equal(outcome.aiReply, true);
		const posts = postsTo(s.fake, dmOf(s.fake, ALICE));
		assert.equal(posts.length, 1, 'one message');
		assert.match(posts[0]!.body.content, /I hear you/);
		assert.ok(!posts[0]!.body.content.includes('555-123-4567'), 'no phone number from the AI');
		assert.ok(posts[0]!.body.content.includes(NUMBER_PLACEHOLDER));
		assert.deepEqual(posts[0]!.body.allowed_mentions, { parse: [] });
		const typing = s.fake.requests.find((r) => r.method === 'POST' && r.path === `/channels/${dmOf(s.fake, ALICE)}/typing`);
		assert.ok(typing, 'Haven shows it is typing while the AI answers');
		assert.ok(typing.at <= posts[0]!.at, 'typing comes before the answer');
		const [completion] = completions(s.openai);
		assert.equal(completion!.careful, false);
		assert.equal(completion!.user, 'I had a long day at work and feel a bit flat');
		assert.equal(await counter('conversations'), before + 1);
		assert.equal(await counter('crisisEvents'), crisisBefore, 'no crisis event');
		assert.equal(s.openai.requests.filter((r) => r.path === '/v1/moderations').length, 1, 'every screened message gets the moderation pass');
	});

	test('a DM in crisis: the resources DM first, then the careful AI reply; the event is recorded without text or user', async () => {
		const crisisBefore = await counter('crisisEvents');
		const outcome = await sendDm(BOB, CRISIS);
		assert.equal(outcome.level, 'high');
		assert.equal(outcome.resources, 'sent');
		assert.equal(outcome.aiReply, true);
		const dm = dmOf(s.fake, BOB);
		const [first, care, ...rest] = postsTo(s.fake, dm);
		// After the resources, the care offer (a follow-up, a safety plan: test/safety/care.test.ts), then the AI.
		assert.match(care!.body.content, /check on you later/);
		const posts = [first, ...rest];
		assert.equal(posts.length, 2);
		// Resources first: deterministic, from the directory (no country set: the worldwide directory).
		assert.match(posts[0]!.body.content, /findahelpline\.com/);
		assert.match(posts[0]!.body.content, /glad you told me/);
		assert.ok(!posts[0]!.body.content.includes('I hear you'), 'the first message is not the AI');
		assert.match(posts[1]!.body.content, /I hear you/);
		assert.ok(s.fake.requests.indexOf(posts[0]!) < s.fake.requests.indexOf(posts[1]!), 'request order');
		const [completion] = completions(s.openai);
		assert.equal(completion!.careful, true, 'the AI is told to be careful');
		assert.ok(completion!.at >= posts[0]!.at, 'the AI was asked only after the resources went out');
		assert.ok(!posts[1]!.body.content.includes('555'), 'no number from the AI');

		const events = await sql<{
			guild_id: string | null;
			user_id: string | null;
			level: string;
			trigger: string;
			details: string | null;
			categories: string[];
		}>('select guild_id, user_id, level, trigger, details, categories from crisis_events where id = ?', [outcome.eventId]);
		assert.deepEqual(events[0], {
			guild_id: null,
			user_id: null,
			level: 'high',
			trigger: 'dm',
			details: null,
			categories: ['suicidal_ideation', 'distress'],
		});
		assert.equal(await counter('crisisEvents'), crisisBefore + 1);
	});

	test('imminent risk: the first message says to contact emergency services now', async () => {
		const outcome = await sendDm(CAROL, 'I have the pills right here and I am going to take them all tonight');
		assert.equal(outcome.level, 'imminent');
		const [first] = postsTo(s.fake, dmOf(s.fake, CAROL));
		assert.match(first!.body.content, /please call .* now/i);
	});

	test("the person's own country picks the lines (/preferences)", async () => {
		const ix = s.fake.sendSlashCommand({ name: 'preferences', dm: true, userId: CAROL, options: { country: 'GB' } });
		const callback = await ix.callback();
		assert.equal(callback.body.data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
		assert.match(JSON.stringify(callback.body.data.embeds), /United Kingdom/);
		s.fake.clearRequests();
		await sendDm(CAROL, CRISIS);
		const [first] = postsTo(s.fake, dmOf(s.fake, CAROL));
		assert.match(first!.body.content, /Samaritans/);
		assert.match(first!.body.content, /116 123/);
	});

	test('the AI down (fails): the resources still go out, and nothing else', async () => {
		s.openai.mode = 'fail';
		const outcome = await sendDm(ALICE, CRISIS);
		assert.equal(outcome.resources, 'sent');
		assert.equal(outcome.aiReply, false);
		const posts = postsTo(s.fake, dmOf(s.fake, ALICE));
		assert.equal(posts.length, 2, 'the resources and the care offer');
		assert.match(posts[0]!.body.content, /findahelpline/);
		assert.match(posts[1]!.body.content, /check on you later/);
	});

	test('the AI stalling: the resources go out at once, while the AI request is still held', async () => {
		s.openai.mode = 'stall';
		const done = sendDm(ALICE, CRISIS);
		let finished = false;
		void done.then(() => (finished = true));
		const resources = await s.fake.waitForRequest({ method: 'POST', path: `/channels/${dmOf(s.fake, ALICE)}/messages` }, 3_000);
		assert.match(resources.body.content, /findahelpline/);
		assert.equal(finished, false, 'the flow is still waiting for the AI when the resources are out');
		const outcome = await done; // the AI gives up after OPENAI_TIMEOUT_MS
		assert.equal(outcome.aiReply, false);
		assert.ok(completions(s.openai).length >= 1, 'the AI was asked');
		assert.equal(postsTo(s.fake, dmOf(s.fake, ALICE)).length, 2, 'the resources and the care offer, no fallback');
	});

	test('ambiguous text: the moderation pass may raise it to a crisis', async () => {
		s.openai.moderation = { selfHarmIntent: 0.95 };
		const outcome = await sendDm(ALICE, 'kill me now, another meeting');
		assert.equal(outcome.level, 'high');
		assert.equal(s.openai.requests.filter((r) => r.path === '/v1/moderations').length, 1);
		const posts = postsTo(s.fake, dmOf(s.fake, ALICE));
		assert.match(posts[0]!.body.content, /findahelpline/);
	});

	test('the moderation pass runs on clear text too, and can only raise: a crisis stays a crisis when it scores 0', async () => {
		s.openai.moderation = { selfHarm: 0, selfHarmIntent: 0, selfHarmInstructions: 0 };
		const plain = await sendDm(ALICE, 'the garden looks lovely after the rain');
		assert.equal(plain.level, 'none');
		const crisis = await sendDm(BOB, CRISIS);
		assert.equal(crisis.level, 'high', 'a zero score never lowers the screen');
		assert.equal(s.openai.requests.filter((r) => r.path === '/v1/moderations').length, 2, 'one pass per screened message');
	});

	test('a stalled moderation pass changes nothing: the crisis is answered and recorded at its screened level', async () => {
		s.openai.mode = 'stall';
		s.openai.stallMs = 3_000;
		const crisisBefore = await counter('crisisEvents');
		const outcome = await sendDm(BOB, CRISIS);
		assert.equal(outcome.level, 'high');
		assert.ok(outcome.eventId !== undefined, 'the event was recorded after the bounded wait');
		assert.equal(await counter('crisisEvents'), crisisBefore + 1);
		const posts = postsTo(s.fake, dmOf(s.fake, BOB));
		assert.ok(posts.length >= 1, 'the resources went out');
	});

	test('ambiguous text with the moderation failing: nothing changes', async () => {
		s.openai.mode = 'fail';
		const outcome = await sendDm(ALICE, 'kill me now, another meeting');
		assert.equal(outcome.level, 'none');
		const posts = postsTo(s.fake, dmOf(s.fake, ALICE));
		assert.equal(posts.length, 1, 'only the (fallback) companion reply');
		assert.doesNotMatch(posts[0]!.body.content, /findahelpline/);
	});

	test('opt-out: DMs are not screened (just the companion), but /crisis still answers', async () => {
		const ix = s.fake.sendSlashCommand({ name: 'preferences', dm: true, userId: BOB, options: { screening: false } });
		assert.match(JSON.stringify((await ix.callback()).body.data.embeds), /\*\*Off\*\*/);
		s.fake.clearRequests();
		const crisisBefore = await counter('crisisEvents');
		const outcome = await sendDm(BOB, CRISIS);
		assert.equal(outcome.screened, false);
		assert.equal(outcome.level, 'none');
		const posts = postsTo(s.fake, dmOf(s.fake, BOB));
		assert.equal(posts.length, 1);
		assert.match(posts[0]!.body.content, /I hear you/);
		assert.equal(completions(s.openai)[0]!.careful, false);
		assert.equal(await counter('crisisEvents'), crisisBefore);

		const command = nextOutcome('command');
		const crisis = s.fake.sendSlashCommand({ name: 'crisis', dm: true, userId: BOB, options: { message: CRISIS } });
		assert.match((await crisis.callback()).body.data.content, /findahelpline/);
		await command;
		// Back on for the other tests.
		await s.fake.sendSlashCommand({ name: 'preferences', dm: true, userId: BOB, options: { screening: true } }).callback();
	});
});

describe('mentions in a server', () => {
	test('a mention that is not a crisis: the companion answers in the channel, as a reply that pings nobody', async () => {
		const { done, sent } = sendMention(ALICE, 'what is a good way to wind down before bed?');
		const outcome = await done;
		assert.equal(outcome.level, 'none');
		const [answer] = postsTo(s.fake, s.general);
		assert.match(answer!.body.content, /I hear you/);
		assert.equal(answer!.body.message_reference.message_id, sent.message.id);
		assert.deepEqual(answer!.body.allowed_mentions, { parse: [], replied_user: false });
		assert.ok(!completions(s.openai)[0]!.user.includes('<@'), "the bot's mention is removed from the text");
	});

	test('a mention in crisis: resources by DM first, a neutral note in the channel, the careful reply by DM', async () => {
		const { done } = sendMention(CAROL, 'honestly i want to die');
		const outcome = await done;
		assert.equal(outcome.level, 'high');
		assert.equal(outcome.resources, 'sent');
		const dm = dmOf(s.fake, CAROL);
		const [first, care, ...rest] = postsTo(s.fake, dm);
		assert.match(care!.body.content, /check on you later/, 'the care offer, by DM too');
		const dmPosts = [first, ...rest];
		assert.equal(dmPosts.length, 2);
		assert.match(dmPosts[0]!.body.content, /Samaritans/, "Carol's own country (GB)");
		assert.match(dmPosts[1]!.body.content, /I hear you/);
		const [note] = postsTo(s.fake, s.general);
		assert.equal(note!.body.content, `<@${CAROL}> I've sent you a direct message.`);
		assert.deepEqual(note!.body.allowed_mentions, { parse: [] });
		assert.equal(note!.body.message_reference, undefined, 'not a reply: no quote');
		assert.ok(s.fake.requests.indexOf(dmPosts[0]!) < s.fake.requests.indexOf(dmPosts[1]!));
		const rows = await sql<{
			guild_id: string;
			user_id: string | null;
			trigger: string;
			details: string | null;
			alert_message_id: string | null;
		}>('select guild_id, user_id, trigger, details, alert_message_id from crisis_events where id = ?', [outcome.eventId]);
		assert.deepEqual(
			rows[0],
			{ guild_id: s.guildId, user_id: null, trigger: 'mention', details: null, alert_message_id: null },
			'alerts off: no user, no text',
		);
	});

	test('DMs closed: a gentle public fallback that never quotes them, and no AI reply anywhere', async () => {
		s.fake.setDmsClosed(ALICE, true);
		try {
			const text = 'i want to kill myself tonight, i have made up my mind';
			const { done } = sendMention(ALICE, text);
			const outcome = await done;
			assert.equal(outcome.resources, 'closed');
			assert.equal(outcome.aiReply, false);
			const posts = postsTo(s.fake, s.general);
			assert.equal(posts.length, 1);
			const fallback = posts[0]!.body;
			assert.match(fallback.content, /`\/crisis`/);
			assert.match(fallback.content, /can't send you direct messages/);
			for (const word of ['kill', 'tonight', 'mind']) assert.ok(!fallback.content.includes(word), `no quote (${word})`);
			assert.equal(fallback.message_reference, undefined);
			assert.deepEqual(fallback.allowed_mentions, { parse: [], users: [ALICE] });
			assert.equal(completions(s.openai).length, 0, 'no AI reply when it could only be public');
		} finally {
			s.fake.setDmsClosed(ALICE, false);
		}
	});

	test('AI replies to mentions switched off: no reply to ordinary mentions, the screen still protects', async () => {
		// The owner has all permissions.
		const ix = s.fake.sendSlashCommand({
			name: 'guildsettings',
			guildId: s.guildId,
			userId: s.fake.guild(s.guildId)!.ownerId,
			subcommand: 'feature',
			options: { feature: 'aiMentions', enabled: false },
		});
		assert.match(JSON.stringify((await ix.callback()).body.data), /Saved/);
		try {
			s.fake.clearRequests();
			const quiet = await sendMention(ALICE, 'hello there').done;
			assert.equal(quiet.aiReply, false);
			assert.equal(postsTo(s.fake, s.general).length, 0);
			const crisis = await sendMention(ALICE, 'i want to die').done;
			assert.equal(crisis.resources, 'sent');
			assert.equal(postsTo(s.fake, dmOf(s.fake, ALICE)).length, 2, 'resources and the care offer only');
			assert.equal(completions(s.openai).length, 0);
		} finally {
			// Another admin (the command has a 5 s cooldown per person).
			const back = s.fake.sendSlashCommand({
				name: 'guildsettings',
				guildId: s.guildId,
				userId: MOD,
				subcommand: 'feature',
				options: { feature: 'aiMentions', enabled: true },
			});
			assert.match(JSON.stringify((await back.callback()).body.data), /Saved/);
		}
	});

	test('ordinary server messages are never read; bots are ignored', async () => {
		s.fake.sendMessage({ authorId: ALICE, guildId: s.guildId, channelId: s.general, content: 'I want to kill myself' });
		s.fake.sendMessage({
			authorId: s.fake.applicationId,
			dm: false,
			guildId: s.guildId,
			channelId: s.general,
			content: `<@${s.fake.applicationId}> i want to die`,
		});
		// Then one that is handled: everything before it has been dispatched and ignored by then.
		await sendMention(BOB, 'hello').done;
		assert.equal(s.fake.requests.filter((r) => r.method === 'POST' && r.path === '/users/@me/channels').length, 0, 'no DM opened');
		assert.equal(postsTo(s.fake, s.general).length, 1, 'only the answer to the mention');
		assert.equal(completions(s.openai).length, 1);
		assert.equal(completions(s.openai)[0]!.user, 'hello');
	});
});
