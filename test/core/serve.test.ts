import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../src/lib/core/config.ts';
import { Feedback, migrate, openDatabase } from '../../src/lib/db/index.ts';
import { waitFor } from '../support/wait.ts';

/** `haven serve` as a user runs it: a child process, the embedded PostgreSQL, signals. */

const CLI = new URL('../../bin/haven.js', import.meta.url).pathname;
const children = new Set<ChildProcess>();

interface Running {
	child: ChildProcess;
	url: string;
	output: () => string;
}

function haven(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
	const child = spawn(process.execPath, [CLI, ...args], {
		env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	children.add(child);
	let text = '';
	child.stdout!.on('data', (chunk) => (text += chunk));
	child.stderr!.on('data', (chunk) => (text += chunk));
	const exited = once(child, 'exit').then(([code]) => {
		children.delete(child);
		return code as number | null;
	});
	return { child, output: () => text, exited };
}

async function serve(env: Record<string, string>): Promise<Running & { exited: Promise<number | null> }> {
	const started = haven(['serve'], env);
	const port = await waitFor(
		() => {
			if (started.child.exitCode !== null) throw new Error('exited');
			return /HTTP API on port (\d+)/.exec(started.output())?.[1];
		},
		{ timeoutMs: 30_000, everyMs: 50, what: 'haven serve to start' },
	).catch(() => {
		throw new Error(`haven serve did not start:\n${started.output()}`);
	});
	return { ...started, url: `http://127.0.0.1:${port}` };
}

const embedded = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'haven-serve-')) });

after(() => {
	for (const child of children) child.kill('SIGKILL');
});

