import { AllFlowsPrecondition } from '@sapphire/framework';
import { PermissionFlagsBits, type Message, type PermissionsBitField } from 'discord.js';
import { GUILD_ADMIN_MESSAGE, GUILD_ONLY_MESSAGE } from '../lib/discord/info-views.ts';

/** Server settings commands: in a server, by a member with Manage Server (from the interaction's own permissions). */
export class GuildAdminPrecondition extends AllFlowsPrecondition {
	constructor(context: AllFlowsPrecondition.LoaderContext, options: AllFlowsPrecondition.Options = {}) {
		super(context, { ...options, name: 'GuildAdmin' });
	}

	override chatInputRun(interaction: { inGuild(): boolean; memberPermissions: Readonly<PermissionsBitField> | null }) {
		return this.check(interaction.inGuild(), interaction.memberPermissions);
	}

	override contextMenuRun(interaction: { inGuild(): boolean; memberPermissions: Readonly<PermissionsBitField> | null }) {
		return this.check(interaction.inGuild(), interaction.memberPermissions);
	}

	override messageRun(message: Message) {
		return this.check(message.inGuild(), message.member?.permissions ?? null);
	}

	private check(inGuild: boolean, permissions: Readonly<PermissionsBitField> | null) {
		if (!inGuild) return this.error({ identifier: 'GuildOnly', message: GUILD_ONLY_MESSAGE });
		return permissions?.has(PermissionFlagsBits.ManageGuild) ? this.ok() : this.error({ identifier: 'GuildAdmin', message: GUILD_ADMIN_MESSAGE });
	}
}
