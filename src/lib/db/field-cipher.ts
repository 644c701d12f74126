import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Per-field AES-256-GCM, so what people write cannot be read from the database or its backups without the key.
 *
 * Every stored value carries a version prefix, so reading never guesses:
 *   `hv0:<text>`                   stored in the clear (no ENCRYPTION_KEY yet)
 *   `hv1:<saltId>.<base64url(iv | tag | ciphertext)>`   older format: associated data is table and column only
 *   `hv2:<saltId>.<base64url(iv | tag | ciphertext)>`   bound to its row (what every write produces)
 * The salt id names the salt whose derived key wrote the value.
 *
 * Row binding (hv2). The associated data is `haven:v2:<table>.<column>:<primary key>:<owner id>`, so a ciphertext
 * copied into another column, another row, or the same row given to another person does not decrypt. What survives
 * legitimate operations, and why:
 *   - the primary key never changes, and a serial id is known before the insert: the ORM draws it from the table's
 *     sequence before encrypting (see `FieldSealer` in encrypted-text.ts), so there is no placeholder and no second write;
 *   - the owner (`user_id`) only changes in privacy deletion and retention, which delete the row or set the owner and
 *     the encrypted column to null together (crisis details): nothing encrypted is ever left bound to an old owner;
 *   - server ids, status, timestamps are not bound: a server leaving (`guild_id` set to null), a review or a retention
 *     pass do not touch the value;
 *   - rotate-salt and key rotation decrypt and re-encrypt every value in place, bound to the same row.
 * An `hv1` value still reads (table and column checked only) until rotate-salt rewrites it as `hv2`.
 */

const PLAIN = 'hv0:';
const LEGACY = 'hv1:';
const SEALED = 'hv2:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = 'haven field encryption v1';
const CHECK_INFO = 'haven key check v1';
const CHECK_SALT = 'haven key check';
const CHECK_TEXT = 'haven: this is the key the database was encrypted with';

/** Returns the 32-byte key, or a readable reason (never containing the value) when it is not one. */
export function parseEncryptionKey(raw: string): Buffer | string {
	if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
	if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(raw)) {
		const decoded = Buffer.from(raw, 'base64');
		if (decoded.length === 32) return decoded;
	}
	const bytes = Buffer.byteLength(raw, 'utf8');
	if (bytes === 32) return Buffer.from(raw, 'utf8');
	return `ENCRYPTION_KEY must be 32 bytes (64 hex characters, base64 of 32 bytes, or a 32-byte string): got ${bytes}`;
}

export function saltId(salt: string): string {
	return createHash('sha256').update(salt).digest('base64url').slice(0, 8);
}

export class DecryptionError extends Error {
	readonly table: string;
	readonly column: string;
	/** The row's primary key, when known. Never the value. */
	readonly id: string | undefined;
	constructor(table: string, column: string, reason: string, id?: string | number) {
		super(`Cannot decrypt ${table}.${column}${id === undefined ? '' : ` id ${id}`}: ${reason}`);
		this.name = 'DecryptionError';
		this.table = table;
		this.column = column;
		this.id = id === undefined ? undefined : String(id);
	}
}

export interface FieldLocation {
	table: string;
	column: string;
	/** The row's primary key: required to write, and to read an `hv2` value. */
	id?: string | number;
	/** The row's owner (`user_id`), or null/undefined when the table has none or the row has none. */
	owner?: string | null;
}

/** What `app_state` keeps to recognise the key: HMACs of a constant, never the key. */
export interface KeyCheck {
	/** Under a key derived from ENCRYPTION_KEY alone: recognises the key whatever the salts. */
	key: string;
	/** Per salt id, under a key derived from ENCRYPTION_KEY and that salt. */
	salts: Record<string, string>;
}

function deriveKey(key: Buffer, salt: string, info: string): Buffer {
	return Buffer.from(hkdfSync('sha256', key, salt, info, 32));
}

function checkValue(key: Buffer, salt: string): string {
	return createHmac('sha256', deriveKey(key, salt, CHECK_INFO))
		.update(CHECK_TEXT)
		.digest('base64url');
}