describe('haven serve', () => {
	test('starts API-only on the embedded database, answers /healthz by IP, and stops cleanly on SIGTERM', async () => {
		const running = await serve(embedded());
		const response = await fetch(`${running.url}/healthz`);
		assert.equal(response.status, 200);
		assert.deepEqual(await response.json(), { status: 'ok' });
		assert.match(running.output(), /DATABASE_URL is not set: using the embedded PostgreSQL/);
		assert.match(running.output(), /running the HTTP API only/);

		const stoppedAt = Date.now();
		running.child.kill('SIGTERM');
		assert.equal(await running.exited, 0);
		assert.ok(Date.now() - stoppedAt < 5000, 'exits within a few seconds');
		assert.match(running.output(), /Haven stopped/);
		await assert.rejects(fetch(`${running.url}/healthz`), 'no longer accepting');
	});

	test('a SIGTERM during start-up is not lost: Haven stops cleanly once it is up, and starts again on the same data', async () => {
		const env = embedded();
		const starting = haven(['serve'], env);
		await waitFor(() => /Applied migrations/.test(starting.output()), { timeoutMs: 30_000, what: 'the migrations' });
		starting.child.kill('SIGTERM');
		assert.equal(await starting.exited, 0);
		assert.match(starting.output(), /Haven stopped/);
		const again = await serve(env);
		assert.match(again.output(), /Database schema is up to date/);
		again.child.kill('SIGTERM');
		assert.equal(await again.exited, 0);
	});

	test('does not wait for idle keep-alive connections on SIGINT', async () => {
		const running = await serve(embedded());
		// Hold a keep-alive connection open: shutdown must not wait for it.
		await fetch(`${running.url}/healthz`, { keepalive: true });
		const stoppedAt = Date.now();
		running.child.kill('SIGINT');
		assert.equal(await running.exited, 0);
		assert.ok(Date.now() - stoppedAt < 5000);
	});

	test('keeps data across restarts and recovers an embedded server orphaned by kill -9', async () => {
		const env = embedded();
		const first = await serve(env);
		first.child.kill('SIGKILL');
		await first.exited;

		const second = await serve(env);
		assert.match(second.output(), /left running by a process that did not shut down; restarting it/);
		assert.equal((await fetch(`${second.url}/healthz`)).status, 200);
		second.child.kill('SIGTERM');
		assert.equal(await second.exited, 0);

		const config = parseConfig({ ...env, LOG_LEVEL: 'error' });
		const quiet = { info: () => undefined, warn: () => undefined };
		const db = await openDatabase(config, quiet);
		await migrate(db.orm);
		const em = db.orm.em.fork();
		em.create(Feedback, { userId: '123456789012345678', message: 'still here after a restart', source: 'api' });
		await em.flush();
		await db.close();

		const third = await serve(env);
		third.child.kill('SIGTERM');
		assert.equal(await third.exited, 0);
		const reopened = await openDatabase(config, quiet);
		const rows = await reopened.orm.em.fork().find(Feedback, {});
		await reopened.close();
		assert.deepEqual(
			rows.map((row) => row.message),
			['still here after a restart'],
		);
	});

	test('starts from a checkout inside a private folder (e.g. /root) and keeps its data there across restarts', async () => {
		const privateFolder = mkdtempSync(join(tmpdir(), 'haven-private-')); // mode 0700, like /root
		const env = { DATA_DIR: join(privateFolder, 'data') };
		const first = await serve(env);
		assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
		first.child.kill('SIGTERM');
		assert.equal(await first.exited, 0);
		const second = await serve(env);
		assert.match(second.output(), /Database schema is up to date/, 'the same database, already migrated');
		second.child.kill('SIGTERM');
		assert.equal(await second.exited, 0);
		const moved = /the embedded database lives in (\S+)/.exec(second.output())?.[1];
		if (moved) rmSync(moved, { recursive: true, force: true });
	});

	test('refuses a second Haven on the same DATA_DIR while the first runs', async () => {
		const env = embedded();
		const first = await serve(env);
		const second = haven(['serve'], env);
		assert.equal(await second.exited, 1);
		assert.match(second.output(), /Another Haven \(pid \d+\) is using .*; stop it or set a different DATA_DIR/);
		assert.equal((await fetch(`${first.url}/healthz`)).status, 200, 'the first one is untouched');
		first.child.kill('SIGTERM');
		assert.equal(await first.exited, 0);
	});

	test('with SERVICE_MIGRATE_ONLY runs the migrations and exits 0 without serving', async () => {
		const run = haven(['serve'], { ...embedded(), SERVICE_MIGRATE_ONLY: '1' });
		assert.equal(await run.exited, 0);
		assert.match(run.output(), /Applied migrations: Migration20261121000000Initial/);
		assert.match(run.output(), /SERVICE_MIGRATE_ONLY is set: migrations done, exiting/);
		assert.doesNotMatch(run.output(), /HTTP API on port/);
	});

	test('stops before starting anything on invalid configuration, listing every problem', async () => {
		const run = haven(['serve'], { ...embedded(), ENCRYPTION_KEY: 'way-too-short-secret', PORT: 'ninety', API_TOKEN: 'tok' });
		assert.equal(await run.exited, 3);
		assert.equal(
			run.output().trim(),
			[
				'Invalid configuration:',
				'  - ENCRYPTION_KEY must be 32 bytes (64 hex characters, base64 of 32 bytes, or a 32-byte string): got 20',
				'  - PORT must be a whole number from 0 to 65535',
			].join('\n'),
		);
	});

	test('prints help for every command and one clear line for a usage error', async () => {
		for (const command of [[], ['serve'], ['migrate'], ['rotate-salt']]) {
			const run = haven([...command, '--help'], embedded());
			assert.equal(await run.exited, 0);
			assert.match(run.output(), /^Usage: haven/);
		}
		const wrong = haven(['rotate-salt', '--batch-size', 'lots'], embedded());
		assert.equal(await wrong.exited, 2);
		assert.match(wrong.output(), /option '--batch-size <n>' argument 'lots' is invalid\. must be a whole number from 1 to 100000/);
	});
});
