import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { AI_IDENTIFIER_STATE_KEY, aiSafetyIdentifier, loadAiIdentifierKey } from '../../src/lib/companion/companion.ts';
import { DEFAULT_SALT, parseConfig } from '../../src/lib/core/config.ts';
import { migrate, openDatabase } from '../../src/lib/db/index.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startTestHaven } from '../support/haven.ts';

/**
 * The identifier sent with AI requests as `user` cannot be linked to a Discord id by anyone who lacks this
 * installation's secret (the old one was a plain SHA-256 of a public default salt and the id), and it stays the same
 * across restarts, with or without ENCRYPTION_KEY.
 */

const USER = '123456789012345678';
const publicHash = (salt: string) => createHash('sha256').update(`haven-user:${salt}:${USER}`).digest('hex').slice(0, 32);
const quiet = { info: () => undefined, warn: () => undefined };
const databases: (string | undefined)[] = [];

after(async () => {
	for (const url of databases) await dropDatabase(url);
});

async function keyAfterStart(env: Record<string, string | undefined>) {
	const config = parseConfig(env);
	const db = await openDatabase(config, quiet);
	try {
		await migrate(db.orm);
		const key = await loadAiIdentifierKey(config, db.orm);
		const rows = await db.orm.em
			.getConnection()
			.execute<{ value: unknown }[]>('select value from app_state where key = ?', [AI_IDENTIFIER_STATE_KEY]);
		return { key, stored: rows[0]?.value };
	} finally {
		await db.close();
	}
}

describe('AI safety identifiers', () => {
	test('without ENCRYPTION_KEY: a random installation secret kept in app_state, the same after a restart', async () => {
		const env = testEnv();
		databases.push(env.DATABASE_URL);
		const first = await keyAfterStart(env);
		const second = await keyAfterStart(env);
		assert.equal(first.key.length, 32);
		assert.deepEqual(second.key, first.key);
		assert.ok(first.stored, 'the secret is stored in app_state');
		const id = aiSafetyIdentifier(USER, first.key);
		assert.notEqual(id, publicHash(DEFAULT_SALT), 'not the hash anyone can compute from the public default salt');
		assert.notEqual(id, publicHash('haven'));
		assert.ok(!id.includes(USER));

		const other = testEnv();
		databases.push(other.DATABASE_URL);
		assert.notEqual(aiSafetyIdentifier(USER, (await keyAfterStart(other)).key), id, 'another installation cannot link its users to ours');
	});

	test('with ENCRYPTION_KEY: derived from it under its own label, nothing stored, the same after a restart', async () => {
		const rawKey = '0123456789abcdef'.repeat(4);
		const env = testEnv({ ENCRYPTION_KEY: rawKey });
		databases.push(env.DATABASE_URL);
		const first = await keyAfterStart(env);
		const second = await keyAfterStart(env);
		assert.deepEqual(second.key, first.key);
		assert.equal(first.stored, undefined, 'nothing to store: the key is derived');
		assert.notDeepEqual(first.key, Buffer.from(rawKey, 'hex'), 'never the field-encryption key itself');
		const rotated = await keyAfterStart({ ...env, ENCRYPTION_SALT_LIST: `new-salt,${DEFAULT_SALT}` });
		assert.deepEqual(rotated.key, first.key, 'rotating the salt does not change the identifiers');
		assert.notEqual(aiSafetyIdentifier(USER, first.key), publicHash(DEFAULT_SALT));
	});

	test('a running Haven uses the stored key, and a restarted one the same', async () => {
		const env = testEnv();
		databases.push(env.DATABASE_URL);
		const ids: string[] = [];
		for (let start = 0; start < 2; start++) {
			const haven = await startTestHaven(env);
			try {
				ids.push(aiSafetyIdentifier(USER));
				assert.deepEqual(container.aiIdentifierKey, (await keyAfterStart(env)).key);
			} finally {
				await haven.stop();
			}
		}
		assert.equal(ids[0], ids[1]);
		assert.notEqual(ids[0], publicHash(DEFAULT_SALT));
	});
});
