// Encrypted values bound to their row, and the key check at start, on a real PostgreSQL: a ciphertext copied into
// another row is not served and is logged by row id; a wrong or missing key stops Haven; values in the older format
// still read and rotate-salt rewrites them; key rotation is resumable and moves the key check to the new key.
import assert from 'node:assert/strict';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { parseConfig } from '../../src/lib/core/config.ts';
import { FieldCipher, saltId } from '../../src/lib/db/field-cipher.ts';
import { fieldCipher, useFieldCipher } from '../../src/lib/db/encrypted-text.ts';
import { Feedback, GhostLetter, MoodCheckIn, openDatabase, type Database } from '../../src/lib/db/index.ts';
import { rotateKey, rotateSalt, verifyAll } from '../../src/lib/operations/rotate-salt.ts';
import { letterAt } from '../../src/lib/wellbeing/ghost-letters.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { dropDatabase, testEnv } from '../support/env.ts';

const KEY = '0123456789abcdef'.repeat(4);
const NEW_KEY = 'fedcba9876543210'.repeat(4);
const SALT = 'salt-one';
const env = testEnv({ ENCRYPTION_KEY: KEY, ENCRYPTION_SALT_LIST: SALT });
const ALICE = '111111111111111111';
const BOB = '222222222222222222';

let haven: TestHaven;
let db: Database;
const warnings: string[] = [];
const raw = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => db.orm.em.getConnection().execute<T[]>(sql, params);

async function start(overrides: Record<string, string | undefined> = {}): Promise<TestHaven> {
	const started = await startTestHaven({ ...env, ...overrides });
	const warn = container.logger.warn.bind(container.logger);
	container.logger.warn = (...values: unknown[]) => {
		warnings.push(values.map(String).join(' '));
		warn(...values);
	};
	return started;
}

