import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { MOODS } from '../../lib/wellbeing/checkins.ts';
import {
	countEntries,
	deleteEntry,
	entryAt,
	journalModal,
	listEntries,
	renderClearConfirm,
	renderEntry,
	renderList,
} from '../../lib/wellbeing/journal.ts';

const numberOption = (description: string) => ({
	type: ApplicationCommandOptionType.Integer as const,
	name: 'number',
	description,
	required: false,
	min_value: 1,
});

/** `/journal write | list | read | delete`: a private, encrypted journal (src/lib/wellbeing/journal.ts). */
export const definition: CommandDefinition = {
	name: 'journal',
	description: 'A private journal: write, list, read and delete your entries (only you see them)',
	category: 'Wellbeing',
	access: 'everyone',
	cooldownSeconds: 0,
	help: 'Entries are stored encrypted and only you can read them. Ask for a short reflection after writing if you like.',
	options: [
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'write',
			description: 'Write an entry in a private writing box',
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: 'mood',
					description: 'The word closest to how you feel (optional)',
					required: false,
					choices: MOODS.map((mood) => ({ name: `${mood.emoji} ${mood.label}`, value: mood.value })),
				},
				{
					type: ApplicationCommandOptionType.Boolean,
					name: 'reflection',
					description: 'Get a short, supportive reflection after writing (default no)',
					required: false,
				},
			],
		},
		{ type: ApplicationCommandOptionType.Subcommand, name: 'list', description: 'Your newest entries, by date' },
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'read',
			description: 'Read your entries one at a time',
			options: [numberOption('Which entry: 1 is the newest (default 1)')],
		},
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'delete',
			description: 'Delete one entry by number, or all of them (asks to confirm)',
			options: [numberOption('The entry to delete (1 is the newest); leave empty to delete all')],
		},
	],
};

export class JournalCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		const userId = interaction.user.id;
		const em = this.em();
		switch (sub) {
			case 'write':
				return interaction.showModal(
					journalModal({ mood: interaction.options.getString('mood'), reflect: interaction.options.getBoolean('reflection') === true }),
				);
			case 'list':
				return respondSoon(interaction, async () => renderList(await listEntries(em, userId), await countEntries(em, userId)));
			case 'read': {
				const index = (interaction.options.getInteger('number') ?? 1) - 1;
				return respondSoon(interaction, async () => renderEntry(userId, await entryAt(em, userId, index)));
			}
			default: {
				const number = interaction.options.getInteger('number');
				if (number === null) return respondSoon(interaction, async () => renderClearConfirm(userId, await countEntries(em, userId)));
				return respondSoon(interaction, async () => {
					const page = await entryAt(em, userId, number - 1);
					if (!page.entry || page.index !== number - 1)
						return { content: `You have no entry number ${number}. \`/journal list\` shows them.` };
					await deleteEntry(em, userId, page.entry.id);
					return { content: `🗑️ Deleted entry ${number} (written <t:${Math.floor(page.entry.createdAt.getTime() / 1000)}:f>) for good.` };
				});
			}
		}
	}
}
