import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, AttachmentBuilder, MessageFlags } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { NO_MENTIONS } from '../../lib/discord/reply.ts';
import { chartPoints, DEFAULT_DAYS, gatherInsights, INSIGHT_DAYS, insightsEmbed, type InsightDays } from '../../lib/wellbeing/insights.ts';
import { renderMoodChart } from '../../lib/wellbeing/mood-chart.ts';

export const CHART_FILE = 'mood-chart.png';

/** `/insights [days]`: a private summary with a mood chart (src/lib/wellbeing/insights.ts, mood-chart.ts). */
export const definition: CommandDefinition = {
	name: 'insights',
	description: 'A private summary of your check-ins, journal and gratitude, with a mood chart',
	category: 'Wellbeing',
	access: 'everyone',
	cooldownSeconds: 5,
	help: 'Streaks, your most frequent moods and a few gentle observations from your own data. Never a diagnosis; no AI.',
	options: [
		{
			type: ApplicationCommandOptionType.Integer,
			name: 'days',
			description: `How far back to look (default ${DEFAULT_DAYS})`,
			required: false,
			choices: INSIGHT_DAYS.map((days) => ({ name: `${days} days`, value: days })),
		},
	],
};

export class InsightsCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const chosen = interaction.options.getInteger('days');
		const days: InsightDays = INSIGHT_DAYS.find((value) => value === chosen) ?? DEFAULT_DAYS;
		// Deferred first: several reads and a rendered image.
		await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		const now = new Date();
		const data = await gatherInsights(this.em(), interaction.user.id, days, now);
		const chart = chartPoints(data);
		if ('missing' in chart) {
			await interaction.editReply({ embeds: [insightsEmbed(data, now, chart.missing)], allowedMentions: NO_MENTIONS });
			return;
		}
		const png = renderMoodChart(chart.points, { from: data.from, to: data.to }, `Your mood, last ${days} days`);
		await interaction.editReply({
			embeds: [insightsEmbed(data, now, undefined, CHART_FILE)],
			files: [new AttachmentBuilder(png, { name: CHART_FILE, description: `Mood and intensity of your check-ins, last ${days} days` })],
			allowedMentions: NO_MENTIONS,
		});
	}
}
