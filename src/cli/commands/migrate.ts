import type { Command } from 'commander';
import { migrate, migrationStatus } from '../../lib/db/index.ts';
import { withDatabase } from '../context.ts';

export default function register(program: Command): void {
	program
		.command('migrate')
		.description('apply pending database migrations and print what ran')
		.option('--status', 'list applied and pending migrations without applying anything')
		.action(async (options: { status?: boolean }) => {
			await withDatabase(async (db) => {
				if (options.status) {
					const { applied, pending } = await migrationStatus(db.orm);
					for (const name of applied) console.log(`applied  ${name}`);
					for (const name of pending) console.log(`pending  ${name}`);
					console.log(`${applied.length} applied, ${pending.length} pending`);
					return;
				}
				const ran = await migrate(db.orm);
				for (const name of ran) console.log(`applied  ${name}`);
				console.log(ran.length ? `${ran.length} migration(s) applied` : 'Nothing to apply: the schema is up to date');
			});
		});
}
