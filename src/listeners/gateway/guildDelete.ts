import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { markLeft } from '../../lib/discord/guilds.ts';

/** Haven was removed from a server (outages arrive as guildUnavailable instead). */
export class GuildDelete extends Listener<typeof Events.GuildDelete> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.GuildDelete });
	}

	override async run(guild: Guild) {
		const total = this.container.client.guilds.cache.size;
		// Recorded first, so the log line never announces what the guilds table does not yet say.
		await markLeft(this.container.db.orm.em.fork(), guild.id);
		this.container.bot?.systemLog(`Left a server (id ${guild.id}). Now in ${total} servers.`);
	}
}
