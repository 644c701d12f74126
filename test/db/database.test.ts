import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/lib/core/config.ts';
import { FieldCipher } from '../../src/lib/db/field-cipher.ts';
import { fieldCipher, useFieldCipher } from '../../src/lib/db/encrypted-text.ts';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { migrationsList } from '../../migrations/index.ts';
import {
	Feedback,
	GhostLetter,
	migrate,
	migrationStatus,
	MoodCheckIn,
	openDatabase,
	ormOptions,
	UserProfile,
	type Database,
} from '../../src/lib/db/index.ts';
import { rotateSalt, verifyAll } from '../../src/lib/operations/rotate-salt.ts';
import { dropDatabase, freshDatabaseUrl, testEnv } from '../support/env.ts';

const KEY = '0123456789abcdef'.repeat(4);
const quiet = { info: () => undefined, warn: () => undefined };
const env = testEnv({ ENCRYPTION_KEY: KEY, ENCRYPTION_SALT_LIST: 'salt-a' });
let db: Database;

const open = (overrides: Record<string, string> = {}) => openDatabase(parseConfig({ ...env, ...overrides }), quiet);
const raw = async (sql: string, params: unknown[] = []) => db.orm.em.getConnection().execute<Record<string, unknown>[]>(sql, params);

before(async () => {
	db = await open();
});

after(async () => {
	await db.close();
	await dropDatabase(env.DATABASE_URL);
});

describe('migrations', () => {
	test('apply to a fresh database once, then have nothing left to do', async () => {
		const all = migrationsList.map((migration) => migration.name);
		assert.ok(all.includes('Migration20261121000000Initial'));
		assert.deepEqual(await migrationStatus(db.orm), { applied: [], pending: all });
		assert.deepEqual(await migrate(db.orm), all);
		assert.deepEqual(await migrate(db.orm), []);
		assert.deepEqual(await migrationStatus(db.orm), { applied: all, pending: [] });
	});

	test('leave the schema exactly as the entities describe it (empty diff)', async () => {
		const diff = await db.orm.schema.getUpdateSchemaSQL({ wrap: false });
		assert.equal(diff.replace("set names 'utf8';", '').trim(), '');
	});

	test('survive concurrent starts: the advisory lock serialises them', async () => {
		// A second database on the same server, existing but unmigrated, as in a real deployment.
		const freshUrl = freshDatabaseUrl();
		const connection: Options = freshUrl ? { clientUrl: freshUrl } : { ...db.connection, dbName: 'haven_concurrent' };
		const creator = await MikroORM.init(ormOptions(connection));
		await migrationStatus(creator);
		await creator.close(true);
		const instances: MikroORM[] = [];
		try {
			for (const instance of await Promise.allSettled([1, 2, 3].map(() => MikroORM.init(ormOptions(connection))))) {
				assert.equal(instance.status, 'fulfilled');
				instances.push(instance.value);
			}
			const results = await Promise.all(instances.map((instance) => migrate(instance)));
			assert.deepEqual(
				results.flat(),
				migrationsList.map((migration) => migration.name),
				'exactly one instance applies the migrations',
			);
			assert.deepEqual(await migrationStatus(instances[0]!), { applied: migrationsList.map((migration) => migration.name), pending: [] });
		} finally {
			for (const instance of instances) await instance.close(true);
			await dropDatabase(freshUrl);
		}
	});
});

describe('encrypted fields', () => {
	test('store ciphertext at rest and read back the plaintext', async () => {
		const em = db.orm.em.fork();
		const letter = em.create(GhostLetter, { userId: '123456789012345678', content: 'I miss you: more than words' });
		await em.flush();
		const [row] = await raw('select content from ghost_letters where id = ?', [letter.id]);
		assert.match(String(row!.content), /^hv2:[\w-]{8}\./);
		assert.ok(!String(row!.content).includes('miss'));
		const reread = await db.orm.em.fork().findOneOrFail(GhostLetter, letter.id);
		assert.equal(reread.content, 'I miss you: more than words');
	});

	test('do not rewrite unchanged rows on flush', async () => {
		const em = db.orm.em.fork();
		em.create(MoodCheckIn, { userId: '123456789012345678', mood: 'calm', intensity: 3, note: 'a quiet day' });
		await em.flush();
		const [before] = await raw('select note from mood_check_ins');
		const again = db.orm.em.fork();
		const checkIn = await again.findOneOrFail(MoodCheckIn, { userId: '123456789012345678' });
		let queries = 0;
		const connection = again.getConnection();
		const execute = connection.execute.bind(connection);
		connection.execute = ((...args: Parameters<typeof execute>) => {
			queries++;
			return execute(...args);
		}) as typeof connection.execute;
		await again.flush();
		assert.equal(queries, 0, 'flush issued no update');
		checkIn.note = 'a quiet day, then rain';
		await again.flush();
		connection.execute = execute;
		const [afterChange] = await raw('select note from mood_check_ins');
		assert.notEqual(afterChange!.note, before!.note);
		assert.equal((await db.orm.em.fork().findOneOrFail(MoodCheckIn, checkIn.id)).note, 'a quiet day, then rain');
	});

	test('fail with an explicit error naming table and column when a value cannot be decrypted', async () => {
		await raw(`insert into feedback (user_id, message, source, status, consent_public, public, featured, created_at, updated_at)
			values ('123456789012345678', 'hv1:zzzzzzzz.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'api', 'queued', false, false, false, now(), now())`);
		await assert.rejects(
			db.orm.em.fork().find(Feedback, {}),
			/Cannot decrypt feedback\.message id \d+: salt zzzzzzzz is not in ENCRYPTION_SALT_LIST/,
		);
		await raw('delete from feedback');
	});

	test('keep monotonic stat counters through triggers', async () => {
		const em = db.orm.em.fork();
		em.create(UserProfile, { id: '223456789012345678' });
		em.create(UserProfile, { id: '323456789012345678' });
		await em.flush();
		await raw(`delete from users where id = '223456789012345678'`);
		const counters = Object.fromEntries((await raw('select name, value from stat_counters')).map((row) => [row.name, Number(row.value)]));
		assert.equal(counters.users, 2, 'a deletion does not lower the total');
		assert.equal(counters.moodCheckIns, 1);
	});
});

