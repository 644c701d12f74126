import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { readChangelog } from '../lib/operations/changelog.ts';
import { isOwner } from '../lib/discord/command.ts';
import { OWNER_ONLY_MESSAGE, renderChangelog } from '../lib/discord/info-views.ts';
import { send, updateSoon } from '../lib/discord/reply.ts';

/** Previous/Next of `/changelog` (custom id `changelog:<page>`); the file is read again, so edits show at once. */
export class ChangelogPages extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		const match = /^changelog:(-?\d{1,4})$/.exec(interaction.customId);
		return match ? this.some(Number(match[1])) : this.none();
	}

	override async run(interaction: ButtonInteraction, page: number) {
		if (!isOwner(interaction.user.id)) return send(interaction, { content: OWNER_ONLY_MESSAGE });
		await updateSoon(interaction, async () => renderChangelog(await readChangelog(this.container.config.patchNotesPath), page));
	}
}
