import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/lib/core/config.ts';
import { migrate, openDatabase, type Database } from '../../src/lib/db/index.ts';
import { purge } from '../../src/lib/privacy/retention.ts';
import { recordCrisisEvent } from '../../src/lib/safety/events.ts';
import { logCheckIn } from '../../src/lib/wellbeing/checkins.ts';
import { dropDatabase, testEnv } from '../support/env.ts';

/**
 * What someone holding a dump of the database (a stolen backup, say) learns from crisis_events and mood_check_ins,
 * as README.md's privacy section states it: the person's Discord id stays in the clear (the features look rows up by
 * it), the text they wrote never is, and a crisis event loses the id after CRISIS_DETAILS_RETENTION_DAYS.
 */

const USER = '123456789012345678';
const GUILD = '223456789012345678';
const NOTE = 'argued with my sister again, cannot sleep';
const EXCERPT = 'i do not want to be here anymore';
const DAY = 86_400_000;
const env = testEnv({ ENCRYPTION_KEY: '0123456789abcdef'.repeat(4) });
let db: Database;

/** Every column of every row, as text, the way `pg_dump` would show them. */
async function dump(table: string): Promise<string> {
	const rows = await db.orm.em.getConnection().execute<{ row: string }[]>(`select row_to_json(t)::text as row from ${table} t`);
	return rows.map(({ row }) => row).join('\n');
}

before(async () => {
	db = await openDatabase(parseConfig(env), { info: () => undefined, warn: () => undefined });
	await migrate(db.orm);
	await logCheckIn(db.orm.em.fork(), { userId: USER, guildId: GUILD, mood: 'sad', intensity: 4, note: NOTE });
	await recordCrisisEvent(db.orm.em.fork(), {
		guildId: GUILD,
		userId: USER,
		level: 'high',
		categories: ['suicidal_ideation'],
		trigger: 'mention',
		details: EXCERPT,
	});
});

after(async () => {
	await db.close();
	await dropDatabase(env.DATABASE_URL);
});

describe('a database dump', () => {
	test('shows who checked in, when and the mood, never the note', async () => {
		const rows = await dump('mood_check_ins');
		assert.ok(!rows.includes(NOTE) && !rows.includes('sister'), 'the note is encrypted');
		assert.ok(rows.includes(USER), 'the Discord id is kept in the clear (documented)');
		assert.match(rows, /"mood":"sad","intensity":4/);
	});

	test('shows a crisis event with its person only until the retention purge, never the excerpt', async () => {
		const fresh = await dump('crisis_events');
		assert.ok(!fresh.includes(EXCERPT) && !fresh.includes('anymore'), 'the excerpt is encrypted');
		assert.ok(fresh.includes(USER), 'the Discord id is kept in the clear while the event is recent (documented)');

		await purge(db.orm, new Date(Date.now() + 31 * DAY));
		const purged = await dump('crisis_events');
		assert.ok(!purged.includes(USER), 'after CRISIS_DETAILS_RETENTION_DAYS (30) the person is gone');
		assert.match(purged, /"user_id":null/);
		assert.match(purged, /"details":null/);
		assert.match(purged, /"level":"high"/, 'the event still counts');
	});
});
