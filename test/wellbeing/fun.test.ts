// /joke, /compliment, /trivia and /wouldyourather through the fake Discord with the fake OpenAI: AI content and the
// fallback pools (failure, garbage, unkind output, a stall past 3 s), names without pings, the buttons with their
// one-answer and one-vote rules under concurrent clicks, reveal by the starter only, the games toggle, cooldowns.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import { updateGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { COMPLIMENTS, JOKES } from '../../src/lib/wellbeing/fun.ts';
import { TRIVIA_POOL, WYR_POOL } from '../../src/lib/wellbeing/games.ts';
import type { RecordedRequest, SentInteraction } from '../support/fake-discord.ts';
import {
	assertPrivate,
	assertPublic,
	buttonsOf,
	completions,
	JUNO,
	KAI,
	run,
	someone,
	sql,
	startWellbeingWorld,
	textOf,
	type WellbeingWorld,
} from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

beforeEach(() => w.openai.reset());

const TRIVIA_JSON = JSON.stringify({
	question: 'Which planet is closest to the Sun?',
	choices: ['Mercury', 'Venus', 'Earth', 'Mars'],
	answer: 0,
	explanation: 'Mercury orbits closest to the Sun, taking 88 days per orbit.',
});
const WYR_JSON = '```json\n{"a": "Would you rather have a pet penguin", "b": "or a pet otter?"}\n```';

/** The message a command posted (its interaction's original response), as the fake stores it. */
async function postedMessage(ix: SentInteraction): Promise<any> {
	const base = w.fake.restUrl.replace(/\/api$/, '');
	const response = await fetch(`${base}/api/v10/webhooks/${w.fake.applicationId}/${ix.token}/messages/@original`);
	assert.equal(response.status, 200);
	return response.json();
}

/** A button click on a known message; resolves with its first answer and the private followup, if any. */
async function click(messageId: string, customId: string, userId: string): Promise<{ callback: RecordedRequest; ix: SentInteraction }> {
	const ix = w.fake.sendButton({ customId, userId, message: messageId });
	return { callback: await ix.callback(), ix };
}

describe('/joke and /compliment', () => {
	test('/joke: the AI’s joke, public, pinging nobody; a joke-specific prompt', async () => {
		w.openai.reply = 'Why did the kettle apply for a job? It wanted to be a little more steeped in work.';
		const { callback } = await run(w.fake, { name: 'joke', userId: someone() });
		assertPublic(callback);
		assert.equal(callback.body.data.content, '😄 Why did the kettle apply for a job? It wanted to be a little more steeped in work.');
		assert.match(completions(w.openai)[0]!.system, /Task: tell one short, clean, original joke/);
	});

	test('/joke: failure or unkind output -> the pool; numbers and mentions never posted', async () => {
		w.openai.mode = 'fail';
		const failed = await run(w.fake, { name: 'joke', userId: someone() });
		assert.ok(JOKES.includes(failed.callback.body.data.content.replace(/^😄 /, '')));
		w.openai.mode = 'answer';
		w.openai.reply = 'You are so stupid that you laughed at this joke.';
		const unkind = await run(w.fake, { name: 'joke', userId: someone() });
		assert.ok(JOKES.includes(unkind.callback.body.data.content.replace(/^😄 /, '')), 'unkind AI output is not posted');
		w.openai.reply = 'Call 555-123-4567 for more jokes, <@123456789012345678>!';
		const sneaky = await run(w.fake, { name: 'joke', userId: someone() });
		assert.doesNotMatch(sneaky.callback.body.data.content, /555|<@/);
	});

	test('/joke: cooldown of about 5 seconds', async () => {
		const user = someone();
		await run(w.fake, { name: 'joke', userId: user });
		const { callback } = await run(w.fake, { name: 'joke', userId: user });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /try again in [3-5] seconds/);
	});

	test('/compliment for oneself and for another member: display name, escaped, no ping; the AI never sees names', async () => {
		w.openai.reply = 'Your patience with others makes hard days easier for everyone around you.';
		const self = await run(w.fake, { name: 'compliment', userId: someone() });
		assertPublic(self.callback);
		assert.equal(self.callback.body.data.content, '💐 Your patience with others makes hard days easier for everyone around you.');

		const forJuno = await run(w.fake, { name: 'compliment', userId: KAI, options: { member: { user: JUNO } } });
		assertPublic(forJuno.callback);
		const content = forJuno.callback.body.data.content as string;
		assert.match(content, /^💐 \*\*For Juno \\\*the\\\* Brave\*\*, from @\u200beveryone Kai:\n/);
		assert.doesNotMatch(content, /<@/);
		assert.deepEqual(forJuno.callback.body.data.allowed_mentions, { parse: [] });
		for (const call of completions(w.openai)) assert.doesNotMatch(`${call.system}\n${call.user}`, /Juno|Kai/);

		w.openai.mode = 'rate_limit';
		w.openai.retryAfter = undefined;
		const pooled = await run(w.fake, { name: 'compliment', userId: JUNO, options: { member: { user: KAI } } });
		const text = pooled.callback.body.data.content as string;
		assert.ok(
			COMPLIMENTS.some((c) => text.endsWith(c)),
			text,
		);
	});
});

