import type { MikroORM } from '@mikro-orm/postgresql';
import { DecryptionError, FieldCipher, type FieldLocation } from '../db/field-cipher.ts';
import { encryptedColumns } from '../db/index.ts';
import { checkEncryptionKey, writeKeyCheck } from '../db/key-check.ts';

/**
 * Re-encrypts every encrypted value that is not written the current way: under the first salt, in the row-bound
 * format (`hv2`). That covers older salts, `hv1` values (bound to table and column only, which are bound to the row
 * they are in when rewritten) and clear text stored before a key existed. Works in batches by primary key, one
 * transaction each; the position is saved in `app_state` inside the same transaction, so a crashed run resumes where
 * it stopped. A value already written the current way is left alone, so running it again is always safe.
 *
 * `rotateKey` is the same walk with two keys: it reads with the old and the new key and writes with the new one, then
 * replaces the key check values (src/lib/db/key-check.ts) once every value is verified under the new key.
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
const KEY_STATE_KEY = 'rotate-key';

interface Marker {
	/** What the run writes towards (the salt id, or the new key's check value): another target starts over. */
	saltId: string;
	table: string;
	column: string;
	lastId: number;
}

interface Walk {
	/** Opens what is stored (for key rotation: under the old or the new key). */
	reader: FieldCipher;
	/** Writes the new values. */
	writer: FieldCipher;
	/** Whether a stored value must be rewritten. */
	stale: (value: string, at: FieldLocation) => boolean;
	stateKey: string;
	target: string;
}

export async function rotateSalt(orm: MikroORM, cipher: FieldCipher, options: RotateOptions): Promise<RotateReport> {
	if (!cipher.writeSaltId) throw new Error('rotate-salt needs ENCRYPTION_KEY: without a key there is nothing to encrypt with');
	// A wrong key would encrypt clear text under it and fail on the rest: refuse first (and record a new salt's check).
	await checkEncryptionKey(orm, cipher);
	const stale = (value: string) => cipher.isStale(value);
	return walk(orm, { reader: cipher, writer: cipher, stale, stateKey: STATE_KEY, target: cipher.writeSaltId }, options);
}

/**
 * Re-encrypts every value under `newKey` (the first salt, row-bound format), reading with `oldKey` or `newKey`.
 * Resumable like rotate-salt. The key check values are replaced only once every value is verified under the new key,
 * so until then the service still starts with the old key only.
 */
export async function rotateKey(
	orm: MikroORM,
	keys: { oldKey: Buffer; newKey: Buffer; salts: readonly string[] },
	options: RotateOptions,
): Promise<RotateReport> {
	if (keys.oldKey.equals(keys.newKey)) throw new Error('The old and the new key are the same: nothing to rotate');
	const writer = new FieldCipher(keys.newKey, keys.salts);
	const reader = new FieldCipher(keys.newKey, keys.salts, [keys.oldKey]);
	const check = writer.keyCheck()!;
	// The database must be the old key's (or already the new key's, when a finished run is repeated).
	const oldCheck = new FieldCipher(keys.oldKey, keys.salts);
	try {
		await checkEncryptionKey(orm, oldCheck);
	} catch (error) {
		await checkEncryptionKey(orm, writer).catch(() => {
			throw error;
		});
	}
	const stale = (value: string, at: FieldLocation) => {
		if (writer.isStale(value)) return true;
		try {
			writer.open(value, at);
			return false;
		} catch {
			return true;
		}
	};
	const report = await walk(orm, { reader, writer, stale, stateKey: KEY_STATE_KEY, target: check.key }, options);
	if (!options.dryRun && report.failures.length === 0) await writeKeyCheck(orm, check);
	return report;
}

