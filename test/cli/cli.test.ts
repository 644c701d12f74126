import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.ts';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../src/lib/core/config.ts';
import { GhostLetter, migrate, MoodCheckIn, openDatabase, UserProfile, type Database } from '../../src/lib/db/index.ts';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.ts';
import { dropDatabase, freePort, freshDatabaseUrl } from '../support/env.ts';
import { startFakeDiscord, type FakeDiscord } from '../support/fake-discord.ts';
import { FAKE_SECRET, startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { waitFor } from '../support/wait.ts';

/** The `haven` program as an operator runs it: a child process on a real PostgreSQL, exit codes, stdout and stderr. */

const CLI = new URL('../../bin/haven.js', import.meta.url).pathname;
const KEY = 'c3'.repeat(32);
const PERSON = '345678901234567890';

interface Run {
	code: number;
	stdout: string;
	stderr: string;
}

function haven(args: string[], env: Record<string, string | undefined>, cwd = tmpdir()): Promise<Run> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[CLI, ...args],
			// A clean environment: only what the test gives (cwd has no .env).
			{ env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'error', ...env } as NodeJS.ProcessEnv, cwd, timeout: 60_000 },
			(error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
		);
	});
}

const json = (run: Run) => {
	try {
		return JSON.parse(run.stdout);
	} catch {
		throw new Error(`stdout is not JSON (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`);
	}
};

const databases: string[] = [];
function database(): string {
	const url = freshDatabaseUrl();
	if (!url) throw new Error('these tests need DATABASE_URL (a PostgreSQL server they can create databases on)');
	databases.push(url);
	return url;
}

async function open(url: string, key = KEY): Promise<Database> {
	return openDatabase(parseConfig({ DATABASE_URL: url, ENCRYPTION_KEY: key, LOG_LEVEL: 'error' }), {
		info: () => undefined,
		warn: () => undefined,
	});
}

let discord: FakeDiscord;
let ai: FakeOpenAi;
let status: CaptureServer;
let healthyUrl: string;

before(async () => {
	[discord, ai, status] = await Promise.all([startFakeDiscord(), startFakeOpenAi(), startCaptureServer()]);
	healthyUrl = database();
	const db = await open(healthyUrl);
	await migrate(db.orm);
	const em = db.orm.em.fork();
	em.create(UserProfile, { id: PERSON, country: 'GB' });
	em.create(MoodCheckIn, { userId: PERSON, mood: 'calm', intensity: 3, note: 'a quiet day by the sea' });
	em.create(GhostLetter, { userId: PERSON, content: 'dear past me' });
	em.create(MoodCheckIn, { userId: '456789012345678901', mood: 'low', intensity: 2, note: 'someone else' });
	await em.flush();
	await db.close();
});

after(async () => {
	await Promise.all([discord?.close(), ai?.close(), status?.close()]);
	for (const url of databases) await dropDatabase(url);
});

const healthyEnv = () => ({
	DATABASE_URL: healthyUrl,
	ENCRYPTION_KEY: KEY,
	TOKEN: discord.token,
	CLIENT_ID: discord.applicationId,
	DISCORD_API_URL: discord.restUrl,
	OPENAI_API_KEY: 'sk-test',
	OPENAI_BASE_URL: ai.url,
	SERVICE_STATUS_API_KEY: 'status-key',
	STATUS_API_URL: `${status.url}/api/status`,
	API_TOKEN: 'a'.repeat(40),
});