describe('/trivia', () => {
	test('an AI question: public, four answer buttons and reveal; answers told privately, one per person', async () => {
		w.openai.reply = TRIVIA_JSON;
		const starter = someone();
		const { callback, ix } = await run(w.fake, { name: 'trivia', userId: starter, options: { category: 'space' } });
		assertPublic(callback);
		assert.match(textOf(callback.body), /Trivia · Space/);
		assert.match(textOf(callback.body), /Which planet is closest to the Sun\?/);
		assert.match(completions(w.openai)[0]!.system, /trivia question about space/);
		const buttons = buttonsOf(callback.body);
		assert.deepEqual(
			buttons.map((b) => b.label),
			['A', 'B', 'C', 'D', 'Reveal answer'],
		);
		const [row] = await sql<{ content: any; started_by: string }>('select content, started_by from game_rounds order by id desc limit 1');
		assert.equal(row!.started_by, starter);
		const correct = row!.content.answer as number;
		assert.equal(row!.content.choices[correct], 'Mercury', 'the answer moved with the shuffle');

		const message = await postedMessage(ix);
		const right = someone();
		const answer = await click(message.id, buttons[correct]!.custom_id!, right);
		assert.equal(answer.callback.body.type, InteractionResponseType.DeferredMessageUpdate);
		const feedback = await answer.ix.followup(0);
		assert.ok(feedback.body.flags & 64, 'private');
		assert.match(feedback.body.content, /Correct! \*\*[A-D]\. Mercury\*\*/);
		assert.match(feedback.body.content, /88 days/);
		assert.match(textOf(w.fake.message(message.id)), /1 person answered/);

		const wrongChoice = (correct + 1) % 4;
		const wrong = await click(message.id, buttons[wrongChoice]!.custom_id!, someone());
		assert.match((await wrong.ix.followup(0)).body.content, /Not quite: you chose [A-D]\. The answer is \*\*[A-D]\. Mercury\*\*/);

		const again = await click(message.id, buttons[wrongChoice]!.custom_id!, right);
		assert.match((await again.ix.followup(0)).body.content, /already answered this one/);
		const votes = await sql<{ user_id: string; choice: number }>(
			'select user_id, choice from game_votes where round_id = (select max(id) from game_rounds)',
		);
		assert.equal(votes.length, 2);
		assert.equal(votes.find((v) => v.user_id === right)!.choice, correct, 'the first answer stands');

		// Reveal: only the starter; then the answer is shown to all, buttons disabled, further answers refused.
		const notAllowed = await click(message.id, buttons[4]!.custom_id!, right);
		assertPrivate(notAllowed.callback);
		assert.match(notAllowed.callback.body.data.content, /Only the person who started this round/);
		const reveal = await click(message.id, buttons[4]!.custom_id!, starter);
		assert.equal(reveal.callback.body.type, InteractionResponseType.DeferredMessageUpdate);
		await reveal.ix.edit();
		const revealed = w.fake.message(message.id);
		assert.match(textOf(revealed), /✅ \*\*[A-D]\.\*\* Mercury · 1 answer/);
		assert.match(textOf(revealed), /Answer: \*\*[A-D]\. Mercury\*\*\nMercury orbits closest/);
		assert.match(textOf(revealed), /2 people answered, 1 got it right/);
		assert.ok(buttonsOf(revealed).every((b) => b.disabled));
		const late = await click(message.id, buttons[0]!.custom_id!, someone());
		assert.match(late.callback.body.data.content, /already revealed/);
	});

	test('concurrent answers: every person counted once, duplicates refused, the message ends with the true count', async () => {
		const { ix, callback } = await run(w.fake, { name: 'trivia', userId: someone(), options: { category: 'food' } });
		const message = await postedMessage(ix);
		const buttons = buttonsOf(callback.body);
		const people = Array.from({ length: 8 }, () => someone());
		const clicks = [...people, people[0]!, people[1]!, people[2]!].map((user, i) => click(message.id, buttons[i % 4]!.custom_id!, user));
		const results = await Promise.all(clicks);
		const followups = await Promise.all(results.map((r) => r.ix.followup(0, 5_000)));
		assert.equal(followups.filter((f) => /already answered/.test(f.body.content)).length, 3);
		const [{ n }] = (await sql<{ n: number }>(
			'select count(*)::int as n from game_votes where round_id = (select max(id) from game_rounds)',
		)) as [{ n: number }];
		assert.equal(n, 8);
		assert.match(textOf(w.fake.message(message.id)), /8 people answered/);
	});

	test('AI garbage or an invalid question -> a question from the pool', async () => {
		w.openai.mode = 'garbage';
		w.openai.garbage = 'invalid_json';
		const garbled = await run(w.fake, { name: 'trivia', userId: someone(), options: { category: 'nature' } });
		const text = textOf(garbled.callback.body);
		assert.ok(
			TRIVIA_POOL.filter((q) => q.category === 'nature').some((q) => text.includes(q.question)),
			text,
		);
		w.openai.mode = 'answer';
		w.openai.reply = JSON.stringify({
			question: 'Which of these is a fruit?',
			choices: ['Apple', 'apple', 'Carrot', 'Leek'],
			answer: 0,
			explanation: 'Apples grow on trees.',
		});
		const duplicate = await run(w.fake, { name: 'trivia', userId: someone(), options: { category: 'food' } });
		assert.ok(
			TRIVIA_POOL.some((q) => textOf(duplicate.callback.body).includes(q.question)),
			'duplicate choices are refused',
		);
		w.openai.reply = 'Sure! Here is a question: what is the capital of France?';
		const prose = await run(w.fake, { name: 'trivia', userId: someone() });
		assert.ok(TRIVIA_POOL.some((q) => textOf(prose.callback.body).includes(q.question)));
	});

	test('the AI stalls past 3 s: a public deferral, then a pool question with its buttons', async () => {
		w.openai.mode = 'stall';
		const { callback, ix } = await run(w.fake, { name: 'trivia', userId: someone(), options: { category: 'geography' } });
		assert.equal(callback.body.type, InteractionResponseType.DeferredChannelMessageWithSource);
		assert.ok(!((callback.body.data?.flags ?? 0) & 64), 'public deferral');
		const edit = await ix.edit(8_000);
		assert.ok(TRIVIA_POOL.some((q) => textOf(edit.body).includes(q.question)));
		assert.equal(buttonsOf(edit.body).length, 5);
	});
});

