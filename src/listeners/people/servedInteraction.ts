import { Events, Listener } from '@sapphire/framework';
import type { Interaction } from 'discord.js';
import { describeError } from '../../lib/discord/interaction-errors.ts';
import { recordServed } from '../../lib/operations/served.ts';

/** A person's command (slash or context menu) counts them as served (src/lib/operations/served.ts). */
export class ServedInteraction extends Listener<typeof Events.InteractionCreate> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.InteractionCreate });
	}

	override async run(interaction: Interaction) {
		if (!interaction.isChatInputCommand() && !interaction.isContextMenuCommand()) return;
		if (interaction.user.bot) return;
		await recordServed(this.container.db.orm.em.fork(), interaction.user.id).catch((error: unknown) =>
			this.container.logger.warn(`Could not record a served person: ${describeError(error)}`),
		);
	}
}