describe('the program', () => {
	test('--version prints the build stamp and exits 0', async () => {
		const run = await haven(['--version'], { HAVEN_VERSION: 'v9.8.7-test' });
		assert.equal(run.code, 0);
		assert.equal(run.stdout, 'v9.8.7-test\n');
	});

	test('usage errors exit 2, with one clear line', async () => {
		const unknown = await haven(['frobnicate'], {});
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /unknown command 'frobnicate'/);
		const badArgument = await haven(['user', 'export', 'not-an-id'], {});
		assert.equal(badArgument.code, 2);
		assert.match(badArgument.stderr, /must be a Discord user ID/);
	});

	test('an invalid configuration exits 3 and an unreachable database 4, as JSON too with --json', async () => {
		const config = await haven(['purge', '--json'], { DATABASE_URL: 'mysql://nope' });
		assert.equal(config.code, 3);
		assert.match(config.stderr, /DATABASE_URL must be a postgres/);
		assert.equal(json(config).exitCode, 3);

		const port = await freePort();
		const down = await haven(['migrate', '--json'], { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/haven` });
		assert.equal(down.code, 4);
		assert.match(down.stderr, /cannot reach the database \(DATABASE_URL\): .*ECONNREFUSED/);
		assert.deepEqual(json(down), { error: down.stderr.replace(/^haven: /, '').trim(), exitCode: 4 });
	});

	test('every command has examples in its --help', async () => {
		// In process, over every command and subcommand the program has (a new one is covered without editing this).
		const program = await buildProgram();
		const all: Command[] = [];
		const walk = (command: Command) => {
			all.push(command);
			for (const child of command.commands) walk(child);
		};
		walk(program);
		assert.ok(all.length > 15, 'the subcommands are registered');
		for (const command of all) {
			let help = '';
			command.configureOutput({ writeOut: (text) => (help += text) });
			command.outputHelp();
			const path: string[] = [];
			for (let c: Command | null = command; c; c = c.parent) path.unshift(c.name());
			assert.match(help, /\nExamples:\n {2}.*haven /, `${path.join(' ')} --help`);
		}
	});
});

describe('migrate and purge', () => {
	test('purge on an unmigrated database says to run haven migrate (exit 6), then migrate --json applies with progress on stderr', async () => {
		const env = { DATABASE_URL: database() };
		const purge = await haven(['purge'], env);
		assert.equal(purge.code, 6);
		assert.match(purge.stderr, /not up to date \(\d+ migration\(s\) pending\): run `haven migrate` first/);
		assert.doesNotMatch(purge.stderr, /relation|does not exist|select/i);

		const status = json(await haven(['migrate', '--status', '--json'], env));
		assert.deepEqual(status.applied, []);
		assert.ok(status.pending.length >= 3);

		const migrate = await haven(['migrate', '--json'], env);
		assert.equal(migrate.code, 0);
		assert.deepEqual(json(migrate), { applied: status.pending });
		assert.match(migrate.stderr, new RegExp(`\\[1/${status.pending.length}\\] applying ${status.pending[0]}`));

		const again = json(await haven(['migrate', '--json'], env));
		assert.deepEqual(again, { applied: [] });

		const purged = await haven(['purge', '--json'], env);
		assert.equal(purged.code, 0);
		const report = json(purged);
		assert.equal(report.total, 0);
		assert.ok(report.items.length > 0);
		// Progress, one line per rule, on stderr only.
		assert.match(purged.stderr, /^memory_turns: 0 changed$/m);
	});
});

describe('haven doctor', () => {
	test('a healthy setup: every check ok, exit 0, one line each', async () => {
		discord.clearRequests();
		ai.reset();
		const run = await haven(['doctor', '--json', '--production'], healthyEnv());
		const report = json(run);
		assert.equal(run.code, 0, run.stdout);
		assert.equal(report.exitCode, 0);
		assert.equal(report.production, true);
		assert.deepEqual(
			report.checks.map((check: { name: string; verdict: string }) => `${check.name} ${check.verdict}`),
			['configuration ok', 'database ok', 'migrations ok', 'encryption ok', 'discord ok', 'ai ok', 'status ok'],
		);
		const detail = (name: string) => report.checks.find((check: { name: string }) => check.name === name).detail as string;
		assert.match(detail('encryption'), /decrypts with the current key/);
		assert.match(detail('discord'), /logged in as/);
		// One cheap AI call; the status endpoint was only read, never sent a heartbeat.
		assert.equal(ai.requests.length, 1);
		assert.equal(ai.requests[0]!.body.max_completion_tokens, 1);
		assert.ok(status.requests.every((request) => request.method === 'GET'));

		const text = await haven(['doctor'], healthyEnv());
		assert.equal(text.code, 0);
		const lines = text.stdout.trim().split('\n');
		assert.equal(lines.length, 8);
		assert.match(lines[0]!, /^ok {6}configuration/);
		assert.match(lines.at(-1)!, /^Ready: 7 ok, 0 warn, 0 fail, 0 skipped$/);
	});

	test('a broken setup: a rejected token, a failing AI, an unreachable status endpoint and the wrong key each fail; exit 5', async () => {
		ai.mode = 'fail';
		const port = await freePort();
		const run = await haven(['doctor', '--json'], {
			...healthyEnv(),
			TOKEN: 'not-the-token',
			ENCRYPTION_KEY: 'd5'.repeat(32),
			STATUS_API_URL: `http://127.0.0.1:${port}/api/status`,
		});
		ai.reset();
		const report = json(run);
		assert.equal(run.code, 5);
		const verdicts = Object.fromEntries(report.checks.map((check: { name: string; verdict: string }) => [check.name, check.verdict]));
		assert.deepEqual(verdicts, {
			configuration: 'ok',
			database: 'ok',
			migrations: 'ok',
			encryption: 'fail',
			discord: 'fail',
			ai: 'fail',
			status: 'fail',
		});
		const all = `${run.stdout}${run.stderr}`;
		assert.match(all, /Discord rejects TOKEN \(HTTP 401/);
		assert.match(all, /does not decrypt with ENCRYPTION_KEY and ENCRYPTION_SALT_LIST/);
		assert.match(all, /answered HTTP 500/);
		assert.match(all, /cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/status: ECONNREFUSED/);
		assert.ok(!all.includes(FAKE_SECRET), "the provider's error message is not repeated");
		assert.ok(!all.includes('not-the-token') && !all.includes('d5d5d5'), 'no secret is printed');
	});

	test('production without ENCRYPTION_KEY or DATABASE_URL fails the configuration (exit 3); unmigrated is exit 6', async () => {
		const production = await haven(['doctor'], { NODE_ENV: 'production', DATA_DIR: mkdtempSync(join(tmpdir(), 'haven-doctor-')) });
		assert.equal(production.code, 3);
		assert.match(production.stdout, /^fail {4}configuration +production needs: ENCRYPTION_KEY is not set.*DATABASE_URL is not set/m);

		const unmigrated = await haven(['doctor'], { DATABASE_URL: database() });
		assert.equal(unmigrated.code, 6);
		assert.match(unmigrated.stdout, /^fail {4}migrations +\d+ of \d+ pending .*run `haven migrate`/m);
		assert.match(unmigrated.stdout, /^Not ready: /m);
	});
});

