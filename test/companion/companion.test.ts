import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAi } from '../../src/lib/ai/index.ts';
import { companionTurn, type CompanionDeps } from '../../src/lib/companion/companion.ts';
import { parseConfig } from '../../src/lib/core/config.ts';
import { migrate, openDatabase, type Database } from '../../src/lib/db/index.ts';
import { setMemoryEnabled } from '../../src/lib/companion/memory.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';

/** The companion's conversation memory, through the real AI client (fake OpenAI) and a real database. */

const env = testEnv({ ENCRYPTION_KEY: '0123456789abcdef'.repeat(4) });
let db: Database;
let openai: FakeOpenAi;
let deps: CompanionDeps;
const person = { userId: '123456789012345678', channelId: '223456789012345678', guildId: null };
const lastMessages = () =>
	(openai.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role !== 'system');

before(async () => {
	db = await openDatabase(parseConfig(env), { info: () => undefined, warn: () => undefined });
	await migrate(db.orm);
	openai = await startFakeOpenAi();
	openai.reply = (body) => `reply ${(body as { messages: unknown[] }).messages.length}`;
	deps = {
		ai: createAi({ apiKey: 'k', baseURL: openai.url, model: 'm', timeoutMs: 2000 }),
		identifierKey: Buffer.alloc(32, 1),
		memory: { em: () => db.orm.em.fork() },
	};
});

after(async () => {
	await openai.close();
	await db.close();
	await dropDatabase(env.DATABASE_URL);
});

describe('companion memory', () => {
	test('sends the recent turns of this person in this channel before the new message', async () => {
		await companionTurn({ ...person, text: 'I had a long day' }, deps);
		await companionTurn({ ...person, text: 'work was a lot' }, deps);
		assert.deepEqual(lastMessages(), [
			{ role: 'user', content: 'I had a long day' },
			{ role: 'assistant', content: 'reply 2' },
			{ role: 'user', content: 'work was a lot' },
		]);
		await companionTurn({ ...person, channelId: '323456789012345678', text: 'hello elsewhere' }, deps);
		assert.deepEqual(lastMessages(), [{ role: 'user', content: 'hello elsewhere' }], 'another channel starts fresh');
	});

	test('stores memory encrypted', async () => {
		const rows = await db.orm.em.getConnection().execute<{ content: string }[]>('select content from memory_turns');
		assert.ok(rows.length >= 4);
		assert.ok(rows.every((row) => row.content.startsWith('hv2:') && !row.content.includes('long day')));
	});

	test('neither reads nor keeps memory on the careful (crisis) path', async () => {
		const before = await db.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from memory_turns');
		await companionTurn({ ...person, text: 'I feel like giving up', careful: true }, deps);
		assert.deepEqual(lastMessages(), [{ role: 'user', content: 'I feel like giving up' }]);
		const afterwards = await db.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from memory_turns');
		assert.equal(afterwards[0]!.n, before[0]!.n);
	});

	test('forgets and stops remembering when the person turns memory off', async () => {
		await setMemoryEnabled(db.orm.em.fork(), person.userId, false);
		await companionTurn({ ...person, text: 'new thought' }, deps);
		assert.deepEqual(lastMessages(), [{ role: 'user', content: 'new thought' }]);
		const rows = await db.orm.em
			.getConnection()
			.execute<{ n: string }[]>('select count(*) as n from memory_turns where user_id = ?', [person.userId]);
		assert.equal(Number(rows[0]!.n), 0);
	});

	test('still answers with a fallback when the AI fails, remembering nothing', async () => {
		await setMemoryEnabled(db.orm.em.fork(), person.userId, true);
		openai.mode = 'fail';
		const turn = await companionTurn({ ...person, text: 'are you there' }, deps);
		openai.mode = 'answer';
		assert.equal(turn.fromAi, false);
		assert.ok(turn.reply.length > 0);
		const rows = await db.orm.em
			.getConnection()
			.execute<{ n: string }[]>('select count(*) as n from memory_turns where user_id = ?', [person.userId]);
		assert.equal(Number(rows[0]!.n), 0);
	});
});

describe('companion fairness', () => {
	test('answers one message per person at a time; others are not held up', async () => {
		openai.mode = 'stall';
		openai.stallMs = 300;
		const first = companionTurn({ ...person, text: 'first message' }, deps);
		const second = await companionTurn({ ...person, text: 'second message right away' }, deps);
		const someoneElse = companionTurn({ ...person, userId: '999999999999999999', text: 'hello' }, deps);
		assert.equal(second.fromAi, false);
		assert.match(second.reply, /still thinking about your last message/);
		openai.mode = 'answer';
		await Promise.all([first, someoneElse]);
		const asked = openai.requests.map((request) => JSON.stringify(request.body));
		assert.ok(!asked.some((body) => body.includes('second message right away')), 'the second message made no AI call');
		assert.ok(
			asked.some((body) => body.includes('"hello"')),
			'another person was answered meanwhile',
		);
		const third = await companionTurn({ ...person, text: 'after the first was answered' }, deps);
		assert.equal(third.fromAi, true);
	});
});
