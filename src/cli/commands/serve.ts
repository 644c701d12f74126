import type { Command } from 'commander';
import { loadConfig } from '../../lib/core/config.ts';

export default function register(program: Command): void {
	program
		.command('serve')
		.description('run Haven: migrations, then the Discord bot (when TOKEN is set) and the HTTP API')
		.action(async () => {
			const config = loadConfig();
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
}
