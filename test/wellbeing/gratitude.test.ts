// /gratitude through the fake Discord: up to three good things a day, ciphertext at rest, listed by day, the limit,
// a crisis written in an item, export and deletion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { deleteUserData, exportUserData } from '../../src/lib/privacy/user-data.ts';
import { dayOf } from '../../src/lib/wellbeing/gratitude.ts';
import { assertPrivate, run, someone, sql, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const items = (userId: string) =>
	sql<{ day: string; content: string }>('select day, content from gratitude_items where user_id = ? order by id', [userId]);
const add = (userId: string, options: Record<string, string>) => run(w.fake, { name: 'gratitude', subcommand: 'add', userId, options });

describe('/gratitude', () => {
	test('add: up to three a day, stored encrypted (ciphertext at rest), shown back privately', async () => {
		const user = someone();
		const first = await add(user, { first: 'Warm coffee', second: 'A text from my sister' });
		assertPrivate(first.callback);
		assert.match(textOf(first.callback.body), /Saved 2 good things for today\.\n\n1\. Warm coffee\n2\. A text from my sister/);
		assert.match(textOf(first.callback.body), /Room for 1 more today/);
		const rows = await items(user);
		assert.equal(rows.length, 2);
		for (const row of rows) {
			assert.match(row.content, /^hv2:/);
			assert.ok(!row.content.includes('coffee') && !row.content.includes('sister'));
			assert.equal(row.day, dayOf(new Date()));
		}
		const more = await add(user, { first: 'Sunshine at lunch', second: 'Finished a book' });
		assert.match(textOf(more.callback.body), /Saved 1 good thing for today \(1 more did not fit: 3 a day\)/);
		assert.match(textOf(more.callback.body), /3\. Sunshine at lunch/);
		const full = await add(user, { first: 'One more' });
		assert.match(textOf(full.callback.body), /already have 3 good things today/);
		assert.equal((await items(user)).length, 3);
	});

	test('list: by day, newest first; only the person’s own', async () => {
		const user = someone();
		await add(user, { first: 'Today thing' });
		// Two days ago, written straight into the table through the entity (so it is encrypted as the command would).
		const em = container.db.orm.em.fork();
		const { GratitudeItem } = await import('../../src/lib/db/index.ts');
		const earlier = new Date(Date.now() - 2 * 86_400_000);
		em.create(GratitudeItem, { userId: user, day: dayOf(earlier), content: 'Earlier thing', createdAt: earlier });
		await em.flush();
		const { callback } = await run(w.fake, { name: 'gratitude', subcommand: 'list', userId: user });
		assertPrivate(callback);
		const fields = callback.body.data.embeds[0].fields as { name: string; value: string }[];
		assert.deepEqual(
			fields.map((f) => f.value),
			['• Today thing', '• Earlier thing'],
		);
		const stranger = await run(w.fake, { name: 'gratitude', subcommand: 'list', userId: someone() });
		assert.match(textOf(stranger.callback.body), /No good things in the last 7 days yet/);
	});

	test('an item that screens as a crisis gets the resources first; export and deletion cover every column', async () => {
		const user = someone();
		const { callback, ix } = await add(user, { first: 'nothing, i am going to end my life tonight' });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /crisis|line|emergency/i);
		assert.match(textOf((await ix.followup(0)).body), /Saved 1 good thing/);
		const exported = await exportUserData(container.db.orm.em.fork(), user);
		const [item] = exported.other.gratitude_items as Record<string, unknown>[];
		assert.deepEqual(
			{ userId: item!.userId, day: item!.day, content: item!.content },
			{ userId: user, day: dayOf(new Date()), content: 'nothing, i am going to end my life tonight' },
		);
		assert.ok(item!.id && item!.createdAt);
		await deleteUserData(container.db.orm.em.fork(), user);
		assert.equal((await items(user)).length, 0);
	});
});
