// SIGKILL in the middle of the work that must not be torn: `haven rotate-salt` on thousands of rows, a migration,
// and `haven serve` with feedback writes in flight. After a restart every row is readable, the interrupted work
// resumes or is cleanly absent, and every feedback that got a 202 is there, whole. The children reach a PostgreSQL
// of this test's own (its socket), so a killed child never orphans a database server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MikroORM } from '@mikro-orm/postgresql';
import { parseConfig } from '../../src/lib/core/config.ts';
import { FieldCipher } from '../../src/lib/db/field-cipher.ts';
import { encryptedColumns, Feedback, migrate, migrationStatus, openDatabase, ormOptions, type Database } from '../../src/lib/db/index.ts';
import { verifyAll } from '../../src/lib/operations/rotate-salt.ts';
import { migrationsList } from '../../migrations/index.ts';
import { startControlledPostgres, type ControlledPostgres } from '../support/postgres-control.ts';
import { killChildren, runHaven, serveHaven, until } from './support.ts';

const KEY = 'd4'.repeat(32);
const quiet = { info: () => undefined, warn: () => undefined };

let pg: ControlledPostgres;

before(async () => {
	pg = await startControlledPostgres();
});

after(async () => {
	killChildren();
	await pg?.close();
});

/** The controlled server's URL for another database name. */
function databaseUrl(name: string): string {
	const url = new URL(pg.url);
	url.pathname = `/${name}`;
	return url.toString();
}

async function open(name: string, salts: string): Promise<Database> {
	return openDatabase(
		parseConfig({ DATABASE_URL: databaseUrl(name), ENCRYPTION_KEY: KEY, ENCRYPTION_SALT_LIST: salts, LOG_LEVEL: 'error' }),
		quiet,
	);
}

const rows = (db: Database, sql: string, params: unknown[] = []) => db.orm.em.getConnection().execute<Record<string, any>[]>(sql, params);

