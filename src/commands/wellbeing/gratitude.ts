import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import { recordScreened, screenPrivately } from '../../lib/safety/screen-command-text.ts';
import { addGratitude, cleanItems, ITEM_MAX_LENGTH, recentGratitude, renderAdded, renderGratitudeList } from '../../lib/wellbeing/gratitude.ts';

const item = (name: string, required: boolean) => ({
	type: ApplicationCommandOptionType.String as const,
	name,
	description: required ? 'Something good, however small' : 'Another good thing (optional)',
	required,
	max_length: ITEM_MAX_LENGTH,
});

/** `/gratitude add | list`: "three good things" a day (src/lib/wellbeing/gratitude.ts). */
export const definition: CommandDefinition = {
	name: 'gratitude',
	description: 'Three good things: note up to three small good things a day (only you see them)',
	category: 'Wellbeing',
	access: 'everyone',
	cooldownSeconds: 0,
	help: 'Up to three a day, stored encrypted; each day counts towards your streak in /insights.',
	options: [
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'add',
			description: 'Add up to three good things for today',
			options: [item('first', true), item('second', false), item('third', false)],
		},
		{ type: ApplicationCommandOptionType.Subcommand, name: 'list', description: 'Your good things of the last 7 days, by day' },
	],
};

export class GratitudeCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const userId = interaction.user.id;
		const em = this.em();
		if (interaction.options.getSubcommand(true) === 'list') {
			return respondSoon(interaction, async () => renderGratitudeList(await recentGratitude(em, userId)));
		}
		const items = cleanItems(['first', 'second', 'third'].map((name) => interaction.options.getString(name)));
		if (items.length === 0) return send(interaction, { content: 'Nothing to save: write at least one good thing.' });
		const deps = { em: () => em, warn: (m: string) => this.container.logger.warn(m) };
		const screened = await screenPrivately(items.join('\n'), { userId, guildId: interaction.guildId }, deps);
		if (screened) await send(interaction, { content: screened.resources });
		await respondSoon(interaction, async () => renderAdded(await addGratitude(em, userId, items)));
		if (screened) await recordScreened(screened, interaction.guildId, deps);
	}
}
