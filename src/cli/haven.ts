import { readdirSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../lib/core/config.ts';

/** The `haven` program. Each file in ./commands registers one subcommand: adding a command is adding a file. */
const program = new Command('haven')
	.description('Haven: a self-hosted wellbeing support bot for Discord with a small HTTP API')
	.showHelpAfterError('(run with --help for usage)')
	.exitOverride();

const folder = new URL('./commands/', import.meta.url);
for (const file of readdirSync(folder)
	.filter((name) => name.endsWith('.ts'))
	.sort()) {
	const module = (await import(new URL(file, folder).href)) as { default: (program: Command) => void };
	module.default(program);
}

try {
	await program.parseAsync(process.argv);
} catch (error) {
	if (error instanceof CommanderError) {
		process.exitCode = error.exitCode;
	} else {
		const message = error instanceof ConfigError ? error.message : `haven: ${error instanceof Error ? error.message : String(error)}`;
		console.error(message);
		process.exitCode = 1;
	}
}
