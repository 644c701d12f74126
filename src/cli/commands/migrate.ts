import type { Command } from 'commander';
import { migrate, migrationStatus } from '../../lib/db/index.ts';
import { withDatabase } from '../context.ts';
import { examples, printJson, progress } from '../output.ts';

export default function register(program: Command): void {
	const command = program
		.command('migrate')
		.description('apply pending database migrations and print what ran')
		.option('--status', 'list applied and pending migrations without applying anything')
		.option('--json', 'print the result as JSON: {applied, pending} with --status, else {applied: [names that ran]}')
		.action(async (options: { status?: boolean; json?: boolean }) => {
			await withDatabase(async (db) => {
				if (options.status) {
					const { applied, pending } = await migrationStatus(db.orm);
					if (options.json) return printJson({ applied, pending });
					for (const name of applied) console.log(`applied  ${name}`);
					for (const name of pending) console.log(`pending  ${name}`);
					console.log(`${applied.length} applied, ${pending.length} pending`);
					return;
				}
				const { pending } = await migrationStatus(db.orm);
				let step = 0;
				// Progress on stderr, one line per migration as it starts (they all commit together at the end).
				if (pending.length) db.orm.migrator.on('migrating', ({ name }) => progress(`[${++step}/${pending.length}] applying ${name}`));
				const ran = await migrate(db.orm);
				if (options.json) return printJson({ applied: ran });
				for (const name of ran) console.log(`applied  ${name}`);
				console.log(ran.length ? `${ran.length} migration(s) applied` : 'Nothing to apply: the schema is up to date');
			});
		});
	examples(command, ['haven migrate', 'haven migrate --status', 'haven migrate --status --json | jq ".pending | length"']);
}
