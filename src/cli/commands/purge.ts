import type { Command, OptionValues } from 'commander';
import { describePurge, purge, retentionSettings } from '../../lib/privacy/retention.ts';
import { withDatabase } from '../context.ts';

/** `haven purge [--dry-run] [--json]`: the retention job once (src/lib/privacy/retention.ts), with its counts. */
export default function register(program: Command): void {
	program
		.command('purge')
		.description(
			'apply the retention rules now: expired memory, old crisis details and check-ins, servers Haven left (see README "Privacy and retention")',
		)
		.option('--dry-run', 'count what would be deleted or anonymised, change nothing')
		.option('--json', 'print the report as JSON')
		.action(async (options: OptionValues) => {
			await withDatabase(async (db, config) => {
				const report = await purge(db.orm, new Date(), { dryRun: Boolean(options.dryRun), settings: retentionSettings(config) });
				if (options.json) console.log(JSON.stringify(report, null, 2));
				else for (const line of describePurge(report)) console.log(line);
			});
		});
}
