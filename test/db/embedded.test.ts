import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { binariesCopy, requireSafeDir, startEmbeddedPostgres } from '../../src/lib/db/embedded.ts';

/**
 * The embedded PostgreSQL never runs programs from, or listens in, a folder another local user could have created
 * first or can change. Root-only cases (another owner) are skipped when the tests do not run as root.
 */

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const quiet = () => undefined;
const made: string[] = [];
const temp = (prefix: string) => {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.push(dir);
	return dir;
};

after(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for the PostgreSQL folder: bin/pg_ctl is a script that leaves a mark if anything ever runs it. */
function fakeNative(): { native: string; mark: string } {
	const native = temp('haven-native-');
	const mark = join(native, 'ran');
	mkdirSync(join(native, 'bin'));
	for (const program of ['pg_ctl', 'initdb', 'postgres']) {
		writeFileSync(join(native, 'bin', program), `#!/bin/sh\ntouch ${mark}\n`, { mode: 0o755 });
	}
	return { native, mark };
}

const copyName = (native: string) => `postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`;

describe('folders the embedded PostgreSQL uses', () => {
	test('a folder writable by others, or a symlink, is refused with a message naming it', () => {
		const open = temp('haven-open-');
		chmodSync(open, 0o777);
		assert.throws(
			() => requireSafeDir(open, process.getuid?.()),
			/Refusing to use .*haven-open-.*: its mode 777 lets group or others write to it/,
		);
		const link = join(temp('haven-link-'), 'run');
		symlinkSync(open, link);
		assert.throws(() => requireSafeDir(link, process.getuid?.()), /it is a symbolic link/);
	});

	test('a pre-existing DATA_DIR/run of another user (or that others can write to) stops the start before PostgreSQL runs', async () => {
		const dataDir = temp('haven-emb-');
		chmodSync(dataDir, 0o711);
		const run = join(dataDir, 'run');
		mkdirSync(run, { mode: 0o700 });
		if (isRoot) chownSync(run, NOBODY, NOBODY);
		else chmodSync(run, 0o777);
		const problem = isRoot ? `it belongs to user ${NOBODY}, not \\d+` : 'its mode 777 lets group or others write to it';
		await assert.rejects(
			startEmbeddedPostgres(dataDir, quiet),
			new RegExp(`^Error: Refusing to use ${run} for the embedded PostgreSQL: ${problem}\\.`),
		);
		assert.equal(existsSync(join(dataDir, 'postgres', 'PG_VERSION')), false, 'initdb never ran');
	});

	test('a deep DATA_DIR listens in a fresh private temp folder, not in one planted at the old predictable path', async () => {
		const shallow = temp('haven-emb-');
		chmodSync(shallow, 0o711);
		let dataDir = shallow;
		while (join(dataDir, 'run', '.s.PGSQL.5432.lock').length <= 100) dataDir = join(dataDir, 'deeper-folder');
		mkdirSync(dataDir, { recursive: true });
		for (let dir = dataDir; dir !== shallow; dir = join(dir, '..')) chmodSync(dir, 0o711);
		// What the old code would have used; someone else gets there first.
		const planted = join(tmpdir(), `haven-pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
		mkdirSync(planted, { mode: 0o777 });
		chmodSync(planted, 0o777);
		made.push(planted);

		const server = await startEmbeddedPostgres(dataDir, quiet);
		const socketDir = server.connection.host;
		try {
			assert.notEqual(socketDir, planted);
			assert.ok(socketDir.startsWith(join(tmpdir(), 'haven-pg-')), socketDir);
			const { mode, uid } = statSync(socketDir);
			assert.equal(mode & 0o777, 0o700);
			assert.equal(uid, isRoot ? statSync(join(dataDir, 'postgres')).uid : process.getuid?.());
			assert.ok(existsSync(join(socketDir, '.s.PGSQL.5432')), 'the server listens there');
		} finally {
			await server.stop();
		}
		assert.equal(existsSync(socketDir), false, 'the per-start socket folder is removed at stop');
	});
});

describe('the copy of the binaries made as root', { skip: !isRoot && 'needs root' }, () => {
	test('is made once under a root-only folder, owned by root and writable by nobody else', () => {
		const { native, mark } = fakeNative();
		const base = join(temp('haven-base-'), 'haven');
		const copy = binariesCopy(native, base);
		assert.equal(copy, join(base, copyName(native)));
		for (const path of [base, copy, join(copy, 'bin', 'pg_ctl')]) {
			const { uid, mode } = statSync(path);
			assert.equal(uid, 0, path);
			assert.equal(mode & 0o022, 0, path);
		}
		assert.equal(binariesCopy(native, base), copy, 'reused');
		assert.equal(existsSync(mark), false);
	});

	test('a copy folder pre-created by another user is refused and nothing in it runs', () => {
		const { native, mark } = fakeNative();
		const base = temp('haven-base-');
		chmodSync(base, 0o755);
		const planted = join(base, copyName(native));
		mkdirSync(join(planted, 'bin'), { recursive: true });
		writeFileSync(join(planted, 'bin', 'pg_ctl'), `#!/bin/sh\ntouch ${mark}\n`, { mode: 0o755 });
		chownSync(planted, NOBODY, NOBODY);
		assert.throws(
			() => binariesCopy(native, base),
			new RegExp(`Refusing to use ${planted} for the embedded PostgreSQL: it belongs to user ${NOBODY}, not 0`),
		);
		assert.equal(existsSync(mark), false);
	});

	test('a copy whose programs someone else owns, or a base other users can write to, is refused', () => {
		const { native } = fakeNative();
		const base = temp('haven-base-');
		chmodSync(base, 0o755);
		const copy = binariesCopy(native, base);
		chownSync(join(copy, 'bin', 'pg_ctl'), NOBODY, NOBODY);
		assert.throws(() => binariesCopy(native, base), /Refusing to run .*bin\/pg_ctl for the embedded PostgreSQL: it belongs to user 65534/);

		const shared = temp('haven-base-');
		chmodSync(shared, 0o777);
		assert.throws(() => binariesCopy(native, shared), /its mode 777 lets group or others write to it/);
		const foreign = temp('haven-base-');
		chownSync(foreign, NOBODY, NOBODY);
		assert.throws(() => binariesCopy(native, join(foreign, 'haven')), /can be changed by other users/);
	});
});
