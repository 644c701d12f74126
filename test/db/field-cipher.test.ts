import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DecryptionError, FieldCipher, parseEncryptionKey, saltId } from '../../src/lib/db/field-cipher.ts';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 9);
const AT = { table: 'feedback', column: 'message', id: 7, owner: '123456789012345678' };

const ADVERSARIAL = [
	'',
	' ',
	'hello',
	'a:b:c:d',
	'hv0:not really plain',
	'hv1:AAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
	'hv1:',
	'iv:tag:ciphertext',
	'emoji 😶‍🌫️ and RTL \u202Eevil\u202C and zero\u200Bwidth',
	'null \u0000 byte',
	'\uD83D lone surrogate',
	'x'.repeat(100_000),
	JSON.stringify({ nested: ['json', 1, null] }),
	'line one\nline two\r\n\ttab',
];

describe('field encryption', () => {
	test('parses keys and refuses anything that is not 32 bytes', () => {
		assert.equal((parseEncryptionKey('ab'.repeat(32)) as Buffer).length, 32);
		assert.equal(
			parseEncryptionKey('short'),
			'ENCRYPTION_KEY must be 32 bytes (64 hex characters, base64 of 32 bytes, or a 32-byte string): got 5',
		);
		assert.equal(typeof parseEncryptionKey('ab'.repeat(33)), 'string');
	});

	test('round-trips adversarial text, including text that looks like our own format', () => {
		const cipher = new FieldCipher(KEY, ['s1']);
		for (const text of ADVERSARIAL) {
			const sealed = cipher.seal(text, AT);
			assert.ok(sealed.startsWith(`hv2:${saltId('s1')}.`));
			if (text.length > 8) assert.ok(!sealed.includes(text));
			assert.equal(cipher.open(sealed, AT), text.toWellFormed()); // UTF-8 cannot hold a lone surrogate
		}
	});

	test('round-trips the same text in the clear without a key, and opens clear values once a key exists', () => {
		const plain = new FieldCipher(undefined, ['s1']);
		const withKey = new FieldCipher(KEY, ['s1']);
		for (const text of ADVERSARIAL.slice(0, 9)) {
			const stored = plain.seal(text, AT);
			assert.equal(stored, `hv0:${text}`);
			assert.equal(plain.open(stored, AT), text);
			assert.equal(withKey.open(stored, AT), text);
			assert.equal(withKey.isStale(stored), true);
		}
	});

	test('uses a fresh IV each time', () => {
		const cipher = new FieldCipher(KEY, ['s1']);
		assert.notEqual(cipher.seal('same', AT), cipher.seal('same', AT));
	});

	test('binds a value to its table, column, row and owner', () => {
		const cipher = new FieldCipher(KEY, ['s1']);
		const sealed = cipher.seal('secret', AT);
		const elsewhere = [
			{ ...AT, table: 'ghost_letters', column: 'content' },
			{ ...AT, id: 8 },
			{ ...AT, owner: '223456789012345678' },
			{ ...AT, owner: null },
		];
		for (const at of elsewhere) {
			assert.throws(
				() => cipher.open(sealed, at),
				(error: unknown) => {
					assert.ok(error instanceof DecryptionError);
					assert.equal(error.id, String(at.id));
					assert.equal(
						error.message,
						`Cannot decrypt ${at.table}.${at.column} id ${at.id}: wrong key, tampered value, or a value moved from another row`,
					);
					return true;
				},
			);
		}
		assert.throws(() => cipher.open(sealed, { table: 'feedback', column: 'message' }), /the row is not known/);
		assert.throws(() => cipher.seal('secret', { table: 'feedback', column: 'message' }), /before its row has an id/);
	});

	test('reads a previous key while a key rotation runs, and keeps check values that tell keys apart', () => {
		const old = new FieldCipher(OTHER_KEY, ['s1']);
		const both = new FieldCipher(KEY, ['s1'], [OTHER_KEY]);
		assert.equal(both.open(old.seal('under the old key', AT), AT), 'under the old key');
		assert.throws(() => old.open(both.seal('new', AT), AT), DecryptionError, 'never writes with the old key');
		assert.deepEqual(new FieldCipher(KEY, ['s1']).keyCheck(), new FieldCipher(KEY, ['s1']).keyCheck());
		assert.notEqual(new FieldCipher(KEY, ['s1']).keyCheck()!.key, old.keyCheck()!.key);
		assert.equal(new FieldCipher(KEY, ['s2']).keyCheck()!.key, new FieldCipher(KEY, ['s1']).keyCheck()!.key, 'the key check ignores salts');
		assert.equal(new FieldCipher(undefined, ['s1']).keyCheck(), undefined);
	});

	test('reports a wrong key, a tampered value and a missing key by table and column', () => {
		const sealed = new FieldCipher(KEY, ['s1']).seal('secret', AT);
		assert.throws(
			() => new FieldCipher(OTHER_KEY, ['s1']).open(sealed, AT),
			/Cannot decrypt feedback\.message id 7: wrong key, tampered value, or a value moved from another row/,
		);
		const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
		assert.throws(() => new FieldCipher(KEY, ['s1']).open(tampered, AT), /wrong key, tampered value/);
		assert.throws(() => new FieldCipher(undefined, ['s1']).open(sealed, AT), /encrypted but ENCRYPTION_KEY is not set/);
		assert.throws(() => new FieldCipher(KEY, ['s1']).open('garbage', AT), /unknown storage format/);
	});

	test('rotates salts: the first salt writes, every listed salt reads, a removed salt is named', () => {
		const old = new FieldCipher(KEY, ['old']);
		const sealedOld = old.seal('before rotation', AT);
		const rotated = new FieldCipher(KEY, ['new', 'old']);
		assert.equal(rotated.open(sealedOld, AT), 'before rotation');
		assert.equal(rotated.isStale(sealedOld), true);
		const sealedNew = rotated.seal('after rotation', AT);
		assert.ok(sealedNew.startsWith(`hv2:${saltId('new')}.`));
		assert.equal(rotated.isStale(sealedNew), false);
		assert.throws(() => new FieldCipher(KEY, ['new']).open(sealedOld, AT), new RegExp(`salt ${saltId('old')} is not in ENCRYPTION_SALT_LIST`));
	});
});
