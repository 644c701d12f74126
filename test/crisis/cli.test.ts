import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { screenLine } from '../../src/cli/commands/screen.ts';

const program = `
import { Command } from 'commander';
import register from ${JSON.stringify(new URL('../../src/cli/commands/screen.ts', import.meta.url).href)};
const program = new Command('haven').exitOverride();
register(program);
await program.parseAsync(process.argv.slice(1), { from: 'user' });
`;

function run(args: string[], input = ''): { stdout: string; stderr: string; status: number | null } {
	const result = spawnSync(process.execPath, ['--input-type=module', '-e', program, '--', 'screen', ...args], {
		input,
		encoding: 'utf8',
		timeout: 30_000,
	});
	return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

describe('haven screen', () => {
	test('screens its arguments without echoing them', () => {
		const { stdout, status } = run(['i', 'want', 'to', 'kill', 'myself']);
		assert.equal(status, 0);
		const lines = stdout.trim().split('\n');
		assert.equal(lines.length, 1);
		const out = JSON.parse(lines[0]!);
		assert.equal(out.level, 'high');
		assert.deepEqual(out.categories, ['suicidal_ideation']);
		assert.equal(out.thirdParty, false);
		assert.ok(Array.isArray(out.evidence));
		assert.equal(out.text, undefined);
		assert.ok(!stdout.includes('kill myself'));
	});

	test('screens each line of standard input, one JSON object per line', () => {
		const { stdout, status } = run([], 'i want to die tonight\nhello there\n\nmy friend wants to kill herself\n');
		assert.equal(status, 0);
		const out = stdout
			.trim()
			.split('\n')
			.map((l) => JSON.parse(l));
		assert.deepEqual(
			out.map((o) => o.level),
			['imminent', 'none', 'none', 'concern'],
		);
		assert.equal(out[3].thirdParty, true);
	});

	test('adds the reply for a country on request', () => {
		const line = JSON.parse(screenLine('i want to die', { reply: true, country: 'GB' }));
		assert.match(line.reply, /116 123/);
		const { stderr } = run(['--reply', '--country', 'ZZ', 'hello']);
		assert.match(stderr, /international directory/);
	});
});