/** The value format before row binding (`hv1`: associated data is table and column only), written independently. */
function legacySeal(key: string, salt: string, table: string, column: string, plain: string): string {
	const derived = Buffer.from(hkdfSync('sha256', Buffer.from(key, 'hex'), salt, 'haven field encryption v1', 32));
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', derived, iv, { authTagLength: 16 });
	cipher.setAAD(Buffer.from(`haven:${table}.${column}`, 'utf8'));
	const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
	return `hv1:${saltId(salt)}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

before(async () => {
	haven = await start();
	db = haven.db;
});

after(async () => {
	await haven?.stop();
	await dropDatabase(env.DATABASE_URL);
});

describe('a ciphertext copied into another row', () => {
	test('feedback copied into an approved testimonial is not served, and its row id is logged', async () => {
		const em = db.orm.em.fork();
		const secret = em.create(Feedback, { userId: ALICE, message: 'private: please do not publish this', source: 'api' });
		const shown = em.create(Feedback, { userId: BOB, message: 'Haven helped me', source: 'api', status: 'approved', public: true });
		const other = em.create(Feedback, { userId: BOB, message: 'still here', source: 'api', status: 'approved', public: true });
		await em.flush();
		const before = (await (await fetch(`${haven.url}/v1/testimonials`)).json()) as { message: string }[];
		assert.deepEqual(before.map((row) => row.message).sort(), ['Haven helped me', 'still here']);

		await raw('update feedback set message = (select message from feedback where id = ?) where id = ?', [secret.id, shown.id]);
		warnings.length = 0;
		const response = await fetch(`${haven.url}/v1/testimonials`);
		assert.equal(response.status, 200);
		const body = await response.text();
		assert.ok(!body.includes('please do not publish'), 'the copied feedback is never served');
		assert.deepEqual(
			(JSON.parse(body) as { message: string }[]).map((row) => row.message),
			['still here'],
			'the other testimonials still are',
		);
		const logged = warnings.filter((line) => line.includes(`feedback.message id ${shown.id}`));
		assert.ok(logged.length > 0, `the row is named in the log: ${warnings.join(' | ')}`);
		assert.ok(!warnings.some((line) => line.includes('please do not publish')), 'never the content');
		assert.ok(other.id > 0);
	});

	test("a ghost letter copied into another person's row, or given to them, does not decrypt", async () => {
		const em = db.orm.em.fork();
		const alices = em.create(GhostLetter, { userId: ALICE, content: "alice's letter" });
		const bobs = em.create(GhostLetter, { userId: BOB, content: "bob's letter" });
		await em.flush();
		assert.equal((await letterAt(db.orm.em.fork(), BOB, 0)).letter?.content, "bob's letter");

		await raw('update ghost_letters set content = (select content from ghost_letters where id = ?) where id = ?', [alices.id, bobs.id]);
		warnings.length = 0;
		await assert.rejects(letterAt(db.orm.em.fork(), BOB, 0), new RegExp(`Cannot decrypt ghost_letters\\.content id ${bobs.id}`));
		assert.ok(warnings.some((line) => line.includes(`ghost_letters.content id ${bobs.id}`)));
		assert.ok(!warnings.some((line) => line.includes("alice's letter")));

		// Handing Alice's row itself to Bob does not work either: the owner is bound too.
		await raw('delete from ghost_letters where id = ?', [bobs.id]);
		await raw('update ghost_letters set user_id = ? where id = ?', [BOB, alices.id]);
		await assert.rejects(letterAt(db.orm.em.fork(), BOB, 0), new RegExp(`ghost_letters\\.content id ${alices.id}`));
		await raw('update ghost_letters set user_id = ? where id = ?', [ALICE, alices.id]);
		assert.equal((await letterAt(db.orm.em.fork(), ALICE, 0)).letter?.content, "alice's letter", 'back in its row, it reads again');
	});

	test('reading and flushing leaves stored values alone; changing a value re-seals it to the same row', async () => {
		const em = db.orm.em.fork();
		const checkIn = em.create(MoodCheckIn, { userId: ALICE, mood: 'calm', intensity: 3, note: 'a quiet day' });
		await em.flush();
		const [stored] = await raw<{ note: string }>('select note from mood_check_ins where id = ?', [checkIn.id]);
		assert.match(stored!.note, /^hv2:/);
		const reread = db.orm.em.fork();
		const row = await reread.findOneOrFail(MoodCheckIn, { id: checkIn.id });
		await reread.flush();
		assert.deepEqual(await raw('select note from mood_check_ins where id = ?', [checkIn.id]), [stored]);
		row.note = 'a better day';
		await reread.flush();
		assert.equal((await db.orm.em.fork().findOneOrFail(MoodCheckIn, { id: checkIn.id })).note, 'a better day');
	});
});

describe('the key check at start', () => {
	test('refuses a wrong key and a missing key, then starts with the right one', async () => {
		await haven.stop();
		await assert.rejects(start({ ENCRYPTION_KEY: NEW_KEY }), /ENCRYPTION_KEY does not match the key this database was encrypted with/);
		await assert.rejects(start({ ENCRYPTION_KEY: undefined }), /ENCRYPTION_KEY is not set, but this database was encrypted with a key/);

		// A database encrypted before check values existed: the encrypted rows themselves tell.
		const plain = await openDatabase(parseConfig(env), { info: () => undefined, warn: () => undefined });
		await plain.orm.em.getConnection().execute(`delete from app_state where key = 'encryption-key-check'`);
		await plain.close();
		await assert.rejects(
			start({ ENCRYPTION_KEY: undefined }),
			/ENCRYPTION_KEY is not set, but [a-z_]+\.[a-z_]+ holds encrypted values \(row \d+/,
		);
		await assert.rejects(start({ ENCRYPTION_KEY: NEW_KEY }), /ENCRYPTION_KEY does not decrypt the values stored in this database/);

		haven = await start();
		db = haven.db;
		const [check] = await raw<{ value: { key: string; salts: Record<string, string> } }>(
			`select value from app_state where key = 'encryption-key-check'`,
		);
		assert.deepEqual(Object.keys(check!.value.salts), [saltId(SALT)], 'recorded again on the first start with the right key');
		assert.ok(!JSON.stringify(check).includes(KEY));
	});
});

describe('older values and rotation', () => {
	test('values in the older format still read, and rotate-salt rewrites them bound to their row', async () => {
		// The copied (unreadable) values of the first tests would fail verification: remove them as an operator would.
		for (const failure of await verifyAll(db.orm, fieldCipher())) await raw(`delete from "${failure.table}" where id = ?`, [failure.id]);
		const legacy = legacySeal(KEY, SALT, 'feedback', 'message', 'written before row binding');
		const [{ id }] = (await raw<{ id: number }>(
			`insert into feedback (user_id, message, source, status, consent_public, public, featured, created_at, updated_at)
			 values (?, ?, 'api', 'queued', false, false, false, now(), now()) returning id`,
			[ALICE, legacy],
		)) as [{ id: number }];
		assert.equal((await db.orm.em.fork().findOneOrFail(Feedback, { id })).message, 'written before row binding');

		const report = await rotateSalt(db.orm, fieldCipher(), { batchSize: 2, dryRun: false });
		assert.deepEqual(report.failures, []);
		assert.equal(report.columns.find((column) => column.table === 'feedback')!.rewritten, 1, 'only the old value');
		const [after] = await raw<{ message: string }>('select message from feedback where id = ?', [id]);
		assert.match(after!.message, new RegExp(`^hv2:${saltId(SALT)}\\.`));
		assert.equal((await db.orm.em.fork().findOneOrFail(Feedback, { id })).message, 'written before row binding');
		// A second run has nothing left to do.
		const again = await rotateSalt(db.orm, fieldCipher(), { batchSize: 2, dryRun: false });
		assert.equal(
			again.columns.reduce((sum, column) => sum + column.rewritten, 0),
			0,
		);
	});

	test('rotate-salt with a new salt at the front records that salt in the key check', async () => {
		const rotated = new FieldCipher(Buffer.from(KEY, 'hex'), ['salt-two', SALT]);
		const previous = fieldCipher();
		useFieldCipher(rotated);
		try {
			const report = await rotateSalt(db.orm, rotated, { batchSize: 50, dryRun: false });
			assert.deepEqual(report.failures, []);
			assert.ok(report.columns.reduce((sum, column) => sum + column.rewritten, 0) > 0);
		} finally {
			useFieldCipher(previous);
		}
		const [check] = await raw<{ value: { salts: Record<string, string> } }>(`select value from app_state where key = 'encryption-key-check'`);
		assert.deepEqual(Object.keys(check!.value.salts).sort(), [saltId('salt-two'), saltId(SALT)].sort());
	});

	test('rotate-key re-encrypts under the new key, resumes after a crash, then only the new key starts Haven', async () => {
		const em = db.orm.em.fork();
		for (let i = 0; i < 25; i++) em.create(Feedback, { userId: BOB, message: `feedback ${i}`, source: 'api' });
		await em.flush();
		await haven.stop();

		const keys = { oldKey: Buffer.from(KEY, 'hex'), newKey: Buffer.from(NEW_KEY, 'hex'), salts: ['salt-two', SALT] };
		const plain = await openDatabase(parseConfig({ ...env, ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_SALT_LIST: `salt-two,${SALT}` }), {
			info: () => undefined,
			warn: () => undefined,
		});
		try {
			let batches = 0;
			await assert.rejects(
				rotateKey(plain.orm, keys, {
					batchSize: 10,
					dryRun: false,
					onProgress: ({ table }) => {
						if (table === 'feedback' && ++batches === 2) throw new Error('simulated crash');
					},
				}),
				/simulated crash/,
			);
			const newOnly = new FieldCipher(keys.newKey, keys.salts);
			assert.ok((await verifyAll(plain.orm, newOnly)).length > 0, 'half done: some values are still under the old key');
			const resumed = await rotateKey(plain.orm, keys, { batchSize: 10, dryRun: false });
			assert.ok(resumed.resumedFrom, 'the second run resumed');
			assert.deepEqual(resumed.failures, []);
			assert.deepEqual(await verifyAll(plain.orm, newOnly), []);
			assert.ok((await verifyAll(plain.orm, new FieldCipher(keys.oldKey, keys.salts))).length > 0, 'the old key reads nothing any more');
		} finally {
			await plain.close();
		}

		await assert.rejects(start({ ENCRYPTION_SALT_LIST: `salt-two,${SALT}` }), /ENCRYPTION_KEY does not match/);
		haven = await start({ ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_SALT_LIST: `salt-two,${SALT}` });
		db = haven.db;
		const messages = (await db.orm.em.fork().find(Feedback, { userId: BOB }, { orderBy: { id: 'asc' } })).map((row) => row.message);
		assert.ok(messages.includes('feedback 0') && messages.includes('feedback 24'));
	});
});
