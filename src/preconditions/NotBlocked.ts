import { AllFlowsPrecondition, type ChatInputCommand, type ContextMenuCommand } from '@sapphire/framework';
import { HavenCommand } from '../lib/discord/command.ts';
import { BLOCKED_MESSAGE } from '../lib/operations/blocks.ts';

/**
 * Every command, before its own checks and cooldown: a blocked person, or anyone in a blocked server, gets a short
 * polite refusal (src/lib/operations/blocks.ts). Crisis help (`neverBlocked` in the definition) is never refused.
 */
export class NotBlockedPrecondition extends AllFlowsPrecondition {
	constructor(context: AllFlowsPrecondition.LoaderContext, options: AllFlowsPrecondition.Options = {}) {
		// A position makes it a global precondition; 20 runs it right after Sapphire's `Enabled` (10).
		super(context, { ...options, name: 'NotBlocked', position: 20 });
	}

	override chatInputRun(interaction: { user: { id: string }; guildId: string | null }, command: ChatInputCommand) {
		return this.check(interaction.user.id, interaction.guildId, command);
	}

	override contextMenuRun(interaction: { user: { id: string }; guildId: string | null }, command: ContextMenuCommand) {
		return this.check(interaction.user.id, interaction.guildId, command);
	}

	override messageRun() {
		return this.ok();
	}

	private async check(userId: string, guildId: string | null, command: ChatInputCommand | ContextMenuCommand) {
		if (command instanceof HavenCommand && command.definition.neverBlocked) return this.ok();
		return (await this.container.blocks.isBlocked(userId, guildId)) ? this.error({ identifier: 'Blocked', message: BLOCKED_MESSAGE }) : this.ok();
	}
}
