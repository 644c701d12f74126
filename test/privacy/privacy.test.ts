// /privacy through the fake Discord, against the real service and database: info, export (the attached JSON holds
// the person's data decrypted and nothing of other people), delete (confirmation only by the same person, expiry,
// cancel, then completeness: no row in any table references the person, counters unchanged, other people's data
// intact) and conversation memory (on, off, clear; encrypted at rest; expiry; last turns only).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EntityProperty } from '@mikro-orm/core';
import { container } from '@sapphire/framework';
import type { EntityManager } from '@mikro-orm/postgresql';
import { InteractionResponseType, MessageFlags } from 'discord.js';
import {
	CheckInReminder,
	Conversation,
	CrisisEvent,
	Feedback,
	GameRound,
	GameVote,
	GhostLetter,
	GratitudeItem,
	JournalEntry,
	MoodCheckIn,
} from '../../src/lib/db/index.ts';
import { approveFeedback } from '../../src/lib/feedback/store.ts';
import { memoryEnabled, recentTurns, rememberTurn, RECENT_TURNS, setMemoryEnabled } from '../../src/lib/companion/memory.ts';
import { metaOf, remainingReferences, userColumns, type ColumnRef } from '../../src/lib/privacy/user-data.ts';
import { DELETE_NOT_YOURS, deleteButtonId, parseDeleteButton } from '../../src/lib/privacy/views.ts';
import { buttonsOf, slash, startBotWorld, textOf, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';

const KEY = 'b2'.repeat(32);
const person = (n: number) => snowflakeAt(1_480_000_000_000, n);
const ALICE = person(1);
const BOB = person(2);
const MOD = person(3);

let world: BotWorld;
let guildId: string;
let channelId: string;

const em = (): EntityManager => world.haven.db.orm.em.fork() as EntityManager;
const sql = <T = any>(query: string, params: unknown[] = []) => world.haven.db.orm.em.fork().getConnection().execute<T[]>(query, params);

before(async () => {
	world = await startBotWorld({
		fake: {
			guilds: [{ name: 'Quiet Garden', members: [ALICE, BOB, { id: MOD, roles: ['Moderator'] }, ...[10, 11, 12, 13, 14, 15, 16].map(person)] }],
		},
		env: { ENCRYPTION_KEY: KEY, PURGE_INTERVAL_MS: '0' },
	});
	guildId = world.fake.guilds.ids[0]!;
	channelId = world.fake.guild(guildId)!.channels.find((c) => c.name === 'general')!.id;
});

after(async () => {
	await world?.close();
});

function assertPrivate(body: any) {
	assert.equal((body.data?.flags ?? body.flags) & MessageFlags.Ephemeral, MessageFlags.Ephemeral, 'ephemeral');
}

describe('/privacy info', () => {
	test('without a subcommand and with info: the links, what is kept for how long, the controls; private', async () => {
		for (const input of [
			{ name: 'privacy', userId: person(10) },
			{ name: 'privacy', subcommand: 'info', userId: person(11) },
		]) {
			const { callback } = await slash(world.fake, input);
			assertPrivate(callback.body);
			const text = textOf(callback.body);
			assert.match(text, /encrypted at rest/);
			assert.match(text, /How long data is kept: [\s\S]*Conversation memory: 24 hours/);
			assert.match(text, /conversation memory is \*\*on\*\* for you/);
			assert.ok(buttonsOf(callback.body).some((b) => b.url === 'https://haven.test/support'));
		}
	});
});

describe('conversation memory', () => {
	const CAROL = person(12);
	test('stores encrypted turns, reads the last few in order, never expired ones, per channel', async () => {
		const now = new Date();
		assert.equal(
			await rememberTurn(
				em(),
				{ userId: CAROL, channelId, role: 'user', content: 'an old thing I said' },
				{ now: new Date(now.getTime() - 25 * 3_600_000) },
			),
			true,
		);
		for (let i = 1; i <= 8; i++) {
			await rememberTurn(
				em(),
				{ userId: CAROL, channelId, role: i % 2 ? 'user' : 'assistant', content: `carol turn ${i}` },
				{ now: new Date(now.getTime() + i) },
			);
		}
		await rememberTurn(em(), { userId: CAROL, channelId: '99999999999999999', role: 'user', content: 'elsewhere' });
		const turns = await recentTurns(em(), CAROL, channelId, { now: new Date(now.getTime() + 100) });
		assert.deepEqual(
			turns.map((t) => t.content),
			['carol turn 3', 'carol turn 4', 'carol turn 5', 'carol turn 6', 'carol turn 7', 'carol turn 8'],
		);
		assert.deepEqual(
			turns.map((t) => t.role),
			['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
		);
		const stored = await sql<{ content: string; expires_at: Date; created_at: Date }>(
			'select content, expires_at, created_at from memory_turns where user_id = ? and channel_id = ?',
			[CAROL, channelId],
		);
		assert.equal(stored.length, RECENT_TURNS, 'only the newest turns are kept');
		for (const row of stored) {
			assert.match(row.content, /^hv2:/, 'ciphertext at rest');
			assert.doesNotMatch(row.content, /carol/);
			assert.equal(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime(), 24 * 3_600_000, 'expires 24 h after');
		}
		// A turn past its expiry is never read, even before the purge removes it.
		await rememberTurn(
			em(),
			{ userId: CAROL, channelId: '88888888888888888', role: 'user', content: 'stale' },
			{ now: new Date(now.getTime() - 25 * 3_600_000) },
		);
		assert.deepEqual(await recentTurns(em(), CAROL, '88888888888888888'), []);
		assert.equal(await rememberTurn(em(), { userId: CAROL, channelId, role: 'user', content: '   ' }), false, 'empty text is not stored');
	});

	test('/privacy memory off: forgets everything and stores nothing while off', async () => {
		const DAVE = person(13);
		await rememberTurn(em(), { userId: DAVE, channelId, role: 'user', content: 'dave says hi' });
		await rememberTurn(em(), { userId: DAVE, channelId: '77777777777777777', role: 'user', content: 'dave elsewhere' });
		const { callback } = await slash(world.fake, { name: 'privacy', subcommandGroup: 'memory', subcommand: 'off', userId: DAVE });
		assertPrivate(callback.body);
		assert.match(textOf(callback.body), /memory is \*\*off\*\*.*2 remembered messages forgotten/);
		assert.equal(await memoryEnabled(em(), DAVE), false);
		assert.deepEqual(await sql('select id from memory_turns where user_id = ?', [DAVE]), []);
		assert.equal(await rememberTurn(em(), { userId: DAVE, channelId, role: 'user', content: 'not kept' }), false);
		assert.deepEqual(await sql('select id from memory_turns where user_id = ?', [DAVE]), []);
		assert.deepEqual(await recentTurns(em(), DAVE, channelId), []);
	});

	test('/privacy memory on: remembering again', async () => {
		const ERIN = person(14);
		await setMemoryEnabled(em(), ERIN, false);
		const { callback } = await slash(world.fake, { name: 'privacy', subcommandGroup: 'memory', subcommand: 'on', userId: ERIN });
		assert.match(textOf(callback.body), /memory is \*\*on\*\*/);
		assert.equal(await rememberTurn(em(), { userId: ERIN, channelId, role: 'user', content: 'erin again' }), true);
		assert.deepEqual(
			(await recentTurns(em(), ERIN, channelId)).map((t) => t.content),
			['erin again'],
		);
	});

	test('/privacy memory clear: forgets now, stays on', async () => {
		const FRANK = person(15);
		await rememberTurn(em(), { userId: FRANK, channelId, role: 'user', content: 'frank one' });
		await rememberTurn(em(), { userId: FRANK, channelId, role: 'assistant', content: 'haven answers' });
		const { callback } = await slash(world.fake, { name: 'privacy', subcommandGroup: 'memory', subcommand: 'clear', userId: FRANK });
		assert.match(textOf(callback.body), /cleared\. 2 remembered messages forgotten\. It is still \*\*on\*\*/);
		assert.deepEqual(await recentTurns(em(), FRANK, channelId), []);
		assert.equal(await memoryEnabled(em(), FRANK), true);
	});
});

/** Data about ALICE (and around her) in every table that can name a person. */
async function seed(): Promise<void> {
	const e = em();
	await e.execute(
		`insert into users (id, country, screening_opt_out, memory_enabled, created_at, updated_at) values (?, 'US', true, true, now(), now()), (?, 'DE', false, true, now(), now())`,
		[ALICE, BOB],
	);
	e.create(MoodCheckIn, { userId: ALICE, guildId, mood: 'anxious', intensity: 4, note: 'alice-note exams tomorrow' });
	e.create(MoodCheckIn, { userId: ALICE, guildId: null, mood: 'calm', intensity: 2, note: null });
	e.create(MoodCheckIn, { userId: BOB, guildId, mood: 'okay', intensity: 3, note: 'bob-note fine' });
	e.create(GhostLetter, { userId: ALICE, content: 'alice-letter I miss you, grandma' });
	e.create(GhostLetter, { userId: BOB, content: 'bob-letter' });
	e.create(Conversation, { userId: ALICE, guildId, source: 'discord' });
	e.create(Conversation, { userId: ALICE, guildId: null, source: 'discord' });
	e.create(CrisisEvent, {
		userId: ALICE,
		guildId,
		level: 'high',
		categories: ['self_harm'],
		trigger: 'mention',
		details: 'alice-excerpt words of pain',
		acknowledgedBy: MOD,
		acknowledgedAt: new Date(),
		resolvedBy: MOD,
		resolvedAt: new Date(),
	});
	e.create(CrisisEvent, {
		userId: BOB,
		guildId,
		level: 'concern',
		categories: ['distress'],
		trigger: 'mention',
		details: 'bob-excerpt about bob',
		acknowledgedBy: ALICE,
		acknowledgedAt: new Date(),
	});
	const aliceFeedback = e.create(Feedback, { userId: ALICE, message: 'alice-feedback Haven helped me', source: 'discord', consentPublic: true });
	const bobFeedback = e.create(Feedback, { userId: BOB, message: 'bob-feedback thanks', source: 'api' });
	e.create(CheckInReminder, { userId: ALICE, intervalMinutes: 1440, timezone: 'Europe/Paris', nextDueAt: new Date(Date.now() + 3_600_000) });
	// Encrypted text that may not be null: written through the entities (the generic seed below would write plaintext).
	e.create(JournalEntry, { userId: ALICE, mood: 'sad', content: 'alice-journal a long week', reflection: 'alice-reflection you kept going' });
	e.create(JournalEntry, { userId: BOB, mood: null, content: 'bob-journal', reflection: null });
	e.create(GratitudeItem, { userId: ALICE, day: '2026-11-20', content: 'alice-gratitude warm tea' });
	e.create(GratitudeItem, { userId: BOB, day: '2026-11-20', content: 'bob-gratitude' });
	const aliceRound = e.create(GameRound, { kind: 'trivia', guildId, startedBy: ALICE, content: { question: 'Q?' } });
	const bobRound = e.create(GameRound, { kind: 'wyr', guildId, startedBy: BOB, content: { a: 'x', b: 'y' } });
	await e.flush();
	e.create(GameVote, { round: aliceRound, userId: ALICE, choice: 1 });
	e.create(GameVote, { round: aliceRound, userId: BOB, choice: 2 });
	e.create(GameVote, { round: bobRound, userId: ALICE, choice: 0 });
	e.create(GameVote, { round: bobRound, userId: BOB, choice: 1 });
	await e.flush();
	await approveFeedback(em(), aliceFeedback.id, { public: true, reviewerId: MOD });
	await approveFeedback(em(), bobFeedback.id, { public: false, reviewerId: ALICE });
	await rememberTurn(em(), { userId: ALICE, channelId, role: 'user', content: 'alice-memory I could not sleep' });
	await rememberTurn(em(), { userId: ALICE, channelId, role: 'assistant', content: 'That sounds hard.' });
	await seedEveryOtherTable();
}

/**
 * Tables added later, which `seed` does not know: one row naming ALICE, built from the metadata, so that the
 * completeness check below covers them too. A table it cannot fill fails the test: add it to `seed`.
 */
async function seedEveryOtherTable(): Promise<void> {
	for (const column of userColumns(world.haven.db.orm.getMetadata())) {
		const [{ count }] = await sql<{ count: number }>(`select count(*)::int as count from "${column.table}" where "${column.column}" = ?`, [
			ALICE,
		]);
		if (count > 0) continue;
		const meta = metaOf(world.haven.db.orm.getMetadata(), column.entity)!;
		const names: string[] = [];
		const values: unknown[] = [];
		for (const prop of Object.values(meta.properties) as EntityProperty[]) {
			if (prop.kind !== 'scalar')
				assert.fail(`cannot seed ${column.table} generically (relation ${prop.name}): add it to seed() in test/privacy/privacy.test.ts`);
			if (prop.primary && prop.autoincrement) continue;
			names.push(`"${prop.fieldNames[0]}"`);
			values.push(prop.name === column.property ? ALICE : placeholder(prop, column));
		}
		try {
			await sql(`insert into "${column.table}" (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`, values);
		} catch (error) {
			assert.fail(
				`cannot seed ${column.table} generically (${error instanceof Error ? error.message : error}): add it to seed() in test/privacy/privacy.test.ts`,
			);
		}
	}
}

function placeholder(prop: EntityProperty, column: ColumnRef): unknown {
	if (prop.nullable) return null;
	if (prop.length === 20) return column.primary ? ALICE : '11111111111111111';
	switch (prop.runtimeType) {
		case 'string':
			return 'x';
		case 'number':
			return 1;
		case 'boolean':
			return false;
		case 'Date':
			return new Date();
		default:
			return prop.type === 'ArrayType' ? '{}' : '{}';
	}
}

describe('/privacy export', () => {
	let exported: any;
	before(seed);

	test('a private file attachment with the person’s own data, decrypted', async () => {
		const ix = world.fake.sendSlashCommand({ name: 'privacy', subcommand: 'export', userId: ALICE, guildId, channelId });
		const callback = await ix.callback();
		assert.equal(callback.body.type, InteractionResponseType.DeferredChannelMessageWithSource);
		assertPrivate(callback.body);
		const edit = await ix.edit(5_000);
		assert.equal(edit.files?.length, 1, 'one attachment');
		const file = edit.files![0]!;
		assert.match(file.name, new RegExp(`^haven-data-${ALICE}-\\d{8}\\.json$`));
		assert.match(
			edit.body.content,
			/everything Haven stores about you \(2 check-ins, 1 ghost letter, 1 feedback message, 2 remembered turns, 1 crisis event\)/,
		);
		exported = JSON.parse(file.data.toString('utf8'));

		assert.equal(exported.format, 'haven-user-data');
		assert.equal(exported.userId, ALICE);
		assert.deepEqual(
			exported.preferences && {
				country: exported.preferences.country,
				crisisScreening: exported.preferences.crisisScreening,
				conversationMemory: exported.preferences.conversationMemory,
			},
			{ country: 'US', crisisScreening: false, conversationMemory: true },
		);
		assert.deepEqual(
			exported.checkIns.map((c: any) => [c.mood, c.intensity, c.note]),
			[
				['anxious', 4, 'alice-note exams tomorrow'],
				['calm', 2, null],
			],
		);
		assert.deepEqual(
			exported.ghostLetters.map((l: any) => l.content),
			['alice-letter I miss you, grandma'],
		);
		assert.deepEqual(
			exported.feedback.map((f: any) => [f.message, f.status, f.public, f.agreedToBeQuoted]),
			[['alice-feedback Haven helped me', 'approved', true, true]],
		);
		assert.deepEqual(
			exported.conversationMemory.map((m: any) => [m.role, m.content, m.channelId]),
			[
				['user', 'alice-memory I could not sleep', channelId],
				['assistant', 'That sounds hard.', channelId],
			],
		);
		assert.equal(exported.conversations.length, 2);
		assert.deepEqual(
			exported.crisisEvents.map((c: any) => [c.level, c.details, c.acknowledged, c.resolved, c.categories]),
			[['high', 'alice-excerpt words of pain', true, true, ['self_harm']]],
		);
		assert.equal(exported.other.check_in_reminders?.length, 1);
		assert.equal(exported.other.check_in_reminders[0].timezone, 'Europe/Paris');
		assert.equal(exported.other.game_votes?.length, 2);
		assert.deepEqual(Object.keys(exported.other.game_votes[0]).sort(), ['choice', 'createdAt', 'round', 'userId']);
		assert.equal(typeof exported.other.game_votes[0].round, 'number', 'a reference is exported as its id');
		assert.equal(exported.other.game_rounds?.length, 1);
		// resolved_by: the row seedEveryOtherTable made (seed() has no alert Alice resolved).
		// blocks: the row seedEveryOtherTable made with Alice as the owner who placed and lifted a block.
		assert.deepEqual(exported.actionsAboutOthers, {
			'blocks.blocked_by': 1,
			'blocks.lifted_by': 1,
			'crisis_events.acknowledged_by': 1,
			'crisis_events.resolved_by': 1,
			'feedback.reviewer_id': 1,
		});
	});

	test('nothing about other people: no other ids, no other excerpts or texts', () => {
		const raw = JSON.stringify(exported);
		for (const other of [BOB, MOD]) assert.ok(!raw.includes(other), `the export does not name ${other}`);
		for (const text of ['bob-excerpt', 'bob-note', 'bob-letter', 'bob-feedback']) assert.ok(!raw.includes(text), `the export has no ${text}`);
		assert.ok(!/hv[12]:/.test(raw), 'no ciphertext: everything is decrypted');
	});
});

describe('/privacy delete', () => {
	let counters: unknown[];
	let confirmId: string;
	const aliceRows = async () => Object.values(await remainingReferences(em(), ALICE)).reduce((a, b) => a + b, 0);

	test('asks to confirm, privately, with a button that expires', async () => {
		// Alice ran /privacy export a moment ago: /privacy has the 5 s per-person cooldown of info commands.
		(container.stores.get('preconditions').get('Cooldown') as unknown as { release(): void }).release();
		counters = await sql('select name, value from stat_counters order by name');
		const { callback } = await slash(world.fake, { name: 'privacy', subcommand: 'delete', userId: ALICE, guildId, channelId });
		assertPrivate(callback.body);
		assert.match(textOf(callback.body), /Delete everything Haven knows about you\?/);
		const buttons = buttonsOf(callback.body);
		assert.deepEqual(
			buttons.map((b) => b.label),
			['Delete everything', 'Cancel'],
		);
		confirmId = buttons[0]!.custom_id!;
		const parsed = parseDeleteButton(confirmId)!;
		assert.equal(parsed.userId, ALICE);
		assert.ok(parsed.expiresAt > Date.now() && parsed.expiresAt <= Date.now() + 2 * 60_000 + 1_000);
		assert.ok((await aliceRows()) > 10);
	});

	test('someone else pressing the button is refused and nothing changes', async () => {
		const before = await aliceRows();
		const ix = world.fake.sendButton({ customId: confirmId, userId: BOB, guildId, channelId });
		const callback = await ix.callback();
		assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource, 'a new private message, not an update');
		assertPrivate(callback.body);
		assert.equal(callback.body.data.content, DELETE_NOT_YOURS);
		assert.equal(await aliceRows(), before);
	});

	test('an expired confirmation and Cancel delete nothing', async () => {
		const before = await aliceRows();
		const expired = deleteButtonId({ action: 'confirm', userId: ALICE, expiresAt: Date.now() - 1 });
		const late = await world.fake.sendButton({ customId: expired, userId: ALICE, guildId, channelId }).callback();
		assert.equal(late.body.type, InteractionResponseType.UpdateMessage);
		assert.match(late.body.data.content, /expired, so nothing was deleted/);
		assert.deepEqual(late.body.data.components, [], 'the buttons go');
		const cancelId = deleteButtonId({ ...parseDeleteButton(confirmId)!, action: 'cancel' });
		const cancel = await world.fake.sendButton({ customId: cancelId, userId: ALICE, guildId, channelId }).callback();
		assert.match(cancel.body.data.content, /Cancelled: nothing was deleted/);
		assert.equal(await aliceRows(), before);
	});

	test('confirmed: no row in any table references the person; counts survive anonymously; others keep their data', async () => {
		const totals = async () =>
			await sql<{ t: string; n: number }>(
				`select 'crisis' as t, count(*)::int as n from crisis_events union all select 'conversations', count(*)::int from conversations`,
			);
		const beforeTotals = await totals();
		const testimonialsBefore = (await (await fetch(`${world.haven.url}/v1/testimonials`)).json()) as { message: string }[];
		assert.ok(testimonialsBefore.some((t) => t.message.startsWith('alice-feedback')));

		const callback = await world.fake.sendButton({ customId: confirmId, userId: ALICE, guildId, channelId }).callback(5_000);
		assert.equal(callback.body.type, InteractionResponseType.UpdateMessage);
		assert.match(callback.body.data.content, /^Done\. Haven deleted \d+ records about you and removed your id from \d+ anonymous counts\./);
		assert.deepEqual(callback.body.data.components, []);

		// 1. Every column that can hold a user id (from the ORM metadata, so tables added later are included).
		const columns = userColumns(world.haven.db.orm.getMetadata());
		assert.ok(columns.length >= 13);
		for (const column of columns) {
			const [{ count }] = await sql<{ count: number }>(`select count(*)::int as count from "${column.table}" where "${column.column}" = ?`, [
				ALICE,
			]);
			assert.equal(count, 0, `${column.table}.${column.column} still references the person`);
		}
		// 2. Belt and braces: the id in no text, json or array column of any table at all.
		const textual = await sql<{ table_name: string; column_name: string }>(
			`select table_name, column_name from information_schema.columns
			 where table_schema = 'public' and data_type in ('character varying', 'text', 'json', 'jsonb', 'ARRAY', 'character')`,
		);
		assert.ok(textual.length > 20);
		for (const { table_name, column_name } of textual) {
			const [{ count }] = await sql<{ count: number }>(
				`select count(*)::int as count from "${table_name}" where "${column_name}"::text like ?`,
				[`%${ALICE}%`],
			);
			assert.equal(count, 0, `${table_name}.${column_name} mentions the person`);
		}
		// 3. What counts survives: the counters exactly, and anonymous rows for per-server counts.
		assert.deepEqual(await sql('select name, value from stat_counters order by name'), counters);
		assert.deepEqual(await totals(), beforeTotals);
		const anonymous = await sql(`select user_id, details from crisis_events where level = 'high'`);
		assert.deepEqual(anonymous, [{ user_id: null, details: null }]);
		// 4. Other people's data is untouched (only Alice's name is gone from it).
		const bob = em();
		assert.equal((await bob.find(MoodCheckIn, { userId: BOB }))[0]!.note, 'bob-note fine');
		assert.equal((await bob.find(GhostLetter, { userId: BOB })).length, 1);
		const bobEvent = (await bob.find(CrisisEvent, { userId: BOB }))[0]!;
		assert.equal(bobEvent.details, 'bob-excerpt about bob');
		assert.equal(bobEvent.acknowledgedBy, null);
		assert.ok(bobEvent.acknowledgedAt, 'the alert stays acknowledged');
		const bobFeedback = (await bob.find(Feedback, { userId: BOB }))[0]!;
		assert.equal(bobFeedback.reviewerId, null);
		assert.deepEqual(
			await sql('select user_id, choice from game_votes order by user_id'),
			[{ user_id: BOB, choice: 1 }],
			"Bob's vote in his own round stays",
		);
		assert.deepEqual(await sql('select country from users where id = ?', [BOB]), [{ country: 'DE' }]);
		// 5. The public testimonial is gone with it.
		const testimonialsAfter = (await (await fetch(`${world.haven.url}/v1/testimonials`)).json()) as { message: string }[];
		assert.ok(!testimonialsAfter.some((t) => t.message.startsWith('alice-feedback')));
	});

	test('pressing confirm again is harmless (nothing left to delete)', async () => {
		const callback = await world.fake.sendButton({ customId: confirmId, userId: ALICE, guildId, channelId }).callback(5_000);
		assert.match(callback.body.data.content, /^Done\. Haven deleted 0 records about you\./);
	});
});
