import type { Command } from 'commander';

/**
 * How every `haven` command writes: results on stdout (JSON with --json, nothing else mixed in), progress, warnings
 * and errors on stderr, so `haven <command> --json | jq` always reads one JSON document.
 */

export function printJson(value: unknown): void {
	process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One line of progress for a long run, on stderr. */
export function progress(line: string): void {
	process.stderr.write(`${line}\n`);
}

/** Appends examples to a command's `--help`. */
export function examples(command: Command, lines: string[]): Command {
	return command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
}
