import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { LogLevel } from '@sapphire/framework';
import { ConfigError, parseConfig } from '../../src/lib/core/config.ts';
import { jsonLogLine } from '../../src/lib/core/logger.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { waitFor } from '../support/wait.ts';

/** LOG_FORMAT=json and the access log, as an operator sees them: the output of a real `haven serve`. */

const CLI = new URL('../../bin/haven.js', import.meta.url).pathname;
const API_TOKEN = 'logging-test-token-0123456789abcdef0123456789';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const children = new Set<ChildProcess>();
const databases: (string | undefined)[] = [];

after(async () => {
	for (const child of children) child.kill('SIGKILL');
	for (const url of databases) await dropDatabase(url).catch(() => undefined);
});

function haven(args: string[], env: Record<string, string | undefined>) {
	const child = spawn(process.execPath, [CLI, ...args], {
		env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	children.add(child);
	const out = { stdout: '', stderr: '' };
	child.stdout!.on('data', (chunk) => (out.stdout += chunk));
	child.stderr!.on('data', (chunk) => (out.stderr += chunk));
	const exited = once(child, 'exit').then(([code]) => {
		children.delete(child);
		return code as number | null;
	});
	return { child, out, exited };
}

interface Line {
	time: string;
	level: string;
	message: string;
	errorId?: string;
}

/** Every line of both streams, each parsed as JSON (a line that is not JSON fails the test, quoting it). */
function parseLines(text: string): Line[] {
	return text
		.split('\n')
		.filter((line) => line.length > 0)
		.map((line) => {
			try {
				return JSON.parse(line) as Line;
			} catch {
				assert.fail(`not a JSON line: ${line}`);
			}
		});
}

describe('LOG_FORMAT=json', () => {
	test('haven serve writes one JSON object per line, and one access line per request without query or body', async () => {
		const env = testEnv({ LOG_FORMAT: 'json', LOG_LEVEL: 'debug', API_TOKEN });
		databases.push(env.DATABASE_URL);
		const run = haven(['serve'], env);
		const port = await waitFor(
			() => {
				if (run.child.exitCode !== null) throw new Error('exited');
				return /HTTP API on port (\d+)/.exec(run.out.stdout)?.[1];
			},
			{ timeoutMs: 60_000, everyMs: 50, what: 'haven serve to start' },
		).catch(() => assert.fail(`haven serve did not start:\n${run.out.stdout}${run.out.stderr}`));
		const base = `http://127.0.0.1:${port}`;

		const secret = 'q7secretquerytoken';
		const words = 'a private feedback sentence that must never reach the log';
		assert.equal((await fetch(`${base}/v1/stats?token=${secret}&page=2`)).status, 200);
		const feedback = await fetch(`${base}/v1/feedback?ref=${secret}`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${API_TOKEN}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ userId: '123456789012345678', message: words }),
		});
		assert.equal(feedback.status, 202);
		assert.equal((await fetch(`${base}/no/such/${secret}?x=${secret}`)).status, 404);

		const access = (pattern: RegExp) =>
			waitFor(() => parseLines(run.out.stdout).find((line) => pattern.test(line.message)), { timeoutMs: 5_000, what: `${pattern}` });
		const stats = await access(/^HTTP GET \/v1\/stats /);
		const posted = await access(/^HTTP POST \/v1\/feedback /);
		const unknown = await access(/^HTTP GET unmatched /);
		assert.equal(stats.level, 'debug');
		assert.match(stats.message, /^HTTP GET \/v1\/stats 200 \d+\.\d ms$/);
		assert.match(posted.message, /^HTTP POST \/v1\/feedback 202 \d+\.\d ms$/);
		assert.match(unknown.message, /^HTTP GET unmatched 404 \d+\.\d ms$/);

		run.child.kill('SIGTERM');
		assert.equal(await run.exited, 0);
		const lines = [...parseLines(run.out.stdout), ...parseLines(run.out.stderr)];
		assert.ok(lines.some((line) => line.message === 'Haven stopped'));
		for (const line of lines) {
			assert.match(line.time, ISO_UTC, 'time is ISO 8601 in UTC');
			assert.ok(['debug', 'info', 'warn', 'error'].includes(line.level), `level ${line.level}`);
			assert.equal(typeof line.message, 'string');
		}
		assert.ok(
			parseLines(run.out.stderr).every((line) => line.level === 'warn' || line.level === 'error'),
			'warnings and errors on stderr',
		);
		const everything = run.out.stdout + run.out.stderr;
		assert.ok(!everything.includes(secret), 'no query string or path value in the log');
		assert.ok(!everything.includes('private feedback'), 'no request body in the log');
		assert.ok(!everything.includes('page=2'));
	});

	test('without LOG_FORMAT the lines are the pretty ones', async () => {
		const env = testEnv({ LOG_LEVEL: 'info', SERVICE_MIGRATE_ONLY: '1' });
		databases.push(env.DATABASE_URL);
		const pretty = haven(['serve'], env);
		assert.equal(await pretty.exited, 0);
		assert.match(pretty.out.stdout, /INFO {2}- .*SERVICE_MIGRATE_ONLY is set: migrations done, exiting/);
		assert.throws(() => JSON.parse(pretty.out.stdout.split('\n')[0]!));
	});

	test('error ids are their own field; an Error is written by class and code, never its message', () => {
		const at = new Date('2026-03-01T12:00:00+02:00');
		assert.deepEqual(jsonLogLine(LogLevel.Error, ['Request failed (error id 0f8b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d): TypeError'], at), {
			time: '2026-03-01T10:00:00.000Z',
			level: 'error',
			message: 'Request failed (error id 0f8b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d): TypeError',
			errorId: '0f8b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d',
		});
		assert.equal(jsonLogLine(LogLevel.Error, ['/checkin failed [error 1a2b3c4d]: Error'], at).errorId, '1a2b3c4d');
		assert.equal(jsonLogLine(LogLevel.Info, ['Database schema is up to date'], at).errorId, undefined);

		const error = Object.assign(new Error('insert into feedback values ($1) -- I feel awful today'), { code: '23505' });
		const line = jsonLogLine(LogLevel.Warn, ['Listener failed:', error], at);
		assert.match(line.message, /^Listener failed: Error \(code 23505\) at /);
		assert.doesNotMatch(line.message, /awful/);
		assert.equal(jsonLogLine(LogLevel.Info, ['\u001b[36mcoloured\u001b[39m'], at).message, 'coloured');
	});

	test('LOG_FORMAT accepts pretty or json and defaults to pretty', () => {
		assert.equal(parseConfig({}).logFormat, 'pretty');
		assert.equal(parseConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
		assert.throws(
			() => parseConfig({ LOG_FORMAT: 'xml' }),
			(error: unknown) => error instanceof ConfigError && error.problems.includes('LOG_FORMAT must be pretty or json'),
		);
	});
});
