import type { Command, OptionValues } from 'commander';
import { readEnvironment } from '../../lib/core/config.ts';
import { parseEncryptionKey } from '../../lib/db/field-cipher.ts';
import { rotateKey } from '../../lib/operations/rotate-salt.ts';
import { withDatabase } from '../context.ts';
import { examples } from '../output.ts';
import { positiveInteger, printReport, progressPrinter } from './rotate-salt.ts';

export default function register(program: Command): void {
	const command = program
		.command('rotate-key')
		.description(
			're-encrypt every encrypted field from the key in OLD_ENCRYPTION_KEY (or --old-key-env) to ENCRYPTION_KEY, then make ENCRYPTION_KEY the key Haven accepts; stop Haven first',
		)
		.option('--old-key-env <name>', 'environment variable (or .env entry) holding the old key', 'OLD_ENCRYPTION_KEY')
		.option('--dry-run', 'count what would be re-encrypted, change nothing')
		.option('--batch-size <n>', 'rows per transaction', positiveInteger, 500)
		.action(async (options: OptionValues) => {
			const name = options.oldKeyEnv as string;
			const raw = readEnvironment()[name]?.trim();
			if (!raw) throw new Error(`${name} is not set: put the key the database is encrypted with there, and the new key in ENCRYPTION_KEY`);
			const oldKey = parseEncryptionKey(raw);
			if (typeof oldKey === 'string') throw new Error(oldKey.replace('ENCRYPTION_KEY', name));
			await withDatabase(async (db, config) => {
				if (!config.encryption.key) throw new Error('ENCRYPTION_KEY (the new key) is not set');
				const report = await rotateKey(
					db.orm,
					{ oldKey, newKey: config.encryption.key, salts: config.encryption.salts },
					{ batchSize: options.batchSize as number, dryRun: Boolean(options.dryRun), onProgress: progressPrinter() },
				);
				printReport(report, 'ENCRYPTION_KEY and ENCRYPTION_SALT_LIST');
				if (!report.dryRun) console.log(`ENCRYPTION_KEY is now the key of this database: remove ${name} and start Haven`);
			});
		});
	examples(command, [
		'OLD_ENCRYPTION_KEY=$(cat old.key) ENCRYPTION_KEY=$(cat new.key) haven rotate-key --dry-run',
		'OLD_ENCRYPTION_KEY=$(cat old.key) ENCRYPTION_KEY=$(cat new.key) haven rotate-key',
	]);
}