describe('production guardrails', () => {
	test('serve refuses NODE_ENV=production without ENCRYPTION_KEY and DATABASE_URL, naming what to set (exit 3)', async () => {
		const run = await haven(['serve'], { NODE_ENV: 'production', PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'haven-prod-')) });
		assert.equal(run.code, 3);
		assert.match(run.stderr, /ENCRYPTION_KEY is not set: set it to 32 random bytes \(openssl rand -hex 32\)/);
		assert.match(run.stderr, /DATABASE_URL is not set: set it to your PostgreSQL/);
		assert.match(run.stderr, /set HAVEN_ALLOW_INSECURE=1/);
		assert.doesNotMatch(run.stderr, /HTTP API on port/);

		const keyOnly = await haven(['serve'], { NODE_ENV: 'production', PORT: '0', DATABASE_URL: healthyUrl });
		assert.equal(keyOnly.code, 3);
		assert.match(keyOnly.stderr, /ENCRYPTION_KEY is not set/);
		assert.doesNotMatch(keyOnly.stderr, /DATABASE_URL is not set/);
	});

	test('HAVEN_ALLOW_INSECURE=1 starts anyway, with a warning, and stops cleanly', async () => {
		const url = database();
		const child = spawn(process.execPath, [CLI, 'serve'], {
			env: {
				PATH: process.env.PATH,
				HOME: process.env.HOME,
				NODE_ENV: 'production',
				HAVEN_ALLOW_INSECURE: '1',
				DATABASE_URL: url,
				HOST: '127.0.0.1',
				PORT: '0',
				LOG_LEVEL: 'info',
			},
			cwd: tmpdir(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		const exited = once(child, 'exit');
		try {
			const port = await waitFor(() => /HTTP API on port (\d+)/.exec(output)?.[1], {
				timeoutMs: 30_000,
				everyMs: 50,
				what: 'haven serve to start',
			});
			assert.match(output, /warning: HAVEN_ALLOW_INSECURE is set: starting in production without ENCRYPTION_KEY/);
			assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
		} finally {
			child.kill('SIGTERM');
		}
		const [code] = await exited;
		assert.equal(code, 0);
	});
});

describe('haven user', () => {
	test('export writes the /privacy export JSON, decrypted, to stdout or a private file', async () => {
		const run = await haven(['user', 'export', PERSON], healthyEnv());
		assert.equal(run.code, 0, run.stderr);
		const data = json(run);
		assert.equal(data.format, 'haven-user-data');
		assert.equal(data.userId, PERSON);
		assert.equal(data.preferences.country, 'GB');
		assert.deepEqual(
			data.checkIns.map((row: { note: string }) => row.note),
			['a quiet day by the sea'],
		);
		assert.deepEqual(
			data.ghostLetters.map((row: { content: string }) => row.content),
			['dear past me'],
		);

		const out = join(mkdtempSync(join(tmpdir(), 'haven-export-')), 'request.json');
		const toFile = await haven(['user', 'export', PERSON, '--out', out], healthyEnv());
		assert.equal(toFile.code, 0);
		assert.equal(toFile.stdout, '');
		assert.match(toFile.stderr, /Wrote \d+ bytes to .*request\.json/);
		const written = JSON.parse(readFileSync(out, 'utf8'));
		assert.deepEqual({ ...written, generatedAt: undefined }, { ...data, generatedAt: undefined });
		assert.equal(statSync(out).mode & 0o777, 0o600);
	});

	test('delete needs --yes (exit 2, nothing deleted); with it, deletes what /privacy delete does and prints it', async () => {
		const refused = await haven(['user', 'delete', PERSON], healthyEnv());
		assert.equal(refused.code, 2);
		assert.match(refused.stderr, /add --yes to confirm/);
		assert.equal(json(await haven(['user', 'export', PERSON], healthyEnv())).checkIns.length, 1);

		const run = await haven(['user', 'delete', PERSON, '--yes', '--json'], healthyEnv());
		assert.equal(run.code, 0, run.stderr);
		const report = json(run);
		assert.equal(report.userId, PERSON);
		assert.deepEqual(report.remaining, {});
		const rows = (table: string) =>
			report.steps
				.filter((step: { table: string }) => step.table === table)
				.reduce((sum: number, step: { rows: number }) => sum + step.rows, 0);
		assert.equal(rows('mood_check_ins'), 1);
		assert.equal(rows('ghost_letters'), 1);
		assert.equal(rows('users'), 1);

		const after = json(await haven(['user', 'export', PERSON], healthyEnv()));
		assert.equal(after.preferences, null);
		assert.equal(after.checkIns.length, 0);
		// The other person's check-in is untouched.
		assert.equal(json(await haven(['user', 'export', '456789012345678901'], healthyEnv())).checkIns.length, 1);

		const again = await haven(['user', 'delete', PERSON, '--yes'], healthyEnv());
		assert.equal(again.code, 0);
		assert.match(again.stdout, /Nothing was stored about 345678901234567890: nothing deleted/);
	});
});

describe('haven rotate-salt', () => {
	test('--json reports each value that does not decrypt once, and exits 5', async () => {
		const url = database();
		const db = await open(url);
		await migrate(db.orm);
		const em = db.orm.em.fork();
		em.create(MoodCheckIn, { userId: PERSON, mood: 'calm', intensity: 3, note: 'fine' });
		const broken = em.create(MoodCheckIn, { userId: PERSON, mood: 'calm', intensity: 3, note: 'will be damaged' });
		await em.flush();
		// An older-format value that no key opens: stale (so the walk tries it) and unreadable (so verification fails too).
		await db.orm.em
			.getConnection()
			.execute(`update mood_check_ins set note = 'hv1:AAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' where id = ?`, [broken.id]);
		await db.close();

		const run = await haven(['rotate-salt', '--json'], { DATABASE_URL: url, ENCRYPTION_KEY: KEY });
		assert.equal(run.code, 5, run.stderr);
		const report = json(run);
		assert.deepEqual(
			report.failures.map((failure: { table: string; column: string; id: number }) => `${failure.table}.${failure.column} ${failure.id}`),
			[`mood_check_ins.note ${broken.id}`],
		);
		assert.match(run.stderr, /haven: 1 value\(s\) cannot be decrypted/);
		// Progress went to stderr, not into the JSON.
		assert.match(run.stderr, /mood_check_ins\.note: \d+\/\d+ scanned/);

		const text = await haven(['rotate-salt'], { DATABASE_URL: url, ENCRYPTION_KEY: KEY });
		assert.equal(text.code, 5);
		assert.match(text.stderr, /haven: 1 value\(s\) cannot be decrypted/);
	});
});
