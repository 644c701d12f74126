// The users total of GET /v1/stats counts everyone Haven has served: the migration fills served_users from every
// table that knows a person and adds those without a preferences row to the total; afterwards a first command or DM
// counts a person once, and a preferences row counts only people not yet served.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrationsList } from '../../migrations/index.ts';
import { parseConfig } from '../../src/lib/core/config.ts';
import { migrate, openDatabase, type Database } from '../../src/lib/db/index.ts';
import { forgetServed } from '../../src/lib/operations/served.ts';
import { buttonsOf, counter, run, someone, sql, startWellbeingWorld, type WellbeingWorld } from '../wellbeing/support.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { waitFor } from '../support/wait.ts';

describe('migration: served_users backfill', () => {
	const env = testEnv({ ENCRYPTION_KEY: '0123456789abcdef'.repeat(4) });
	let db: Database;
	const raw = (query: string, params: unknown[] = []) => db.orm.em.getConnection().execute<Record<string, any>[]>(query, params);

	before(async () => {
		db = await openDatabase(parseConfig(env), { info: () => undefined, warn: () => undefined });
	});

	after(async () => {
		await db?.close();
		await dropDatabase(env.DATABASE_URL);
	});

	test('every table that knows a person fills it; the total grows by those without a preferences row', async () => {
		const index = migrationsList.findIndex((migration) => migration.name === 'Migration20261123000000Journal');
		await db.orm.migrator.up({ to: migrationsList[index - 1]!.name });
		const [alice, bob, cara, dan] = ['200000000000000001', '200000000000000002', '200000000000000003', '200000000000000004'];
		await raw(`insert into users (id, created_at, updated_at) values (?, now(), now())`, [alice]);
		await raw(`insert into mood_check_ins (user_id, mood, intensity, created_at) values (?, 'calm', 2, now()), (?, 'okay', 3, now())`, [
			alice,
			bob,
		]);
		await raw(`insert into conversations (user_id, source, created_at) values (?, 'dm', now()), (null, 'api', now())`, [cara]);
		await raw(`insert into game_rounds (kind, started_by, content, created_at) values ('trivia', ?, '{}', now())`, [dan]);
		assert.deepEqual(await raw(`select value::int as value from stat_counters where name = 'users'`), [{ value: 1 }]);

		assert.deepEqual(
			await migrate(db.orm),
			migrationsList.slice(index).map((migration) => migration.name),
		);
		assert.deepEqual(
			(await raw('select user_id from served_users order by user_id')).map((row) => row.user_id),
			[alice, bob, cara, dan],
		);
		assert.deepEqual(await raw(`select value::int as value from stat_counters where name = 'users'`), [{ value: 4 }]);

		// A preferences row for someone already served counts nothing; for someone new, one.
		await raw(`insert into users (id, created_at, updated_at) values (?, now(), now()), ('200000000000000005', now(), now())`, [bob]);
		assert.deepEqual(await raw(`select value::int as value from stat_counters where name = 'users'`), [{ value: 5 }]);
	});
});

describe('a first command or DM counts a person once', () => {
	let w: WellbeingWorld;

	before(async () => {
		w = await startWellbeingWorld();
	});

	after(async () => {
		await w?.close();
	});

	test('commands and DMs, each person once', async () => {
		const before = await counter('users');
		const person = someone();
		await run(w.fake, { name: 'gratitude', subcommand: 'list', userId: person });
		await waitFor(async () => (await counter('users')) === before + 1, { what: 'the first command to count' });
		await run(w.fake, { name: 'gratitude', subcommand: 'list', userId: person });
		forgetServed(); // the next check goes to the database, not the in-memory set
		await run(w.fake, { name: 'journal', subcommand: 'list', userId: person });

		const writer = someone();
		w.fake.sendMessage({ authorId: writer, dm: true, content: 'hello there' });
		await waitFor(async () => (await counter('users')) === before + 2, { what: 'the DM to count' });
		assert.equal((await sql('select user_id from served_users where user_id in (?, ?)', [person, writer])).length, 2);
		assert.equal(await counter('users'), before + 2, 'the second command counted nothing');
	});

	test('/privacy delete removes the row and keeps the total', async () => {
		const person = someone();
		const ix = w.fake.sendSlashCommand({ name: 'privacy', subcommand: 'delete', userId: person });
		const ask = await ix.callback();
		await waitFor(async () => (await sql('select 1 from served_users where user_id = ?', [person])).length === 1, {
			what: 'the person recorded',
		});
		const total = await counter('users');
		const confirm = buttonsOf(ask.body).find((b) => /delete/i.test(b.label))!;
		await w.fake.sendButton({ customId: confirm.custom_id!, userId: person }).callback();
		await waitFor(async () => (await sql('select 1 from served_users where user_id = ?', [person])).length === 0, { what: 'the row deleted' });
		assert.equal(await counter('users'), total, 'the total never goes down');
	});
});
