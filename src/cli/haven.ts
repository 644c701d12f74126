import { CommanderError } from 'commander';
import { buildProgram } from './program.ts';
import { errorMessage, exitCodeOf } from './exit-codes.ts';

const program = await buildProgram();

try {
	await program.parseAsync(process.argv);
} catch (error) {
	const code = exitCodeOf(error);
	// Commander has already printed its own message (usage errors, help).
	if (!(error instanceof CommanderError)) {
		console.error(errorMessage(error));
		// A script reading --json gets a JSON answer on stdout even when the command fails.
		if (process.argv.includes('--json')) {
			process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error), exitCode: code }, null, 2)}\n`);
		}
	}
	process.exitCode = code;
}
