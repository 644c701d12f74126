import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { deleteUserData, exportFile, exportUserData, remainingReferences } from '../../lib/privacy/user-data.ts';
import { withDatabase } from '../context.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { examples, printJson } from '../output.ts';

/**
 * `haven user export|delete <id>`: a data-subject request that arrives by e-mail, answered without Discord. The same
 * work as `/privacy export` and `/privacy delete` (src/lib/privacy/user-data.ts).
 */

const userId = (value: string) => {
	if (!/^\d{17,20}$/.test(value)) throw new InvalidArgumentError('must be a Discord user ID (17 to 20 digits)');
	return value;
};

const MIGRATED = { migrated: true };

export default function register(program: Command): void {
	const user = program.command('user').description("a person's data: export it or delete it (data-subject requests received outside Discord)");
	examples(user, ['haven user export 123456789012345678 --out request-42.json', 'haven user delete 123456789012345678 --yes']);

	examples(
		user
			.command('export')
			.description('write everything Haven stores about a person, decrypted: the same JSON file /privacy export attaches')
			.argument('<id>', 'Discord user ID', userId)
			.option('--out <file>', 'write the JSON to this file (created readable by you only) instead of stdout')
			.action(async (id: string, options: { out?: string }) => {
				await withDatabase(async (db) => {
					const data = await exportUserData(db.orm.em.fork(), id);
					const file = exportFile(data);
					const empty =
						data.preferences === null &&
						[data.checkIns, data.ghostLetters, data.feedback, data.conversationMemory, data.conversations, data.crisisEvents].every(
							(list) => list.length === 0,
						) &&
						Object.keys(data.other).length === 0 &&
						Object.values(data.actionsAboutOthers).every((count) => count === 0);
					if (empty) console.error(`haven: nothing is stored about ${id} (the export is empty)`);
					if (!options.out) {
						process.stdout.write(file.bytes);
						return;
					}
					writeFileSync(options.out, file.bytes, { mode: 0o600 });
					console.error(`Wrote ${file.bytes.length} bytes to ${options.out} (suggested name to send: ${file.name})`);
				}, MIGRATED);
			}),
		[
			'haven user export 123456789012345678 > data.json',
			'haven user export 123456789012345678 --out request-42.json',
			'haven user export 123456789012345678 | jq ".checkIns | length"',
		],
	);

	examples(
		user
			.command('delete')
			.description('delete everything about a person, as /privacy delete does (rows that only count keep counting without their id)')
			.argument('<id>', 'Discord user ID', userId)
			.option('--yes', 'confirm: without it nothing is deleted')
			.option('--json', 'print the deletion report as JSON')
			.action(async (id: string, options: { yes?: boolean; json?: boolean }) => {
				if (!options.yes) {
					throw new CliError(ExitCode.usage, `this deletes everything about ${id} and cannot be undone: add --yes to confirm`);
				}
				await withDatabase(async (db) => {
					const report = await deleteUserData(db.orm.em.fork(), id);
					const left = await remainingReferences(db.orm.em.fork(), id);
					if (options.json) printJson({ userId: id, ...report, remaining: left });
					else {
						const changed = report.steps.filter((step) => step.rows > 0);
						for (const step of changed) console.log(`${step.table}.${step.column}: ${step.rows} row(s) ${step.action}`);
						console.log(
							report.total
								? `Deleted or anonymised ${report.total} row(s) about ${id}`
								: `Nothing was stored about ${id}: nothing deleted`,
						);
					}
					if (report.unclassified.length)
						console.error(`warning: columns without a deletion rule were handled by the default: ${report.unclassified.join(', ')}`);
					if (Object.keys(left).length) {
						console.error(`haven: rows still reference ${id} after deletion: ${Object.keys(left).join(', ')}`);
						process.exitCode = ExitCode.partial;
					}
				}, MIGRATED);
			}),
		['haven user delete 123456789012345678 --yes', 'haven user delete 123456789012345678 --yes --json'],
	);
}
