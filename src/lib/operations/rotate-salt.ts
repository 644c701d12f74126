import type { MikroORM } from '@mikro-orm/postgresql';
import { DecryptionError, type FieldCipher } from '../db/field-cipher.ts';
import { encryptedColumns } from '../db/index.ts';

/**
 * Re-encrypts every encrypted value that is not written under the first salt (older salts, or clear text stored
 * before a key existed). Works in batches by primary key, one transaction each; the position is saved in
 * `app_state` inside the same transaction, so a crashed run resumes where it stopped. A value already under the
 * first salt is left alone, so running it again is always safe.
 */

export interface RotateOptions {
	batchSize: number;
	dryRun: boolean;
	onProgress?: (progress: RotateProgress) => void;
}

export interface RotateProgress {
	table: string;
	column: string;
	scanned: number;
	total: number;
	rewritten: number;
	done: boolean;
}

export interface ColumnReport {
	table: string;
	column: string;
	scanned: number;
	rewritten: number;
	stale: number;
}

export interface RotateReport {
	dryRun: boolean;
	resumedFrom?: { table: string; lastId: number };
	columns: ColumnReport[];
	failures: { table: string; column: string; id: number; reason: string }[];
	seconds: number;
}

const STATE_KEY = 'rotate-salt';

interface Marker {
	saltId: string;
	table: string;
	column: string;
	lastId: number;
}

export async function rotateSalt(orm: MikroORM, cipher: FieldCipher, options: RotateOptions): Promise<RotateReport> {
	if (!cipher.writeSaltId) throw new Error('rotate-salt needs ENCRYPTION_KEY: without a key there is nothing to encrypt with');
	const started = performance.now();
	const connection = orm.em.getConnection();
	const columns = encryptedColumns(orm).sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));
	const marker = options.dryRun ? undefined : await readMarker(orm, cipher.writeSaltId);
	const report: RotateReport = { dryRun: options.dryRun, columns: [], failures: [], seconds: 0 };
	if (marker) report.resumedFrom = { table: `${marker.table}.${marker.column}`, lastId: marker.lastId };

	let skipping = marker !== undefined;
	for (const { table, column } of columns) {
		if (skipping && (marker!.table !== table || marker!.column !== column)) continue;
		const startAfter = skipping ? marker!.lastId : 0;
		skipping = false;
		const [{ total }] = await connection.execute<{ total: string }[]>(
			`select count(*) as total from "${table}" where "${column}" is not null and id > ?`,
			[startAfter],
		);
		const columnReport: ColumnReport = { table, column, scanned: 0, rewritten: 0, stale: 0 };
		report.columns.push(columnReport);
		let lastId = startAfter;
		for (;;) {
			const done = await orm.em.fork().transactional(async (em) => {
				const rows = await em
					.getConnection()
					.execute<{ id: number; value: string }[]>(
						`select id, "${column}" as value from "${table}" where "${column}" is not null and id > ? order by id limit ? for update`,
						[lastId, options.batchSize],
						'all',
						em.getTransactionContext(),
					);
				if (rows.length === 0) return true;
				const updates: unknown[] = [];
				for (const row of rows) {
					columnReport.scanned++;
					if (!cipher.isStale(row.value)) continue;
					columnReport.stale++;
					try {
						const plain = cipher.open(row.value, { table, column });
						updates.push(row.id, cipher.seal(plain, { table, column }));
					} catch (error) {
						report.failures.push({ table, column, id: row.id, reason: reasonOf(error) });
					}
				}
				if (!options.dryRun && updates.length) {
					// One statement per batch: a round trip per row would make rotation crawl.
					const values = Array.from({ length: updates.length / 2 }, () => '(?::int, ?::text)').join(', ');
					await em
						.getConnection()
						.execute(
							`update "${table}" as t set "${column}" = v.value from (values ${values}) as v(id, value) where t.id = v.id`,
							updates,
							'run',
							em.getTransactionContext(),
						);
					columnReport.rewritten += updates.length / 2;
				}
				lastId = rows.at(-1)!.id;
				if (!options.dryRun) await writeMarker(em, { saltId: cipher.writeSaltId!, table, column, lastId });
				return false;
			});
			options.onProgress?.({ table, column, scanned: columnReport.scanned, total: Number(total), rewritten: columnReport.rewritten, done });
			if (done) break;
		}
	}
	if (!options.dryRun) {
		await connection.execute(`delete from app_state where key = ?`, [STATE_KEY]);
		report.failures.push(...(await verifyAll(orm, cipher)));
	}
	report.seconds = (performance.now() - started) / 1000;
	return report;
}

/** Proves that every stored value opens with the current key and salts. */
export async function verifyAll(orm: MikroORM, cipher: FieldCipher, batchSize = 5000): Promise<RotateReport['failures']> {
	const failures: RotateReport['failures'] = [];
	const connection = orm.em.getConnection();
	for (const { table, column } of encryptedColumns(orm)) {
		for (let lastId = 0; ;) {
			const rows = await connection.execute<{ id: number; value: string }[]>(
				`select id, "${column}" as value from "${table}" where "${column}" is not null and id > ? order by id limit ?`,
				[lastId, batchSize],
			);
			if (rows.length === 0) break;
			for (const row of rows) {
				try {
					cipher.open(row.value, { table, column });
				} catch (error) {
					failures.push({ table, column, id: row.id, reason: reasonOf(error) });
				}
			}
			lastId = rows.at(-1)!.id;
		}
	}
	return failures;
}

async function readMarker(orm: MikroORM, saltId: string): Promise<Marker | undefined> {
	const rows = await orm.em.getConnection().execute<{ value: Marker }[]>(`select value from app_state where key = ?`, [STATE_KEY]);
	const marker = rows[0]?.value;
	return marker && marker.saltId === saltId ? marker : undefined;
}

async function writeMarker(em: ReturnType<MikroORM['em']['fork']>, marker: Marker): Promise<void> {
	await em
		.getConnection()
		.execute(
			`insert into app_state (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()`,
			[STATE_KEY, JSON.stringify(marker)],
			'run',
			em.getTransactionContext(),
		);
}

function reasonOf(error: unknown): string {
	if (error instanceof DecryptionError) return error.message;
	return error instanceof Error ? error.message : String(error);
}
