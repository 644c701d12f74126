import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Per-field AES-256-GCM, so what people write cannot be read from the database or its backups without the key.
 *
 * Every stored value carries a version prefix, so reading never guesses:
 *   `hv0:<text>`                   stored in the clear (no ENCRYPTION_KEY yet)
 *   `hv1:<saltId>.<base64url(iv | tag | ciphertext)>`
 * The salt id names the salt whose derived key wrote the value. The associated data binds the value to its
 * table and column, so a ciphertext copied into another column does not decrypt.
 */

const PLAIN = 'hv0:';
const SEALED = 'hv1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_INFO = 'haven field encryption v1';

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
	constructor(table: string, column: string, reason: string) {
		super(`Cannot decrypt ${table}.${column}: ${reason}`);
		this.name = 'DecryptionError';
		this.table = table;
		this.column = column;
	}
}

export interface FieldLocation {
	table: string;
	column: string;
}

export class FieldCipher {
	readonly encrypting: boolean;
	readonly writeSaltId: string | undefined;
	// KeyObjects, not Buffers: a raw key is re-imported on every cipher, which makes each call ~3x slower.
	readonly #keys: Map<string, KeyObject>;

	constructor(key: Buffer | undefined, salts: readonly string[]) {
		this.#keys = new Map();
		if (key) {
			for (const salt of salts) {
				this.#keys.set(saltId(salt), createSecretKey(Buffer.from(hkdfSync('sha256', key, salt, KEY_INFO, 32))));
			}
		}
		this.encrypting = this.#keys.size > 0;
		this.writeSaltId = key && salts[0] !== undefined ? saltId(salts[0]) : undefined;
	}

	seal(plain: string, at: FieldLocation): string {
		if (!this.writeSaltId) return PLAIN + plain;
		const iv = randomBytes(IV_BYTES);
		const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.writeSaltId)!, iv, { authTagLength: TAG_BYTES });
		cipher.setAAD(aad(at));
		const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
		return `${SEALED}${this.writeSaltId}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
	}

	open(stored: string, at: FieldLocation): string {
		if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
		if (!stored.startsWith(SEALED)) throw new DecryptionError(at.table, at.column, 'unknown storage format');
		const dot = stored.indexOf('.', SEALED.length);
		const id = stored.slice(SEALED.length, dot);
		const key = dot > 0 ? this.#keys.get(id) : undefined;
		if (!key) {
			const reason = this.encrypting ? `salt ${id} is not in ENCRYPTION_SALT_LIST` : 'the value is encrypted but ENCRYPTION_KEY is not set';
			throw new DecryptionError(at.table, at.column, reason);
		}
		const packed = Buffer.from(stored.slice(dot + 1), 'base64url');
		if (packed.length < IV_BYTES + TAG_BYTES) throw new DecryptionError(at.table, at.column, 'truncated value');
		try {
			const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
			decipher.setAAD(aad(at));
			decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
			return Buffer.concat([decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
		} catch {
			throw new DecryptionError(at.table, at.column, 'wrong key or tampered value');
		}
	}

	/** True when the stored value is not written the way this cipher would write it now (clear text, or an older salt). */
	isStale(stored: string): boolean {
		if (!this.writeSaltId) return false;
		return !stored.startsWith(`${SEALED}${this.writeSaltId}.`);
	}
}

function aad({ table, column }: FieldLocation): Buffer {
	return Buffer.from(`haven:${table}.${column}`, 'utf8');
}
