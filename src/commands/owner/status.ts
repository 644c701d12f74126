import type { Command } from '@sapphire/framework';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { describeAi } from '../../lib/operations/owner-views.ts';
import { renderOwnerStatus } from '../../lib/operations/owner-views.ts';
import { Block } from '../../lib/db/index.ts';

export const definition: CommandDefinition = {
	name: 'status',
	description: 'Shards, servers, database, AI, blocks, version and the last release check',
	category: 'Owner',
	access: 'owner',
};

const DATABASE_TIMEOUT_MS = 2_000;

export class StatusCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const { client, config, db, shards, version, startedAt, aiSwitch, bot } = this.container;
		await respondSoon(interaction, async () => {
			const started = performance.now();
			const timeout = new Promise<never>((_, reject) =>
				setTimeout(() => reject(new Error(`no answer within ${DATABASE_TIMEOUT_MS} ms`)), DATABASE_TIMEOUT_MS).unref(),
			);
			const database = await Promise.race([this.em().count(Block, { liftedAt: null }), timeout]).then(
				(blocks) => ({ ok: true as const, ms: Math.round(performance.now() - started), describe: db.describe, blocks }),
				(error: unknown) => ({ ok: false as const, problem: error instanceof Error ? error.message : 'error', blocks: 0 }),
			);
			return renderOwnerStatus({
				version,
				uptimeSeconds: (Date.now() - startedAt.getTime()) / 1000,
				shards: shards.snapshot(client),
				guilds: client.guilds.cache.size,
				database,
				ai: describeAi(await aiSwitch.current(), Boolean(config.openai.apiKey), config.openai.model),
				blocks: database.blocks,
				release: bot?.release.last(),
			});
		});
	}
}
