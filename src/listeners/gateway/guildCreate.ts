import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { markJoined } from '../../lib/discord/guilds.ts';

/** Haven was added to a server. Logged by id and size only: a server's name is user-chosen text. */
export class GuildCreate extends Listener<typeof Events.GuildCreate> {
	constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.GuildCreate });
	}

	override async run(guild: Guild) {
		const total = this.container.client.guilds.cache.size;
		// Recorded first, so the log line never announces what the guilds table does not yet say.
		await markJoined(this.container.db.orm.em.fork(), [guild.id]);
		this.container.bot?.systemLog(`Joined a server (id ${guild.id}, ${guild.memberCount} members). Now in ${total} servers.`);
	}
}