export class FieldCipher {
	readonly encrypting: boolean;
	readonly writeSaltId: string | undefined;
	readonly #key: Buffer | undefined;
	readonly #salts: readonly string[];
	// KeyObjects, not Buffers: a raw key is re-imported on every cipher, which makes each call ~3x slower.
	// Per salt id, the current key's first; a previous key (during key rotation) after it.
	readonly #keys: Map<string, KeyObject[]>;

	/** `previousKeys`: keys that may still have written values (only while `haven rotate-key` runs). */
	constructor(key: Buffer | undefined, salts: readonly string[], previousKeys: readonly Buffer[] = []) {
		this.#key = key;
		this.#salts = salts;
		this.#keys = new Map();
		for (const each of key ? [key, ...previousKeys] : []) {
			for (const salt of salts) {
				const id = saltId(salt);
				const list = this.#keys.get(id) ?? [];
				list.push(createSecretKey(deriveKey(each, salt, KEY_INFO)));
				this.#keys.set(id, list);
			}
		}
		this.encrypting = this.#keys.size > 0;
		this.writeSaltId = key && salts[0] !== undefined ? saltId(salts[0]) : undefined;
	}

	/** The check values of the current key and every configured salt (undefined without a key). */
	keyCheck(): KeyCheck | undefined {
		if (!this.#key) return undefined;
		const key = this.#key;
		return { key: checkValue(key, CHECK_SALT), salts: Object.fromEntries(this.#salts.map((salt) => [saltId(salt), checkValue(key, salt)])) };
	}

	seal(plain: string, at: FieldLocation): string {
		if (!this.writeSaltId) return PLAIN + plain;
		if (at.id === undefined || at.id === null) throw new Error(`Cannot encrypt ${at.table}.${at.column} before its row has an id`);
		const iv = randomBytes(IV_BYTES);
		const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.writeSaltId)![0]!, iv, { authTagLength: TAG_BYTES });
		cipher.setAAD(boundAad(at));
		const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
		return `${SEALED}${this.writeSaltId}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
	}

	open(stored: string, at: FieldLocation): string {
		if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
		const fail = (reason: string) => new DecryptionError(at.table, at.column, reason, at.id);
		const bound = stored.startsWith(SEALED);
		if (!bound && !stored.startsWith(LEGACY)) throw fail('unknown storage format');
		if (bound && (at.id === undefined || at.id === null)) throw fail('the row is not known, so its binding cannot be checked');
		const dot = stored.indexOf('.', SEALED.length);
		const id = stored.slice(SEALED.length, dot);
		const keys = dot > 0 ? this.#keys.get(id) : undefined;
		if (!keys) throw fail(this.encrypting ? `salt ${id} is not in ENCRYPTION_SALT_LIST` : 'the value is encrypted but ENCRYPTION_KEY is not set');
		const packed = Buffer.from(stored.slice(dot + 1), 'base64url');
		if (packed.length < IV_BYTES + TAG_BYTES) throw fail('truncated value');
		const aad = bound ? boundAad(at) : legacyAad(at);
		for (const key of keys) {
			try {
				const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
				decipher.setAAD(aad);
				decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
				return Buffer.concat([decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
			} catch {
				// the next key, if any
			}
		}
		throw fail(bound ? 'wrong key, tampered value, or a value moved from another row' : 'wrong key or tampered value');
	}

	/** True when the stored value is not written the way this cipher would write it now (clear text, older format or salt). */
	isStale(stored: string): boolean {
		if (!this.writeSaltId) return false;
		return !stored.startsWith(`${SEALED}${this.writeSaltId}.`);
	}
}

function legacyAad({ table, column }: FieldLocation): Buffer {
	return Buffer.from(`haven:${table}.${column}`, 'utf8');
}

function boundAad({ table, column, id, owner }: FieldLocation): Buffer {
	return Buffer.from(`haven:v2:${table}.${column}:${String(id)}:${owner ?? ''}`, 'utf8');
}
