// /coping through the fake Discord with the fake OpenAI: every subcommand from Haven's pool, the AI path answering,
// failing, stalling past Discord's 3 s (deferred, then the fallback), rate-limited, garbled and unconfigured, public
// answers, crisis feelings (resources first) and the 8 s cooldown.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import { createAi } from '../../src/lib/ai/index.ts';
import {
	AFFIRMATIONS,
	BREATHING,
	CHALLENGES,
	COPING,
	COPING_KINDS,
	DISTRACTIONS,
	GROUNDING,
	JOURNAL_PROMPTS,
} from '../../src/lib/wellbeing/coping.ts';
import { waitFor } from '../support/wait.ts';
import {
	assertPrivate,
	assertPublic,
	completions,
	counter,
	data,
	run,
	someone,
	sql,
	startWellbeingWorld,
	textOf,
	type WellbeingWorld,
} from './support.ts';

let w: WellbeingWorld;
const AI_EXERCISE = 'Try this: breathe in for four, hold for four, out for six. Notice your shoulders drop. You are doing well.';

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

beforeEach(() => {
	w.openai.reset();
	w.openai.reply = AI_EXERCISE;
});

const coping = (kind: string, userId: string, options: Record<string, string | boolean> = {}) =>
	run(w.fake, { name: 'coping', subcommand: kind, userId, options }, 6_000);
const description = (body: any) => data({ body } as never).embeds?.[0]?.description ?? '';

describe("Haven's own exercises (no feeling given)", () => {
	test('every subcommand answers privately from its pool, without asking the AI', async () => {
		const pools: Record<string, readonly string[]> = {
			breathing: BREATHING,
			grounding: GROUNDING,
			affirmation: AFFIRMATIONS,
			distraction: DISTRACTIONS,
			challenge: CHALLENGES,
			journal: JOURNAL_PROMPTS,
		};
		for (const kind of COPING_KINDS) {
			const { callback } = await coping(kind, someone());
			assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource, kind);
			assertPrivate(callback);
			const embed = callback.body.data.embeds[0];
			assert.equal(embed.title, `${COPING[kind].emoji} ${COPING[kind].title}`);
			assert.ok(
				pools[kind]!.some((item) => embed.description.includes(item)),
				`${kind}: from the pool`,
			);
			assert.match(embed.footer.text, /One of Haven's exercises/);
		}
		assert.equal(completions(w.openai).length, 0, 'no AI call without a feeling');
	});

	test('cooldown: about 8 seconds, said kindly', async () => {
		const user = someone();
		await coping('breathing', user);
		const { callback } = await coping('grounding', user);
		assertPrivate(callback);
		assert.match(callback.body.data.content, /try again in [5-8] seconds/);
	});
});

