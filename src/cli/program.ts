import { readdirSync } from 'node:fs';
import { Command } from 'commander';
import { readEnvironment } from '../lib/core/config.ts';
import { resolveVersion } from '../lib/core/version.ts';
import { ExitCode } from './exit-codes.ts';
import { examples } from './output.ts';

/** The `haven` program. Each file in ./commands registers one subcommand: adding a command is adding a file. */
export async function buildProgram(): Promise<Command> {
	const program = new Command('haven')
		.description('Haven: a self-hosted wellbeing support bot for Discord with a small HTTP API')
		.showHelpAfterError('(run with --help for usage)')
		.exitOverride();

	// Resolved only when asked for (it may run `git describe`).
	program
		.option('-V, --version', 'print the version (HAVEN_VERSION, else git describe, else the package version) and exit')
		.on('option:version', () => {
			process.stdout.write(`${resolveVersion(readEnvironment().HAVEN_VERSION?.trim() || undefined)}\n`);
			process.exit(ExitCode.ok);
		});

	examples(program, [
		'haven doctor                  # is this deployment ready? one line per check',
		'haven migrate --status --json',
		'haven user export 123456789012345678 --out data.json',
	]);
	program.addHelpText(
		'after',
		'Exit codes: 0 ok, 1 failure, 2 usage error, 3 configuration error, 4 database unreachable, 5 partial failure, 6 database not migrated.\n',
	);

	const folder = new URL('./commands/', import.meta.url);
	for (const file of readdirSync(folder)
		.filter((name) => name.endsWith('.ts'))
		.sort()) {
		const module = (await import(new URL(file, folder).href)) as { default: (program: Command) => void };
		module.default(program);
	}
	return program;
}
