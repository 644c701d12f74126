import { timingSafeEqual } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { DecryptionError, type FieldCipher, type KeyCheck } from './field-cipher.ts';
import { encryptedColumns } from './index.ts';

/**
 * The key check: `app_state` keeps HMACs of a constant under keys derived from ENCRYPTION_KEY (one for the key alone,
 * one per salt id; see `FieldCipher.keyCheck`), never the key. At start Haven compares them with the configured key, so
 * a wrong key or a forgotten one stops it before it writes anything, instead of storing new rows under a key that
 * cannot read the old ones (or in the clear).
 */

export const KEY_CHECK_STATE = 'encryption-key-check';

export class KeyCheckError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'KeyCheckError';
	}
}

export type KeyCheckOutcome = 'no-key' | 'matched' | 'recorded';

type Orm = MikroORM;

export async function readKeyCheck(orm: Orm): Promise<KeyCheck | undefined> {
	const rows = await orm.em.getConnection().execute<{ value: KeyCheck }[]>('select value from app_state where key = ?', [KEY_CHECK_STATE]);
	const value = rows[0]?.value;
	return value && typeof value.key === 'string' && value.salts && typeof value.salts === 'object' ? value : undefined;
}

/** Replaces the stored check values (after a key rotation, or to record them the first time). */
export async function writeKeyCheck(orm: Orm, check: KeyCheck): Promise<void> {
	await orm.em
		.getConnection()
		.execute(
			`insert into app_state (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()`,
			[KEY_CHECK_STATE, JSON.stringify(check)],
		);
}

const same = (a: string | undefined, b: string) => a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Refuses (KeyCheckError) a configured key that is not the database's, and a missing key when the database holds
 * encrypted values or a check value. Records the check values of a key that passes: the first time, and for salts
 * added to ENCRYPTION_SALT_LIST since.
 */
export async function checkEncryptionKey(orm: Orm, cipher: FieldCipher): Promise<KeyCheckOutcome> {
	const stored = await readKeyCheck(orm);
	const expected = cipher.keyCheck();
	if (!expected) {
		if (stored) {
			throw new KeyCheckError(
				'ENCRYPTION_KEY is not set, but this database was encrypted with a key (its check value is in app_state). Set ENCRYPTION_KEY to that key and start again.',
			);
		}
		const found = await firstEncryptedValue(orm);
		if (found) {
			throw new KeyCheckError(
				`ENCRYPTION_KEY is not set, but ${found.table}.${found.column} holds encrypted values (row ${found.id} and maybe others). Set ENCRYPTION_KEY to the key they were written with and start again.`,
			);
		}
		return 'no-key';
	}
	if (stored) {
		if (!same(stored.key, expected.key)) {
			throw new KeyCheckError(
				'ENCRYPTION_KEY does not match the key this database was encrypted with (app_state check value). Set the right key. To change the key, keep the old one in OLD_ENCRYPTION_KEY and run `haven rotate-key` (see the README).',
			);
		}
		const missing = Object.entries(expected.salts).filter(([id]) => stored.salts[id] === undefined);
		for (const [id, value] of Object.entries(expected.salts)) {
			if (stored.salts[id] !== undefined && !same(stored.salts[id], value)) {
				throw new KeyCheckError(`ENCRYPTION_KEY does not match the check value of salt ${id} in app_state. Set the right key.`);
			}
		}
		if (!missing.length) return 'matched';
		await writeKeyCheck(orm, { key: stored.key, salts: { ...stored.salts, ...Object.fromEntries(missing) } });
		return 'recorded';
	}
	// No check value yet: a new database, or one encrypted before check values existed. Prove the key on what is stored.
	const samples = await sampleEncryptedValues(orm, new Set(Object.keys(expected.salts)));
	if (samples.length && !samples.some((sample) => opens(cipher, sample))) {
		throw new KeyCheckError(
			`ENCRYPTION_KEY does not decrypt the values stored in this database (tried ${samples.length}, e.g. ${samples[0]!.table}.${samples[0]!.column} row ${samples[0]!.id}). Set the key they were written with.`,
		);
	}
	// Two instances starting at once with different keys: the first to record wins, and the other is refused.
	await orm.em
		.getConnection()
		.execute(`insert into app_state (key, value, updated_at) values (?, ?, now()) on conflict (key) do nothing`, [
			KEY_CHECK_STATE,
			JSON.stringify(expected),
		]);
	const now = await readKeyCheck(orm);
	if (!now || !same(now.key, expected.key)) {
		throw new KeyCheckError('Another instance recorded a different ENCRYPTION_KEY for this database at the same time. Set the right key.');
	}
	return 'recorded';
}

interface Sample {
	table: string;
	column: string;
	id: number;
	owner: string | null;
	value: string;
}

function opens(cipher: FieldCipher, sample: Sample): boolean {
	try {
		cipher.open(sample.value, { table: sample.table, column: sample.column, id: sample.id, owner: sample.owner });
		return true;
	} catch (error) {
		if (error instanceof DecryptionError) return false;
		throw error;
	}
}

async function firstEncryptedValue(orm: Orm): Promise<{ table: string; column: string; id: number } | undefined> {
	for (const { table, column, id } of encryptedColumns(orm)) {
		const rows = await orm.em
			.getConnection()
			.execute<{ id: number }[]>(`select "${id}" as id from "${table}" where "${column}" is not null and "${column}" not like 'hv0:%' limit 1`);
		if (rows[0]) return { table, column, id: rows[0].id };
	}
	return undefined;
}

/** A few encrypted values per column written under one of the configured salts. */
async function sampleEncryptedValues(orm: Orm, saltIds: Set<string>, perColumn = 3): Promise<Sample[]> {
	const samples: Sample[] = [];
	for (const { table, column, id, owner } of encryptedColumns(orm)) {
		const patterns = [...saltIds].map((salt) => salt.replace(/_/g, '\\_')).flatMap((salt) => [`hv1:${salt}.%`, `hv2:${salt}.%`]);
		const rows = await orm.em.getConnection().execute<{ id: number; owner: string | null; value: string }[]>(
			`select "${id}" as id, ${owner ? `"${owner}"` : 'null'} as owner, "${column}" as value from "${table}"
			 where ${patterns.map(() => `"${column}" like ?`).join(' or ')} limit ${perColumn}`,
			patterns,
		);
		samples.push(...rows.map((row) => ({ table, column, ...row })));
	}
	return samples;
}