describe('SIGKILL', () => {
	test('mid rotate-salt on 6000 rows: every row stays readable, the next run resumes and finishes', async (t) => {
		const seeded = await open('rotate', 'salt-old');
		try {
			await migrate(seeded.orm);
			for (let batch = 0; batch < 6; batch++) {
				const em = seeded.orm.em.fork();
				for (let i = 0; i < 1000; i++)
					em.create(Feedback, { userId: '123456789012345678', message: `rotation row ${batch * 1000 + i}`, source: 'api' });
				await em.flush();
			}
		} finally {
			await seeded.close();
		}

		const env = { DATABASE_URL: databaseUrl('rotate'), ENCRYPTION_KEY: KEY, ENCRYPTION_SALT_LIST: 'salt-new,salt-old', LOG_LEVEL: 'error' };
		// Small batches, so the run outlasts the progress printer's one line a second (as it would on a big table).
		const first = runHaven(['rotate-salt', '--batch-size', '2'], env);
		const [, scanned, total] = await first.waitFor(/^feedback\.message: (\d+)\/(\d+) scanned/m);
		first.child.kill('SIGKILL');
		await first.exited;
		assert.ok(Number(scanned) < Number(total), `killed mid-run (${scanned}/${total})`);
		assert.doesNotMatch(first.output(), /Verified/);

		const cipher = new FieldCipher(parseConfig(env).encryption.key, ['salt-new', 'salt-old']);
		const check = await open('rotate', 'salt-new,salt-old');
		try {
			assert.deepEqual(await verifyAll(check.orm, cipher), [], 'every row readable right after the kill');
			const values = await rows(check, 'select id, message from feedback order by id');
			const stale = values.filter((row) => cipher.isStale(row.message)).length;
			assert.ok(stale > 0 && stale < 6000, `part done, part not (${stale} of 6000 still under the old salt)`);
			t.diagnostic(
				`rotate-salt killed after the progress line ${scanned}/${total}: ${6000 - stale} rows re-encrypted, ${stale} still under the old salt, all readable`,
			);
		} finally {
			await check.close();
		}

		const second = runHaven(['rotate-salt', '--batch-size', '500'], env);
		assert.equal(await second.exited, 0, second.output());
		assert.match(second.output(), /Resumed an interrupted run at feedback\.message after id \d+/);
		assert.match(second.output(), /Verified: every encrypted value decrypts with the current key and salts/);

		const done = await open('rotate', 'salt-new');
		try {
			const onlyNew = new FieldCipher(parseConfig(env).encryption.key, ['salt-new']);
			assert.deepEqual(await verifyAll(done.orm, onlyNew), [], 'the old salt is no longer needed');
			const messages = (await done.orm.em.fork().find(Feedback, {}, { orderBy: { id: 'asc' } })).map((row) => row.message);
			assert.equal(messages.length, 6000);
			assert.ok(
				messages.every((message, i) => message === `rotation row ${i}`),
				'every value is intact',
			);
			assert.deepEqual(await rows(done, `select key from app_state where key = 'rotate-salt'`), [], 'the resume marker is gone');
		} finally {
			await done.close();
		}
	});

	test('mid-migration: the schema is fully old until a complete run makes it fully new', async () => {
		// A fresh database with an empty migrations table, locked so that the migration's final bookkeeping insert waits:
		// the child then has run the first migration's DDL inside its transaction when it is killed.
		const url = databaseUrl('migrate_kill');
		const orm = await MikroORM.init(ormOptions({ clientUrl: url }));
		try {
			await migrationStatus(orm);
			let release!: () => void;
			const released = new Promise<void>((resolve) => (release = resolve));
			let locked!: () => void;
			const isLocked = new Promise<void>((resolve) => (locked = resolve));
			const holder = orm.em.fork().transactional(async (em) => {
				await em.execute('lock table haven_migrations in exclusive mode');
				locked();
				await released;
			});
			await isLocked;

			const tables = async () =>
				(
					await orm.em
						.getConnection()
						.execute<{ table_name: string }[]>(
							`select table_name from information_schema.tables where table_schema = 'public' and table_name <> 'haven_migrations'`,
						)
				).length;
			const child = runHaven(['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'error' });
			await until(
				async () =>
					(
						await orm.em
							.getConnection()
							.execute<{ n: string }[]>(
								`select count(*) as n from pg_stat_activity where datname = 'migrate_kill' and wait_event_type = 'Lock' and query ilike '%insert%haven_migrations%'`,
							)
					)[0]!.n === '1',
				'the migration to wait on its bookkeeping insert',
				30_000,
			);
			assert.equal(await tables(), 0, 'the migration ran its DDL, uncommitted: nothing is visible');
			child.child.kill('SIGKILL');
			await child.exited;
			release();
			await holder;
			// The killed client's server session finishes its insert, then finds the client gone and rolls back.
			await until(
				async () =>
					(
						await orm.em
							.getConnection()
							.execute<{ n: string }[]>(
								`select count(*) as n from pg_stat_activity where datname = 'migrate_kill' and application_name = 'haven' and pid <> pg_backend_pid() and state <> 'idle'`,
							)
					)[0]!.n === '0',
				'the killed session to end',
				15_000,
			);
			assert.equal(await tables(), 0, 'fully old: no table of the killed run');
			assert.deepEqual((await migrationStatus(orm)).applied, [], 'nothing recorded as applied');

			const rerun = runHaven(['migrate'], { DATABASE_URL: url, LOG_LEVEL: 'error' });
			assert.equal(await rerun.exited, 0, rerun.output());
			const status = await migrationStatus(orm);
			assert.deepEqual(
				status.applied,
				migrationsList.map((migration) => migration.name),
			);
			assert.deepEqual(status.pending, []);
			assert.ok((await tables()) > 5, 'fully new');
		} finally {
			await orm.close(true);
		}
	});

	test('mid feedback writes: every 202 is stored whole after a restart; nothing half-written', async (t) => {
		const token = 'kill-api-token-0123456789';
		const env = {
			DATABASE_URL: databaseUrl('writes'),
			ENCRYPTION_KEY: KEY,
			API_TOKEN: token,
			RATE_LIMIT_PER_MINUTE: '1000000',
			RATE_LIMIT_FEEDBACK_PER_MINUTE: '1000000',
			PURGE_INTERVAL_MS: '0',
		};
		const server = await serveHaven(env);
		const sent = new Set<string>();
		const accepted = new Set<string>();
		const failures = new Map<string, number>();
		let counter = 0;
		let stop = false;
		const worker = async (w: number) => {
			while (!stop) {
				const n = counter++;
				const message = `write ${'é'.repeat(n % 50)} ${w}-${n}`;
				sent.add(message);
				try {
					const response = await fetch(`${server.url}/v1/feedback`, {
						method: 'POST',
						headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
						body: JSON.stringify({ userId: '123456789012345678', message }),
						signal: AbortSignal.timeout(10_000),
					});
					if (response.status === 202) accepted.add(message);
					else failures.set(String(response.status), (failures.get(String(response.status)) ?? 0) + 1);
					await response.arrayBuffer();
				} catch {
					failures.set('connection', (failures.get('connection') ?? 0) + 1);
					if (server.child.exitCode !== null || server.child.signalCode !== null) return;
				}
			}
		};
		const workers = Array.from({ length: 8 }, (_, w) => worker(w));
		t.after(() => (stop = true)); // a failed wait must not leave the workers running and the file never ending
		await until(() => accepted.size >= 200, 'a steady stream of writes', 30_000);
		server.child.kill('SIGKILL');
		await server.exited;
		stop = true;
		await Promise.all(workers);
		assert.ok(!failures.has('500'), `statuses: ${JSON.stringify([...failures])}`);

		const restarted = await serveHaven(env);
		try {
			const reply = await fetch(`${restarted.url}/v1/feedback`, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
				body: JSON.stringify({ userId: '123456789012345678', message: 'after the restart' }),
			});
			assert.equal(reply.status, 202);
		} finally {
			restarted.child.kill('SIGTERM');
			assert.equal(await restarted.exited, 0);
		}

		const db = await open('writes', 'haven-default-salt-v1');
		try {
			const stored = await db.orm.em.fork().find(Feedback, {}, { orderBy: { id: 'asc' } });
			const messages = stored.map((row) => row.message ?? '');
			const unique = new Set(messages);
			assert.equal(unique.size, messages.length, 'no duplicates');
			for (const message of accepted) assert.ok(unique.has(message), `202 but lost: ${message}`);
			for (const row of stored) {
				assert.ok(sent.has(row.message ?? '') || row.message === 'after the restart', `a row nobody sent: ${row.message}`);
				assert.equal(row.status, 'queued');
				assert.equal(row.userId, '123456789012345678');
			}
			// Whole at rest too: every stored value is sealed (never a torn or plain value) and opens.
			const cipher = new FieldCipher(parseConfig(env).encryption.key, ['haven-default-salt-v1']);
			assert.deepEqual(await verifyAll(db.orm, cipher), []);
			const columns = encryptedColumns(db.orm).filter((column) => column.table === 'feedback');
			assert.ok(columns.length > 0);
			const inFlight = stored.length - 1 - accepted.size;
			assert.ok(inFlight >= 0 && inFlight <= 8, `${inFlight} stored without a 202 (at most one per worker in flight)`);
			t.diagnostic(
				`serve killed with 8 writers: ${accepted.size} answered 202, all stored whole; ${inFlight} committed but unanswered; other outcomes ${JSON.stringify(Object.fromEntries(failures))}`,
			);
		} finally {
			await db.close();
		}
	});
});
