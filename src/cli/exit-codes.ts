import { CommanderError } from 'commander';
import { ConfigError } from '../lib/core/config.ts';
import { isDatabaseUnavailable } from '../lib/db/outage.ts';

/**
 * The `haven` program's exit codes, one meaning each, so a script or a pipeline can tell what went wrong. Every
 * command ends through `exitCodeOf` (src/cli/haven.ts) or sets one of these itself; the README's CLI section lists them.
 */
export const ExitCode = {
	/** Done. */
	ok: 0,
	/** Anything not listed below. */
	failure: 1,
	/** The command line is wrong: unknown command or option, invalid argument. */
	usage: 2,
	/** The configuration is invalid or incomplete (the message names the variable). */
	config: 3,
	/** The database cannot be reached or opened. */
	databaseUnreachable: 4,
	/** The work ran but part of it failed (values that do not decrypt, a failing `doctor` check). */
	partial: 5,
	/** The database schema is older than this version of Haven: run `haven migrate`. */
	notMigrated: 6,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports as one line with a chosen exit code. */
export class CliError extends Error {
	readonly exitCode: ExitCodeValue;
	constructor(exitCode: ExitCodeValue, message: string) {
		super(message);
		this.name = 'CliError';
		this.exitCode = exitCode;
	}
}

export function exitCodeOf(error: unknown): number {
	if (error instanceof CliError) return error.exitCode;
	// Help and --version end through commander with 0; every other commander error is a usage error.
	if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
	if (error instanceof ConfigError) return ExitCode.config;
	if (isDatabaseUnavailable(error)) return ExitCode.databaseUnreachable;
	return ExitCode.failure;
}

/** What the CLI prints for an error: a ConfigError's own lines, else one `haven:` line. */
export function errorMessage(error: unknown): string {
	if (error instanceof ConfigError) return error.message;
	return `haven: ${error instanceof Error ? error.message : String(error)}`;
}