async function walk(orm: MikroORM, { reader, writer, stale, stateKey, target }: Walk, options: RotateOptions): Promise<RotateReport> {
	const started = performance.now();
	const connection = orm.em.getConnection();
	const columns = encryptedColumns(orm).sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));
	const marker = options.dryRun ? undefined : await readMarker(orm, stateKey, target);
	const report: RotateReport = { dryRun: options.dryRun, columns: [], failures: [], seconds: 0 };
	if (marker) report.resumedFrom = { table: `${marker.table}.${marker.column}`, lastId: marker.lastId };

	let skipping = marker !== undefined;
	for (const { table, column, id: idColumn, owner: ownerColumn } of columns) {
		const ownerSql = ownerColumn ? `"${ownerColumn}"` : 'null';
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
				const rows = await em.getConnection().execute<{ id: number; owner: string | null; value: string }[]>(
					`select "${idColumn}" as id, ${ownerSql} as owner, "${column}" as value from "${table}"
						 where "${column}" is not null and "${idColumn}" > ? order by "${idColumn}" limit ? for update`,
					[lastId, options.batchSize],
					'all',
					em.getTransactionContext(),
				);
				if (rows.length === 0) return true;
				const updates: unknown[] = [];
				for (const row of rows) {
					columnReport.scanned++;
					const at = { table, column, id: row.id, owner: row.owner };
					if (!stale(row.value, at)) continue;
					columnReport.stale++;
					try {
						const plain = reader.open(row.value, at);
						updates.push(row.id, writer.seal(plain, at));
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
							`update "${table}" as t set "${column}" = v.value from (values ${values}) as v(id, value) where t."${idColumn}" = v.id`,
							updates,
							'run',
							em.getTransactionContext(),
						);
					columnReport.rewritten += updates.length / 2;
				}
				lastId = rows.at(-1)!.id;
				if (!options.dryRun) await writeMarker(em, stateKey, { saltId: target, table, column, lastId });
				return false;
			});
			options.onProgress?.({ table, column, scanned: columnReport.scanned, total: Number(total), rewritten: columnReport.rewritten, done });
			if (done) break;
		}
	}
	if (!options.dryRun) {
		await connection.execute(`delete from app_state where key = ?`, [stateKey]);
		// A value that failed in the walk fails again here: count each row once.
		const seen = new Set(report.failures.map(({ table, column, id }) => `${table}.${column}.${id}`));
		report.failures.push(...(await verifyAll(orm, writer)).filter(({ table, column, id }) => !seen.has(`${table}.${column}.${id}`)));
	}
	report.seconds = (performance.now() - started) / 1000;
	return report;
}

/** Proves that every stored value opens with the current key and salts. */
export async function verifyAll(orm: MikroORM, cipher: FieldCipher, batchSize = 5000): Promise<RotateReport['failures']> {
	const failures: RotateReport['failures'] = [];
	const connection = orm.em.getConnection();
	for (const { table, column, id, owner } of encryptedColumns(orm)) {
		for (let lastId = 0; ;) {
			const rows = await connection.execute<{ id: number; owner: string | null; value: string }[]>(
				`select "${id}" as id, ${owner ? `"${owner}"` : 'null'} as owner, "${column}" as value from "${table}"
				 where "${column}" is not null and "${id}" > ? order by "${id}" limit ?`,
				[lastId, batchSize],
			);
			if (rows.length === 0) break;
			for (const row of rows) {
				try {
					cipher.open(row.value, { table, column, id: row.id, owner: row.owner });
				} catch (error) {
					failures.push({ table, column, id: row.id, reason: reasonOf(error) });
				}
			}
			lastId = rows.at(-1)!.id;
		}
	}
	return failures;
}

async function readMarker(orm: MikroORM, stateKey: string, target: string): Promise<Marker | undefined> {
	const rows = await orm.em.getConnection().execute<{ value: Marker }[]>(`select value from app_state where key = ?`, [stateKey]);
	const marker = rows[0]?.value;
	return marker && marker.saltId === target ? marker : undefined;
}

async function writeMarker(em: ReturnType<MikroORM['em']['fork']>, stateKey: string, marker: Marker): Promise<void> {
	await em
		.getConnection()
		.execute(
			`insert into app_state (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()`,
			[stateKey, JSON.stringify(marker)],
			'run',
			em.getTransactionContext(),
		);
}

function reasonOf(error: unknown): string {
	if (error instanceof DecryptionError) return error.message;
	return error instanceof Error ? error.message : String(error);
}
