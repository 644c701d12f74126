import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType, AttachmentBuilder, MessageFlags } from 'discord.js';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { NO_MENTIONS, respondSoon, send } from '../../lib/discord/reply.ts';
import { clearMemory, memoryEnabled, setMemoryEnabled } from '../../lib/companion/memory.ts';
import { exportFile, exportUserData } from '../../lib/privacy/user-data.ts';
import { EXPORT_TOO_LARGE, renderDeleteConfirm, renderExportReady, renderMemory, renderPrivacyInfo } from '../../lib/privacy/views.ts';
import { retentionSettings } from '../../lib/privacy/retention.ts';

export const definition: CommandDefinition = {
	name: 'privacy',
	description: 'What Haven keeps about you; export or delete your data; conversation memory',
	category: 'Info',
	access: 'everyone',
	// A person's rights over their own data hold even when an owner has blocked them.
	neverBlocked: true,
	help: 'Every answer is only visible to you.',
	options: [
		{ type: ApplicationCommandOptionType.Subcommand, name: 'info', description: 'What Haven keeps, for how long, and how it is protected' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'export', description: 'Get all your data as a file (only you see it)' },
		{ type: ApplicationCommandOptionType.Subcommand, name: 'delete', description: 'Delete everything Haven knows about you (asks to confirm)' },
		{
			type: ApplicationCommandOptionType.SubcommandGroup,
			name: 'memory',
			description: 'Conversation memory: Haven remembers your last few messages for up to a day',
			options: [
				{ type: ApplicationCommandOptionType.Subcommand, name: 'on', description: 'Let Haven remember your last few messages (default)' },
				{ type: ApplicationCommandOptionType.Subcommand, name: 'off', description: 'Stop remembering, and forget what is stored' },
				{ type: ApplicationCommandOptionType.Subcommand, name: 'clear', description: 'Forget what is stored now (memory stays on or off)' },
			],
		},
	],
};

/** Discord's default attachment limit, when the interaction does not say. */
const DEFAULT_ATTACHMENT_LIMIT = 10 * 1024 * 1024;

export class PrivacyCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const userId = interaction.user.id;
		const group = interaction.options.getSubcommandGroup(false);
		const sub = interaction.options.getSubcommand(false) ?? 'info';
		if (group === 'memory') {
			return respondSoon(interaction, async () => {
				if (sub === 'clear') {
					const cleared = await clearMemory(this.em(), userId);
					return renderMemory('clear', { enabled: await memoryEnabled(this.em(), userId), cleared });
				}
				const on = sub === 'on';
				return renderMemory(on ? 'on' : 'off', await setMemoryEnabled(this.em(), userId, on));
			});
		}
		switch (sub) {
			case 'export':
				return this.export(interaction);
			case 'delete':
				return send(interaction, renderDeleteConfirm(userId, new Date()));
			default:
				return respondSoon(interaction, async () =>
					renderPrivacyInfo(this.container.config.urls, retentionSettings(this.container.config), await memoryEnabled(this.em(), userId)),
				);
		}
	}

	/** Deferred first (several reads and decryption), then the file as an edit of the private reply. */
	private async export(interaction: Command.ChatInputCommandInteraction) {
		await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		const data = await exportUserData(this.em(), interaction.user.id);
		const file = exportFile(data);
		const limit = (interaction as { attachmentSizeLimit?: number }).attachmentSizeLimit ?? DEFAULT_ATTACHMENT_LIMIT;
		if (file.bytes.length > limit) return send(interaction, { content: EXPORT_TOO_LARGE });
		await interaction.editReply({
			content: renderExportReady(data),
			files: [new AttachmentBuilder(file.bytes, { name: file.name, description: 'Your Haven data (JSON)' })],
			allowedMentions: NO_MENTIONS,
		});
	}
}
