import type { Command } from 'commander';
import { ConfigError, loadConfig, productionRefusals } from '../../lib/core/config.ts';
import type { Haven } from '../../index.ts';
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
			// Listening from the start: the "is up" line is written before startHaven returns, and a signal in between
			// would otherwise meet Node's default action and leave the embedded PostgreSQL running. A signal during
			// start-up stops Haven as soon as it is up.
			let haven: Haven | undefined;
			let signalled = false;
			const onSignal = () => {
				process.off('SIGTERM', onSignal);
				process.off('SIGINT', onSignal);
				signalled = true;
				if (haven) stopHaven(haven);
			};
			process.on('SIGTERM', onSignal);
			process.on('SIGINT', onSignal);
			try {
				haven = await startHaven(config);
			} finally {
				if (!haven?.url) {
					process.off('SIGTERM', onSignal);
					process.off('SIGINT', onSignal);
				}
			}
			if (haven.url && signalled) stopHaven(haven);
		});
	examples(serve, [
		'haven serve                                   # embedded PostgreSQL in ./data, API-only without TOKEN',
		'NODE_ENV=production DATABASE_URL=postgresql://haven@db/haven ENCRYPTION_KEY=$(cat key) haven serve',
		'SERVICE_MIGRATE_ONLY=1 haven serve            # apply migrations and exit',
	]);
}

function stopHaven(haven: Haven): void {
	void haven.stop().then(
		() => (process.exitCode = 0),
		(error: unknown) => {
			console.error(`haven: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
			process.exitCode = 1;
		},
	);
}
