import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { changeAiState, isValidModel, readAiState, type AiStateChange } from '../../lib/operations/ai-switch.ts';
import { renderAiState } from '../../lib/operations/owner-views.ts';

export const definition: CommandDefinition = {
	name: 'ai',
	description: 'Turn AI features on or off, or change the chat model, without a restart',
	category: 'Owner',
	access: 'owner',
	options: [
		{ type: ApplicationCommandOptionType.Subcommand, name: 'status', description: 'Whether AI is on, and the model' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'on', description: 'Turn AI features on' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'off', description: 'Turn AI features off: fixed replies only' },
		{
			type: ApplicationCommandOptionType.Subcommand,
			name: 'model',
			description: 'Change the chat model (or go back to OPENAI_MODEL)',
			options: [
				{
					type: ApplicationCommandOptionType.String,
					name: 'name',
					description: 'Model name; leave out for OPENAI_MODEL',
					required: false,
					max_length: 100,
				},
			],
		},
	],
};

export class AiCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		const { aiSwitch, config } = this.container;
		const show = (state: Awaited<ReturnType<typeof readAiState>>, notice?: string) =>
			renderAiState(state, Boolean(config.openai.apiKey), config.openai.model, notice);
		await respondSoon(interaction, async () => {
			if (sub === 'status') return show(await readAiState(this.em()));
			let change: AiStateChange;
			let notice: string;
			if (sub === 'model') {
				const name = interaction.options.getString('name')?.trim() || null;
				if (name !== null && !isValidModel(name)) return { content: 'A model name is 1 to 100 letters, digits and . _ - : / characters.' };
				change = { model: name, by: interaction.user.id };
				notice = name ? `The chat model is now ${name}, from the next request.` : 'The chat model is back to OPENAI_MODEL.';
			} else {
				change = { enabled: sub === 'on', by: interaction.user.id };
				notice = sub === 'on' ? 'AI features are on, from the next request.' : 'AI features are off: fixed replies from the next request.';
			}
			const state = await changeAiState(this.em(), change);
			aiSwitch.set(state);
			return show(state, notice);
		});
	}
}
