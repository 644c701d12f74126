import type { Command, OptionValues } from 'commander';
import { InvalidArgumentError } from 'commander';
import { fieldCipher } from '../../lib/db/encrypted-text.ts';
import { rotateSalt, type RotateProgress, type RotateReport } from '../../lib/operations/rotate-salt.ts';
import { withDatabase } from '../context.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { examples, printJson } from '../output.ts';

export function positiveInteger(value: string): number {
	const parsed = Number(value);
	if (!Number.isInteger(parsed) || parsed < 1 || parsed > 100_000) throw new InvalidArgumentError('must be a whole number from 1 to 100000');
	return parsed;
}

/** On stderr (stdout is for the result): a one-line bar on a terminal; plain lines (at most one a second per column) in logs and pipes. */
export function progressPrinter(): (progress: RotateProgress) => void {
	let lastLine = 0;
	return ({ table, column, scanned, total, rewritten, done }) => {
		const label = `${table}.${column}: ${scanned}/${total} scanned, ${rewritten} re-encrypted`;
		if (process.stderr.isTTY) {
			const width = 24;
			const filled = total ? Math.round((Math.min(scanned, total) / total) * width) : width;
			process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${label}\x1b[K${done ? '\n' : ''}`);
		} else if (done || Date.now() - lastLine >= 1000) {
			lastLine = Date.now();
			console.error(label);
		}
	};
}

/** What a run did, then the failures (table, column and row, never a value); throws when any value does not decrypt. */
export function printReport(report: RotateReport, keys: string): void {
	if (report.resumedFrom) console.log(`Resumed an interrupted run at ${report.resumedFrom.table} after id ${report.resumedFrom.lastId}`);
	for (const column of report.columns) {
		const verb = report.dryRun ? `${column.stale} would be re-encrypted` : `${column.rewritten} re-encrypted`;
		console.log(`${column.table}.${column.column}: ${column.scanned} scanned, ${verb}`);
	}
	const scanned = report.columns.reduce((sum, column) => sum + column.scanned, 0);
	const rate = report.seconds > 0 ? Math.round(scanned / report.seconds) : scanned;
	console.log(`${report.dryRun ? 'Dry run: nothing changed. ' : ''}${scanned} values in ${report.seconds.toFixed(1)} s (${rate}/s)`);
	if (report.failures.length) {
		for (const failure of report.failures.slice(0, 20))
			console.error(`cannot decrypt ${failure.table}.${failure.column} id ${failure.id}: ${failure.reason}`);
		throw new CliError(ExitCode.partial, `${report.failures.length} value(s) cannot be decrypted with the current ${keys}`);
	}
	if (!report.dryRun) console.log('Verified: every encrypted value decrypts with the current key and salts');
}

/** The report as JSON on stdout; failures (never values) also on stderr, and exit 5. */
export function printJsonReport(report: RotateReport, keys: string): void {
	printJson(report);
	if (report.failures.length) {
		console.error(`haven: ${report.failures.length} value(s) cannot be decrypted with the current ${keys}`);
		process.exitCode = ExitCode.partial;
	}
}

export default function register(program: Command): void {
	const command = program
		.command('rotate-salt')
		.description(
			're-encrypt every encrypted field under the first salt of ENCRYPTION_SALT_LIST, bound to its row (older formats and values stored in the clear included)',
		)
		.option('--dry-run', 'count what would be re-encrypted, change nothing')
		.option('--batch-size <n>', 'rows per transaction', positiveInteger, 500)
		.option('--json', 'print the report as JSON (progress stays on stderr)')
		.action(async (options: OptionValues) => {
			await withDatabase(
				async (db) => {
					const report = await rotateSalt(db.orm, fieldCipher(), {
						batchSize: options.batchSize as number,
						dryRun: Boolean(options.dryRun),
						onProgress: progressPrinter(),
					});
					if (options.json) printJsonReport(report, 'ENCRYPTION_KEY and ENCRYPTION_SALT_LIST');
					else printReport(report, 'ENCRYPTION_KEY and ENCRYPTION_SALT_LIST');
				},
				{ migrated: true },
			);
		});
	examples(command, [
		'ENCRYPTION_SALT_LIST=new-salt,old-salt haven rotate-salt --dry-run',
		'haven rotate-salt --batch-size 1000',
		'haven rotate-salt --json 2>progress.log | jq ".failures | length"',
	]);
}
