import { AllFlowsPrecondition } from '@sapphire/framework';
import { isOwner } from '../lib/discord/command.ts';
import { OWNER_ONLY_MESSAGE } from '../lib/discord/info-views.ts';

/** Owner commands: only the users in OWNER_IDS. Being in PRIVATE_GUILD_ID is not authorisation. */
export class OwnerOnlyPrecondition extends AllFlowsPrecondition {
	constructor(context: AllFlowsPrecondition.LoaderContext, options: AllFlowsPrecondition.Options = {}) {
		super(context, { ...options, name: 'OwnerOnly' });
	}

	override chatInputRun(interaction: { user: { id: string } }) {
		return this.check(interaction.user.id);
	}

	override contextMenuRun(interaction: { user: { id: string } }) {
		return this.check(interaction.user.id);
	}

	override messageRun(message: { author: { id: string } }) {
		return this.check(message.author.id);
	}

	private check(userId: string) {
		return isOwner(userId) ? this.ok() : this.error({ identifier: 'OwnerOnly', message: OWNER_ONLY_MESSAGE });
	}
}
