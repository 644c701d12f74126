import type { Command, OptionValues } from 'commander';
import { describePurge, purge, retentionSettings } from '../../lib/privacy/retention.ts';
import { withDatabase } from '../context.ts';
import { examples, printJson, progress } from '../output.ts';

/** `haven purge [--dry-run] [--json]`: the retention job once (src/lib/privacy/retention.ts), with its counts. */
export default function register(program: Command): void {
	const command = program
		.command('purge')
		.description(
			'apply the retention rules now: expired memory, old crisis details and check-ins, servers Haven left (see README "Privacy and retention")',
		)
		.option('--dry-run', 'count what would be deleted or anonymised, change nothing')
		.option('--json', 'print the report as JSON')
		.option('--quiet', 'no progress lines on stderr')
		.action(async (options: OptionValues) => {
			await withDatabase(
				async (db, config) => {
					const report = await purge(db.orm, new Date(), {
						dryRun: Boolean(options.dryRun),
						settings: retentionSettings(config),
						onProgress: options.quiet
							? undefined
							: (item) => progress(`${item.key}: ${item.rows} ${options.dryRun ? 'to change' : 'changed'}`),
					});
					if (options.json) printJson(report);
					else for (const line of describePurge(report)) console.log(line);
				},
				{ migrated: true },
			);
		});
	examples(command, [
		'haven purge --dry-run',
		'haven purge --json --quiet > purge-report.json',
		'0 4 * * * haven purge --quiet   # from cron, with PURGE_INTERVAL_MS=0',
	]);
}