describe('adapted with AI to how the person feels', () => {
	test('the AI answers: a task-specific system prompt, the feeling as the user turn, the answer shown privately', async () => {
		const { callback } = await coping('breathing', someone(), { feeling: 'my chest is tight before my exam' });
		assertPrivate(callback);
		assert.equal(description(callback.body), AI_EXERCISE);
		assert.match(callback.body.data.embeds[0].footer.text, /Adapted to what you shared, with AI/);
		const [call] = completions(w.openai);
		assert.ok(call, 'one completion');
		assert.match(call.system, /You are Haven/, "Haven's own prompt always applies");
		assert.match(call.system, /Task: Suggest one simple, well-known breathing exercise/);
		assert.match(call.system, /ignore the usual conversational style/);
		assert.doesNotMatch(call.system, /public channel/);
		assert.doesNotMatch(call.system, /safety check found/, 'not careful: no risk found');
		assert.equal(call.user, "How I'm feeling: my chest is tight before my exam");
	});

	test('the AI fails (500): a pool exercise, at once', async () => {
		w.openai.mode = 'fail';
		const { callback } = await coping('grounding', someone(), { feeling: 'scattered' });
		assertPrivate(callback);
		assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource);
		assert.ok(GROUNDING.includes(description(callback.body)));
		assert.doesNotMatch(JSON.stringify(callback.body), /SECRET/);
	});

	test('the AI is rate-limited (429): a pool exercise', async () => {
		w.openai.mode = 'rate_limit';
		w.openai.retryAfter = undefined;
		const { callback } = await coping('challenge', someone(), { feeling: 'stuck' });
		assertPrivate(callback);
		assert.ok(CHALLENGES.some((c) => description(callback.body).includes(c)));
		assert.ok(completions(w.openai).length >= 1);
	});

	test('the AI answers garbage (empty content): a pool exercise', async () => {
		w.openai.mode = 'garbage';
		w.openai.garbage = 'empty_content';
		const { callback } = await coping('journal', someone(), { feeling: 'meh' });
		assert.ok(JOURNAL_PROMPTS.some((p) => description(callback.body).includes(p)));
	});

	test('the AI stalls past 3 s: Haven defers within Discord’s window, then edits in a pool exercise', async () => {
		w.openai.mode = 'stall';
		const started = Date.now();
		const { callback, ix } = await coping('affirmation', someone(), { feeling: 'i feel like a failure today' });
		assert.equal(callback.body.type, InteractionResponseType.DeferredChannelMessageWithSource, 'deferred first');
		assert.ok(callback.body.data.flags & 64, 'deferred privately');
		const edit = await ix.edit(8_000);
		const text = edit.body.embeds[0].description as string;
		assert.ok(
			AFFIRMATIONS.some((a) => text.includes(a)),
			text,
		);
		assert.ok(Date.now() - started >= 2_000, 'waited for the AI deadline');
		assert.equal(callback.status, 204, 'Discord accepted the deferral');
	});

	test('no OpenAI key: a pool exercise, no request', async () => {
		const real = container.ai;
		container.ai = createAi({ model: 'gpt-test' });
		try {
			const { callback } = await coping('distraction', someone(), { feeling: 'bored and low' });
			assertPrivate(callback);
			assert.match(description(callback.body), /A few ideas/);
			assert.equal(completions(w.openai).length, 0);
		} finally {
			container.ai = real;
		}
	});

	test('public: shown in the channel (the feeling itself never is), the AI told not to repeat details', async () => {
		const { callback } = await coping('affirmation', someone(), { feeling: 'my boss yelled at me', public: true });
		assertPublic(callback);
		assert.doesNotMatch(JSON.stringify(callback.body), /boss yelled/);
		assert.match(completions(w.openai)[0]!.system, /public channel: do not repeat/);
	});
});

describe('a feeling that screens as a crisis', () => {
	test('resources first, privately; the exercise after, private even if public was asked; the AI told to be careful', async () => {
		const events = await counter('crisisEvents');
		const { callback, ix } = await coping('breathing', someone(), { feeling: "i don't want to be alive anymore", public: true });
		assertPrivate(callback);
		assert.doesNotMatch(textOf(callback.body), /Breathing/);
		assert.match(textOf(callback.body), /crisis|line|emergency/i);
		const followup = await ix.followup(0, 6_000);
		assert.ok(followup.body.flags & 64, 'the exercise is private too');
		assert.match(textOf(followup.body), /Breathing/);
		const [call] = completions(w.openai);
		assert.match(call!.system, /safety check found/);
		await waitFor(async () => (await counter('crisisEvents')) === events + 1, { what: 'the crisis event to be recorded' });
	});

	test('a person who opted out of screening gets just the exercise', async () => {
		const user = someone();
		await sql(`insert into users (id, screening_opt_out, memory_enabled, created_at, updated_at) values (?, true, true, now(), now())`, [user]);
		const { callback } = await coping('grounding', user, { feeling: "i don't want to be alive anymore" });
		assert.match(textOf(callback.body), /Grounding/);
		assert.equal(callback.body.data.embeds.length, 1);
	});
});
