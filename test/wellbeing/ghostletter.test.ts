// /ghostletter through the fake Discord: keep (option and writing box), let go (nothing stored), read page by page,
// delete one, clear all with confirmation, buttons refused to anyone else, ciphertext at rest, the server toggle, a
// letter that screens as a crisis, and the 8 s cooldown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import { updateGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { waitFor } from '../support/wait.ts';
import { assertPrivate, buttonsOf, counter, run, someone, sql, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const letters = (userId: string) => sql<{ content: string }>('select content from ghost_letters where user_id = ? order by id', [userId]);
/** Ghost letter commands by one person, each as if 8 s apart (the cooldown is per person and per command). */
const ghost = async (
	userId: string,
	subcommand: string,
	options: Record<string, string | number> = {},
	extra: { guildId?: string; dm?: boolean } = {},
) => {
	const result = await run(w.fake, { name: 'ghostletter', subcommand, userId, options, ...extra });
	const cooldown = container.stores.get('preconditions').get('Cooldown') as unknown as { release(): void };
	cooldown.release();
	return result;
};

describe('keep and let go', () => {
	test('keep: stored encrypted (ciphertext at rest), only the author can read it', async () => {
		const user = someone();
		const { callback } = await ghost(user, 'keep', { letter: 'Dear Dad, I still miss our Sunday walks.' });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /Kept\. Your letter is stored encrypted/);
		assert.match(callback.body.data.content, /You keep 1 letter/);
		const [row] = await letters(user);
		assert.match(row!.content, /^hv2:/);
		assert.ok(!row!.content.includes('Sunday'));
		const read = await ghost(user, 'read');
		assertPrivate(read.callback);
		assert.match(textOf(read.callback.body), /Ghost letter 1 of 1/);
		assert.match(textOf(read.callback.body), /Dear Dad, I still miss our Sunday walks\./);
		const stranger = await ghost(someone(), 'read');
		assert.match(textOf(stranger.callback.body), /You have no kept letters/);
	});

	test('let go: nothing is stored, not even in a count', async () => {
		const user = someone();
		const rowsBefore = (await sql('select count(*)::int as n from ghost_letters'))[0]!.n;
		const { callback } = await ghost(user, 'letgo', { letter: 'I am so angry at how that meeting went.' });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /Let go\. Nothing you wrote was saved/);
		assert.equal((await sql('select count(*)::int as n from ghost_letters'))[0]!.n, rowsBefore);
		assert.equal((await letters(user)).length, 0);
	});

	test('without the option, a writing box (modal) opens; its submission is kept or let go', async () => {
		const user = someone();
		const { callback } = await ghost(user, 'keep');
		assert.equal(callback.body.type, InteractionResponseType.Modal);
		assert.equal(callback.body.data.custom_id, 'ghostletter-modal:keep');
		const input = callback.body.data.components[0].components[0];
		assert.equal(input.custom_id, 'letter');
		assert.equal(input.max_length, 4000);
		const submit = w.fake.sendModalSubmit({
			customId: 'ghostletter-modal:keep',
			userId: user,
			// "lines" on oneself is self-harm slang for cuts, so the letter says something else over several lines.
			fields: { letter: 'Dear me,\nremember the lake last August\nand keep going to the Thursday choir.' },
		});
		const answer = await submit.callback();
		assertPrivate(answer);
		assert.match(answer.body.data.content, /Kept/);
		const read = await ghost(user, 'read');
		assert.match(textOf(read.callback.body), /Dear me,\nremember the lake last August/);

		const letgo = w.fake.sendModalSubmit({ customId: 'ghostletter-modal:letgo', userId: user, fields: { letter: 'gone with the wind' } });
		assert.match((await letgo.callback()).body.data.content, /Let go/);
		assert.equal((await letters(user)).length, 1);
	});

	test('cooldown: about 8 seconds', async () => {
		const user = someone();
		await run(w.fake, { name: 'ghostletter', subcommand: 'letgo', userId: user, options: { letter: 'one' } });
		const { callback } = await run(w.fake, { name: 'ghostletter', subcommand: 'letgo', userId: user, options: { letter: 'two' } });
		assert.match(callback.body.data.content, /try again in [5-8] seconds/);
	});
});

