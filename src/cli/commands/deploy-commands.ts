import type { Command } from 'commander';
import { REST } from 'discord.js';
import { loadConfig } from '../../lib/core/config.ts';
import { migrate } from '../../lib/db/index.ts';
import { collectDefinitions } from '../../lib/discord/definitions.ts';
import { deployCommands, describeDeploy } from '../../lib/discord/deploy.ts';
import { withDatabase } from '../context.ts';
import { CliError, ExitCode } from '../exit-codes.ts';
import { examples, printJson } from '../output.ts';

/**
 * `haven deploy-commands [--force]`: the startup registration without starting the bot (REST only, no gateway).
 * Global commands replace the global set, owner commands the set of PRIVATE_GUILD_ID; skipped when the definitions
 * have not changed since the last deploy recorded in the database, unless --force. Prints what changed per scope.
 */
export default function register(program: Command): void {
	const command = program
		.command('deploy-commands')
		.description('register the slash commands with Discord (global, and owner commands in PRIVATE_GUILD_ID)')
		.option('--force', 'register even when the definitions have not changed since the last deploy')
		.option('--json', 'print the result as JSON')
		.action(async (options: { force?: boolean; json?: boolean }) => {
			if (!loadConfig().discord.enabled) throw new CliError(ExitCode.config, 'TOKEN and CLIENT_ID must be set to register commands');
			await withDatabase(async (db, config) => {
				const { token, clientId, apiUrl, privateGuildId, forceDeploy } = config.discord;
				if (!token || !clientId) throw new CliError(ExitCode.config, 'TOKEN and CLIENT_ID must be set to register commands');
				await migrate(db.orm);
				const rest = new REST({ api: apiUrl }).setToken(token);
				try {
					const result = await deployCommands({
						rest,
						applicationId: clientId,
						privateGuildId,
						definitions: await collectDefinitions(),
						force: Boolean(options.force) || forceDeploy,
						db,
					});
					for (const warning of result.warnings) console.error(`warning: ${warning}`);
					if (options.json) printJson(result);
					else console.log(describeDeploy(result).join('\n'));
				} finally {
					rest.clearHashSweeper();
					rest.clearHandlerSweeper();
				}
			});
		});
	examples(command, ['haven deploy-commands', 'haven deploy-commands --force --json']);
}
