// /journal through the fake Discord: the writing box with a mood, ciphertext at rest, list by date, read page by page,
// delete one (button and number), delete all with a confirmation only the author can press, a crisis written in an
// entry (resources first), the optional reflection (AI, and the fixed one when the AI fails), export and deletion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import { deleteUserData, exportUserData } from '../../src/lib/privacy/user-data.ts';
import { REFLECTION_FALLBACK } from '../../src/lib/wellbeing/journal.ts';
import { waitFor } from '../support/wait.ts';
import { assertPrivate, buttonsOf, completions, counter, run, someone, sql, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const entries = (userId: string) =>
	sql<{ id: number; mood: string | null; content: string; reflection: string | null }>(
		'select id, mood, content, reflection from journal_entries where user_id = ? order by id',
		[userId],
	);

/** `/journal write` (with options), then the writing box submitted with `text`; the modal's answer. */
async function write(userId: string, text: string, options: Record<string, string | boolean> = {}) {
	const { callback } = await run(w.fake, { name: 'journal', subcommand: 'write', userId, options });
	assert.equal(callback.body.type, InteractionResponseType.Modal);
	const customId = callback.body.data.custom_id as string;
	assert.equal(callback.body.data.components[0].components[0].max_length, 4000);
	const submit = w.fake.sendModalSubmit({ customId, userId, fields: { entry: text } });
	return { answer: await submit.callback(5_000), submit, customId };
}

describe('write', () => {
	test('a writing box with the mood; stored encrypted (ciphertext at rest); only the author reads it', async () => {
		const user = someone();
		const { answer, customId } = await write(user, 'Walked by the river after work. Felt lighter.', { mood: 'calm' });
		assert.equal(customId, 'journal-modal:calm:-');
		assertPrivate(answer);
		assert.match(answer.body.data.content, /Saved\. Your entry is stored encrypted/);
		assert.match(answer.body.data.content, /You keep 1 entry/);
		const [row] = await entries(user);
		assert.equal(row!.mood, 'calm');
		assert.match(row!.content, /^hv2:/);
		assert.ok(!row!.content.includes('river'));
		assert.equal(row!.reflection, null);
		const read = await run(w.fake, { name: 'journal', subcommand: 'read', userId: user });
		assertPrivate(read.callback);
		assert.match(textOf(read.callback.body), /Journal entry 1 of 1\nWalked by the river after work\. Felt lighter\./);
		assert.match(textOf(read.callback.body), /Mood: 😌 Calm/);
		const stranger = await run(w.fake, { name: 'journal', subcommand: 'read', userId: someone() });
		assert.match(textOf(stranger.callback.body), /Your journal is empty/);
	});

	test('reflection on request: the AI, stored encrypted with the entry; the fixed one when the AI fails', async () => {
		const user = someone();
		w.openai.reply = 'It sounds like today asked a lot of you, and you still made room to notice it.';
		const { answer, customId } = await write(user, 'Long day at the hospital with mum.', { reflection: true });
		assert.equal(customId, 'journal-modal:-:r');
		assertPrivate(answer);
		assert.match(answer.body.data.content, /> It sounds like today asked a lot of you/);
		assert.match(answer.body.data.content, /written by AI/);
		assert.ok(completions(w.openai).some((c) => c.user.includes('Long day at the hospital')));
		const [row] = await entries(user);
		assert.match(row!.reflection!, /^hv2:/);
		const read = await run(w.fake, { name: 'journal', subcommand: 'read', userId: user });
		assert.match(textOf(read.callback.body), /Reflection: It sounds like today asked a lot of you/);

		w.openai.mode = 'fail';
		try {
			const failed = await write(user, 'Another entry, the AI is down.', { reflection: true });
			assert.ok(
				textOf(failed.answer.body).includes(REFLECTION_FALLBACK) ||
					textOf((await failed.submit.edit(5_000)).body).includes(REFLECTION_FALLBACK),
			);
		} finally {
			w.openai.reset();
		}
		assert.equal((await entries(user)).length, 2);
	});

	test('a crisis written in an entry: the resources first, privately, then the entry is saved', async () => {
		const user = someone();
		const events = await counter('crisisEvents');
		const { answer, submit } = await write(user, 'i am going to end my life tonight, goodbye everyone');
		assertPrivate(answer);
		assert.doesNotMatch(answer.body.data.content, /Saved/);
		assert.match(answer.body.data.content, /crisis|line|emergency/i);
		const followup = await submit.followup(0);
		assert.match(followup.body.content, /Saved/);
		assert.equal((await entries(user)).length, 1);
		await waitFor(async () => (await counter('crisisEvents')) === events + 1, { what: 'the crisis event to be recorded' });
	});
});

describe('list, read, delete', () => {
	test('list by date; pages; delete one by button and by number; buttons refused to others', async () => {
		const user = someone();
		for (const text of ['first entry', 'second entry', 'third entry', 'fourth entry']) await write(user, text);
		const list = await run(w.fake, { name: 'journal', subcommand: 'list', userId: user });
		assertPrivate(list.callback);
		assert.match(textOf(list.callback.body), /Your journal: 4 entries\n\*\*1\.\*\* <t:\d+:f> · no mood · fourth entry\n\*\*2\.\*\*.*third entry/);

		const { callback } = await run(w.fake, { name: 'journal', subcommand: 'read', userId: user });
		const buttons = buttonsOf(callback.body);
		assert.deepEqual(
			buttons.map((b) => [b.label, b.disabled]),
			[
				['Newer', true],
				['Older', false],
				['Delete this entry', false],
			],
		);
		const page2 = await w.fake.sendButton({ customId: buttons[1]!.custom_id!, userId: user }).callback();
		assert.equal(page2.body.type, InteractionResponseType.UpdateMessage);
		assert.match(textOf(page2.body), /Journal entry 2 of 4\nthird entry/);
		const intruder = await w.fake.sendButton({ customId: buttonsOf(page2.body)[2]!.custom_id!, userId: someone() }).callback();
		assertPrivate(intruder);
		assert.match(intruder.body.data.content, /belong to someone else/);
		assert.equal((await entries(user)).length, 4);
		const deleted = await w.fake.sendButton({ customId: buttonsOf(page2.body)[2]!.custom_id!, userId: user }).callback();
		assert.match(textOf(deleted.body), /Deleted that entry for good/);
		assert.deepEqual((await sql<{ n: number }>('select count(*)::int as n from journal_entries where user_id = ?', [user]))[0]!.n, 3);

		const byNumber = await run(w.fake, { name: 'journal', subcommand: 'delete', userId: user, options: { number: 3 } });
		assertPrivate(byNumber.callback);
		assert.match(byNumber.callback.body.data.content, /Deleted entry 3/);
		const none = await run(w.fake, { name: 'journal', subcommand: 'delete', userId: user, options: { number: 9 } });
		assert.match(none.callback.body.data.content, /no entry number 9/);
		const left = await run(w.fake, { name: 'journal', subcommand: 'list', userId: user });
		assert.match(textOf(left.callback.body), /2 entries\n.*fourth entry\n.*second entry/s);
	});

	test('delete all: asks to confirm; only the author can press; cancel keeps them; confirm deletes them', async () => {
		const user = someone();
		await write(user, 'one');
		await write(user, 'two');
		const { callback } = await run(w.fake, { name: 'journal', subcommand: 'delete', userId: user });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /Delete all 2 journal entries\? This cannot be undone\./);
		const [confirm, cancel] = buttonsOf(callback.body);
		const stranger = await w.fake.sendButton({ customId: confirm!.custom_id!, userId: someone() }).callback();
		assert.match(stranger.body.data.content, /belong to someone else/);
		assert.equal((await entries(user)).length, 2);
		const cancelled = await w.fake.sendButton({ customId: cancel!.custom_id!, userId: user }).callback();
		assert.match(cancelled.body.data.content, /Cancelled/);
		assert.equal((await entries(user)).length, 2);
		const done = await w.fake.sendButton({ customId: confirm!.custom_id!, userId: user }).callback();
		assert.match(done.body.data.content, /Deleted 2 journal entries/);
		assert.equal((await entries(user)).length, 0);
	});
});

describe('privacy', () => {
	test('export decrypts every column; deletion removes every entry', async () => {
		const user = someone();
		w.openai.reply = 'That took courage to write down.';
		await write(user, 'exported words', { mood: 'sad', reflection: true });
		const exported = await exportUserData(container.db.orm.em.fork(), user);
		const [entry] = exported.other.journal_entries as Record<string, unknown>[];
		assert.deepEqual(
			{ mood: entry!.mood, content: entry!.content, reflection: entry!.reflection, userId: entry!.userId },
			{ mood: 'sad', content: 'exported words', reflection: 'That took courage to write down.', userId: user },
		);
		assert.ok(entry!.createdAt && entry!.id);
		await deleteUserData(container.db.orm.em.fork(), user);
		assert.equal((await entries(user)).length, 0);
		w.openai.reset();
	});
});
