import type { Command } from 'commander';
import { ConfigError, loadConfig, productionRefusals } from '../../lib/core/config.ts';
import { examples } from '../output.ts';

export default function register(program: Command): void {
	const serve = program
		.command('serve')
		.description('run Haven: migrations, then the Discord bot (when TOKEN is set) and the HTTP API')
		.action(async () => {
			const config = loadConfig();
			const refusals = productionRefusals(config);
			if (refusals.length) throw new ConfigError(refusals);
			if (config.production && config.allowInsecure && (!config.encryption.key || !config.database.url)) {
				console.error(
					`warning: HAVEN_ALLOW_INSECURE is set: starting in production without ${[!config.encryption.key && 'ENCRYPTION_KEY', !config.database.url && 'DATABASE_URL'].filter(Boolean).join(' and ')}`,
				);
			}
			const { startHaven } = await import('../../index.ts');
			const haven = await startHaven(config);
			if (!haven.url) return;
			const stop = () => {
				process.off('SIGTERM', stop);
				process.off('SIGINT', stop);
				void haven.stop().then(
					() => (process.exitCode = 0),
					(error: unknown) => {
						console.error(`haven: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
						process.exitCode = 1;
					},
				);
			};
			process.on('SIGTERM', stop);
			process.on('SIGINT', stop);
		});
	examples(serve, [
		'haven serve                                   # embedded PostgreSQL in ./data, API-only without TOKEN',
		'NODE_ENV=production DATABASE_URL=postgresql://haven@db/haven ENCRYPTION_KEY=$(cat key) haven serve',
		'SERVICE_MIGRATE_ONLY=1 haven serve            # apply migrations and exit',
	]);
}
