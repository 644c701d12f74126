import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, type APIApplicationCommandBasicOption } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { approveView, feedbackActionView, feedbackListView } from '../../lib/feedback/manage.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import type { FeedbackFilter } from '../../lib/feedback/store.ts';
import { replyModal } from '../../lib/feedback/owner-loop.ts';

const id: APIApplicationCommandBasicOption = {
	type: ApplicationCommandOptionType.Integer,
	name: 'id',
	description: 'Feedback id (#)',
	required: true,
	min_value: 1,
};
const subcommand = (name: string, description: string, options: APIApplicationCommandBasicOption[] = [id]) => ({
	type: ApplicationCommandOptionType.Subcommand as const,
	name,
	description,
	options,
});

export const definition: CommandDefinition = {
	name: 'feedback-manage',
	description: 'Review the feedback queue: list, view, approve, feature, delete, reply to the author',
	category: 'Owner',
	access: 'owner',
	options: [
		subcommand('list', 'List feedback (the queue by default), page by page', [
			{
				type: ApplicationCommandOptionType.String,
				name: 'status',
				description: 'Which feedback (default: queued)',
				required: false,
				choices: [
					{ name: 'queued', value: 'queued' },
					{ name: 'approved', value: 'approved' },
					{ name: 'rejected', value: 'rejected' },
					{ name: 'all', value: 'all' },
				],
			},
			{ type: ApplicationCommandOptionType.Integer, name: 'page', description: 'Page to open (default 1)', required: false, min_value: 1 },
		]),
		subcommand('view', 'Show one feedback message with its actions'),
		subcommand('approve', 'Approve feedback; private unless public is set', [
			id,
			{ type: ApplicationCommandOptionType.Boolean, name: 'public', description: 'Show it in the public testimonials', required: false },
			{
				type: ApplicationCommandOptionType.Boolean,
				name: 'featured',
				description: 'Show it first among testimonials (makes it public)',
				required: false,
			},
		]),
		subcommand('unapprove', 'Take an approval back: to the queue, not public'),
		subcommand('feature', 'Feature an approved public testimonial', [
			id,
			{ type: ApplicationCommandOptionType.Boolean, name: 'off', description: 'Stop featuring it instead', required: false },
		]),
		subcommand('reject', 'Reject feedback: it is never shown'),
		subcommand('delete', 'Delete feedback for good (asks to confirm)'),
		subcommand('reply', 'Reply to the author by DM (opens a box for the text)'),
	],
};

export class FeedbackManageCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const sub = interaction.options.getSubcommand(true);
		const reviewer = interaction.user.id;
		if (sub === 'reply') return interaction.showModal(replyModal(interaction.options.getInteger('id', true)));
		await respondSoon(interaction, async () => {
			if (sub === 'list') {
				const filter = (interaction.options.getString('status') ?? 'queued') as FeedbackFilter;
				return feedbackListView(this.em(), filter, (interaction.options.getInteger('page') ?? 1) - 1);
			}
			const feedbackId = interaction.options.getInteger('id', true);
			switch (sub) {
				case 'approve':
					return approveView(
						this.em(),
						feedbackId,
						{ public: interaction.options.getBoolean('public') ?? false, featured: interaction.options.getBoolean('featured') ?? false },
						reviewer,
					);
				case 'feature':
					return feedbackActionView(this.em(), interaction.options.getBoolean('off') ? 'unfeature' : 'feature', feedbackId, reviewer);
				case 'view':
				case 'unapprove':
				case 'reject':
				case 'delete':
					return feedbackActionView(this.em(), sub, feedbackId, reviewer);
				default:
					throw new Error(`unknown subcommand ${sub}`);
			}
		});
	}
}