describe('rotate-salt', () => {
	const seed = async (count: number) => {
		const em = db.orm.em.fork();
		for (let i = 0; i < count; i++) em.create(Feedback, { userId: '123456789012345678', message: `feedback number ${i}`, source: 'api' });
		await em.flush();
	};

	test('encrypts values written in the clear and re-encrypts old salts; a dry run changes nothing', async () => {
		await raw('delete from feedback');
		useFieldCipher(new FieldCipher(undefined, ['salt-a']));
		await seed(30);
		useFieldCipher(new FieldCipher(parseConfig(env).encryption.key, ['salt-a']));
		await seed(20);
		const snapshot = await raw('select id, message from feedback order by id');
		assert.equal(snapshot.filter((row) => String(row.message).startsWith('hv0:')).length, 30);

		const rotated = new FieldCipher(parseConfig(env).encryption.key, ['salt-b', 'salt-a']);
		useFieldCipher(rotated);
		const dry = await rotateSalt(db.orm, rotated, { batchSize: 7, dryRun: true });
		assert.equal(dry.columns.find((column) => column.table === 'feedback')!.stale, 50);
		assert.deepEqual(await raw('select id, message from feedback order by id'), snapshot);

		const real = await rotateSalt(db.orm, rotated, { batchSize: 7, dryRun: false });
		assert.equal(real.columns.find((column) => column.table === 'feedback')!.rewritten, 50);
		assert.deepEqual(real.failures, []);
		const rows = await raw('select message from feedback');
		assert.ok(rows.every((row) => String(row.message).startsWith(`hv2:${rotated.writeSaltId}.`)));
		// Now the old salt can go.
		const onlyNew = new FieldCipher(parseConfig(env).encryption.key, ['salt-b']);
		assert.deepEqual(await verifyAll(db.orm, onlyNew), []);
		useFieldCipher(onlyNew);
		const messages = (await db.orm.em.fork().find(Feedback, {}, { orderBy: { id: 'asc' } })).map((row) => row.message);
		assert.equal(messages[0], 'feedback number 0');
		assert.equal(messages[49], 'feedback number 19');
	});

	test('resumes an interrupted run where it stopped', async () => {
		const previous = fieldCipher();
		const next = new FieldCipher(parseConfig(env).encryption.key, ['salt-c', 'salt-b']);
		let batches = 0;
		await assert.rejects(
			rotateSalt(db.orm, next, {
				batchSize: 10,
				dryRun: false,
				onProgress: ({ table }) => {
					if (table === 'feedback' && ++batches === 2) throw new Error('simulated crash');
				},
			}),
			/simulated crash/,
		);
		const rewrittenBefore = (await raw('select message from feedback')).filter((row) =>
			String(row.message).startsWith(`hv2:${next.writeSaltId}.`),
		);
		assert.equal(rewrittenBefore.length, 20, 'two committed batches survived the crash');
		const resumed = await rotateSalt(db.orm, next, { batchSize: 10, dryRun: false });
		assert.ok(resumed.resumedFrom, 'the second run resumed');
		assert.equal(resumed.columns.find((column) => column.table === 'feedback')!.rewritten, 30);
		assert.deepEqual(resumed.failures, []);
		assert.ok(previous);
	});
});

describe('DATABASE_URL sslmode', () => {
	test('maps libpq sslmode values onto the driver', async () => {
		const { sslFromUrl } = await import('../../src/lib/db/index.ts');
		assert.equal(sslFromUrl('postgresql://h/db?sslmode=disable'), false);
		assert.deepEqual(sslFromUrl('postgresql://h/db?sslmode=require'), { rejectUnauthorized: false });
		assert.deepEqual(sslFromUrl('postgresql://h/db?sslmode=verify-full'), { rejectUnauthorized: true });
		assert.equal(sslFromUrl('postgresql://h/db'), undefined);
	});
});