describe('read, delete, clear', () => {
	test('pages newest first; Newer/Older; delete one; buttons refused to others', async () => {
		const user = someone();
		for (const text of ['first letter', 'second letter', 'third letter']) await ghost(user, 'keep', { letter: text });
		const { callback } = await ghost(user, 'read');
		assert.match(textOf(callback.body), /Ghost letter 1 of 3\n.*third letter/s);
		const buttons = buttonsOf(callback.body);
		assert.deepEqual(
			buttons.map((b) => [b.label, b.disabled]),
			[
				['Newer', true],
				['Older', false],
				['Delete this letter', false],
			],
		);
		const older = w.fake.sendButton({ customId: buttons[1]!.custom_id!, userId: user });
		const page2 = await older.callback();
		assert.equal(page2.body.type, InteractionResponseType.UpdateMessage);
		assert.match(textOf(page2.body), /Ghost letter 2 of 3\n.*second letter/s);

		// Someone else pressing a button (ids are in the custom id) is refused and changes nothing.
		const intruder = w.fake.sendButton({ customId: buttonsOf(page2.body)[2]!.custom_id!, userId: someone() });
		const refused = await intruder.callback();
		assertPrivate(refused);
		assert.match(refused.body.data.content, /belong to someone else/);
		assert.equal((await letters(user)).length, 3);

		const del = w.fake.sendButton({ customId: buttonsOf(page2.body)[2]!.custom_id!, userId: user });
		const afterDelete = await del.callback();
		assert.match(textOf(afterDelete.body), /Deleted that letter for good/);
		assert.match(textOf(afterDelete.body), /Ghost letter 1 of 2/);
		assert.deepEqual((await sql<{ n: number }>('select count(*)::int as n from ghost_letters where user_id = ?', [user]))[0]!.n, 2);
		const number = await ghost(user, 'read', { number: 2 });
		assert.match(textOf(number.callback.body), /Ghost letter 2 of 2\n.*first letter/s);
	});

	test('clear: asks to confirm; cancel keeps them; confirm deletes them all', async () => {
		const user = someone();
		await ghost(user, 'keep', { letter: 'one to keep' });
		await ghost(user, 'keep', { letter: 'another to keep' });
		const { callback } = await ghost(user, 'clear');
		assertPrivate(callback);
		assert.match(callback.body.data.content, /Delete all 2 kept letters\? This cannot be undone\./);
		const [confirm, cancel] = buttonsOf(callback.body);
		const cancelled = await w.fake.sendButton({ customId: cancel!.custom_id!, userId: user }).callback();
		assert.match(cancelled.body.data.content, /Cancelled/);
		assert.equal((await letters(user)).length, 2);
		const stranger = await w.fake.sendButton({ customId: confirm!.custom_id!, userId: someone() }).callback();
		assert.match(stranger.body.data.content, /belong to someone else/);
		assert.equal((await letters(user)).length, 2);
		const done = await w.fake.sendButton({ customId: confirm!.custom_id!, userId: user }).callback();
		assert.match(done.body.data.content, /Deleted 2 letters/);
		assert.deepEqual(done.body.data.components, []);
		assert.equal((await letters(user)).length, 0);
		const nothing = await ghost(user, 'clear');
		assert.match(nothing.callback.body.data.content, /nothing to clear/);
	});
});

describe('server toggle and safety', () => {
	test('ghost letters off in a server: writing is refused there, still possible in DMs; reading always works', async () => {
		const user = someone();
		await ghost(user, 'keep', { letter: 'written before the toggle' });
		await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { features: { ghostLetters: false } });
		try {
			const refused = await ghost(user, 'keep', { letter: 'should not be kept' }, { guildId: w.guildId });
			assertPrivate(refused.callback);
			assert.match(refused.callback.body.data.content, /Ghost letters are turned off in this server/);
			const letgo = await ghost(user, 'letgo', { letter: 'nor this' }, { guildId: w.guildId });
			assert.match(letgo.callback.body.data.content, /turned off/);
			assert.equal((await letters(user)).length, 1);
			const read = await ghost(user, 'read', {}, { guildId: w.guildId });
			assert.match(textOf(read.callback.body), /written before the toggle/);
			const elsewhere = await ghost(user, 'keep', { letter: 'in another server' }, { guildId: w.otherGuildId });
			assert.match(elsewhere.callback.body.data.content, /Kept/);
			const dm = await ghost(user, 'keep', { letter: 'in a DM' }, { dm: true });
			assert.match(dm.callback.body.data.content, /Kept/);
		} finally {
			await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { features: { ghostLetters: true } });
		}
	});

	test('a letter that screens as a crisis: resources first, privately; let go still stores nothing', async () => {
		const user = someone();
		const events = await counter('crisisEvents');
		const { callback, ix } = await ghost(user, 'letgo', { letter: 'i am going to end my life tonight, goodbye everyone' });
		assertPrivate(callback);
		assert.doesNotMatch(callback.body.data.content, /Let go/);
		assert.match(callback.body.data.content, /crisis|line|emergency/i);
		const followup = await ix.followup(0);
		assert.match(followup.body.content, /Let go/);
		assert.equal((await letters(user)).length, 0);
		await waitFor(async () => (await counter('crisisEvents')) === events + 1, { what: 'the crisis event to be recorded' });
		const [event] = await sql<{ user_id: string | null; details: string | null }>(
			'select user_id, details from crisis_events order by id desc limit 1',
		);
		assert.deepEqual(event, { user_id: null, details: null });
	});
});