describe('/wouldyourather', () => {
	test('the AI’s options (fenced JSON, prefixes removed), live counts, one vote per person, concurrent votes', async () => {
		w.openai.reply = WYR_JSON;
		const { callback, ix } = await run(w.fake, { name: 'wouldyourather', userId: someone() });
		assertPublic(callback);
		const text = textOf(callback.body);
		assert.match(text, /🅰️ have a pet penguin\n/);
		assert.match(text, /🅱️ a pet otter\n/);
		assert.deepEqual(
			buttonsOf(callback.body).map((b) => b.label),
			['A · 0', 'B · 0'],
		);
		const message = await postedMessage(ix);
		const [a, b] = buttonsOf(callback.body);

		const voter = someone();
		const first = await click(message.id, a!.custom_id!, voter);
		assert.equal(first.callback.body.type, InteractionResponseType.DeferredMessageUpdate);
		assert.match((await first.ix.followup(0)).body.content, /Your vote: 🅰️ have a pet penguin/);
		assert.deepEqual(
			buttonsOf(w.fake.message(message.id)).map((x) => x.label),
			['A · 1', 'B · 0'],
		);
		const second = await click(message.id, b!.custom_id!, voter);
		assert.match((await second.ix.followup(0)).body.content, /already voted \(🅰️ have a pet penguin\)/);
		assert.deepEqual(
			buttonsOf(w.fake.message(message.id)).map((x) => x.label),
			['A · 1', 'B · 0'],
			'a second vote changes nothing',
		);

		const people = Array.from({ length: 9 }, () => someone());
		const results = await Promise.all(
			[...people, people[0]!, people[4]!].map((user, i) => click(message.id, (i % 3 === 0 ? a : b)!.custom_id!, user)),
		);
		await Promise.all(results.map((r) => r.ix.followup(0, 5_000)));
		const counts = await sql<{ choice: number; n: number }>(
			'select choice, count(*)::int as n from game_votes where round_id = (select max(id) from game_rounds) group by choice order by choice',
		);
		const total = counts.reduce((sum, row) => sum + row.n, 0);
		assert.equal(total, 10, 'ten different people');
		const labels = buttonsOf(w.fake.message(message.id)).map((x) => x.label);
		assert.deepEqual(labels, [`A · ${counts.find((c) => c.choice === 0)?.n ?? 0}`, `B · ${counts.find((c) => c.choice === 1)?.n ?? 0}`]);
		assert.match(textOf(w.fake.message(message.id)), /10 votes · one vote each/);
	});

	test('unusable AI output -> the pool', async () => {
		w.openai.reply = JSON.stringify({ a: 'be able to fly', b: 'Be able to fly.' });
		const same = await run(w.fake, { name: 'wouldyourather', userId: someone() });
		assert.ok(WYR_POOL.some((q) => textOf(same.callback.body).includes(q.a)));
		w.openai.mode = 'fail';
		const failed = await run(w.fake, { name: 'wouldyourather', userId: someone() });
		assert.ok(WYR_POOL.some((q) => textOf(failed.callback.body).includes(q.a)));
	});

	test('a button of a round that no longer exists is answered kindly', async () => {
		const callback = await w.fake.sendButton({ customId: 'wyr:999999:0', userId: someone() }).callback();
		assertPrivate(callback);
		assert.match(callback.body.data.content, /no longer available/);
	});
});

describe('the games toggle', () => {
	test('games off in a server: the four commands say so privately; other servers and DMs still play', async () => {
		await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { features: { games: false } });
		try {
			for (const name of ['joke', 'compliment', 'trivia', 'wouldyourather']) {
				const { callback } = await run(w.fake, { name, userId: someone(), guildId: w.guildId });
				assertPrivate(callback);
				assert.match(callback.body.data.content, /Games are turned off in this server/, name);
			}
			const other = await run(w.fake, { name: 'joke', userId: someone(), guildId: w.otherGuildId });
			assertPublic(other.callback);
			const dm = await run(w.fake, { name: 'wouldyourather', userId: someone(), dm: true });
			assert.match(textOf(dm.callback.body), /Would you rather/);
		} finally {
			await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { features: { games: true } });
		}
	});
});
