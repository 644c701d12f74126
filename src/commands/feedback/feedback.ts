import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { MAX_MESSAGE_LENGTH, MIN_FEEDBACK_LENGTH } from '../../lib/api/schemas.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { renderFeedbackReceived, renderOwnFeedback } from '../../lib/feedback/views.ts';
import { ownFeedback } from '../../lib/feedback/owner-loop.ts';
import { announceNewFeedback } from '../../lib/feedback/announce.ts';
import { respondSoon, send } from '../../lib/discord/reply.ts';
import { submitFeedback } from '../../lib/feedback/store.ts';

export const definition: CommandDefinition = {
	name: 'feedback',
	description: "Tell Haven's owners what helps and what doesn't",
	category: 'Feedback',
	access: 'everyone',
	// Longer than the info commands' 5 s: one submission per person every 30 s keeps the review queue free of floods.
	cooldownSeconds: 30,
	help: 'Owners read every message; it is only shown publicly if you agree and an owner approves it. Without a message, it shows what became of your last messages.',
	options: [
		{
			type: ApplicationCommandOptionType.String,
			name: 'message',
			description: 'Your feedback (leave out to see what you sent and its state)',
			required: false,
			min_length: MIN_FEEDBACK_LENGTH,
			max_length: MAX_MESSAGE_LENGTH,
		},
		{
			type: ApplicationCommandOptionType.Boolean,
			name: 'public',
			description: 'May Haven quote this publicly, without your name? (an owner still decides)',
			required: false,
		},
	],
};

export class FeedbackCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const written = interaction.options.getString('message');
		if (written === null) {
			await respondSoon(interaction, async () => {
				const { items, total } = await ownFeedback(this.em(), interaction.user.id);
				return renderOwnFeedback(items, total);
			});
			return;
		}
		const message = written.trim();
		const consentPublic = interaction.options.getBoolean('public') ?? false;
		if (message.length < MIN_FEEDBACK_LENGTH) {
			await send(interaction, { content: `Please write at least ${MIN_FEEDBACK_LENGTH} characters.` });
			return;
		}
		await respondSoon(interaction, async () => {
			const row = await submitFeedback(this.em(), {
				userId: interaction.user.id,
				message: message.slice(0, MAX_MESSAGE_LENGTH),
				source: 'discord',
				consentPublic,
			});
			void announceNewFeedback(row.id);
			return renderFeedbackReceived(consentPublic);
		});
	}
}
