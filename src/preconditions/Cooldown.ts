import { BucketScope, CorePreconditions, Identifiers, type Command, type Precondition } from '@sapphire/framework';
import type { ChatInputCommandInteraction, ContextMenuCommandInteraction } from 'discord.js';
import { TimestampStyles, time } from 'discord.js';
import type { RateLimiterRedis } from 'rate-limiter-flexible';
import { consume } from '../lib/core/shared-store.ts';
import { TrackedBuckets } from '../lib/framework/cooldown-buckets.ts';

type CooldownContext = Precondition.Context & { scope?: BucketScope; delay: number; limit?: number; filteredUsers?: string[] };

/**
 * Sapphire's own Cooldown precondition (same behaviour; commands configure it with `cooldownDelay`), plus a way to
 * let go of its buckets (src/lib/framework/cooldown-buckets.ts). This piece has the built-in's name, so it replaces
 * it; when the stores are unloaded at shutdown, every bucket is cleared and its interval stopped.
 *
 * With REDIS_URL the cooldowns are kept in the shared store (src/lib/core/shared-store.ts), so a command used through
 * one instance of a fleet is cooling down on every other: one counter per command and person, opened by the first use
 * and expiring after the delay, as Sapphire's buckets do. While the store is unavailable, Sapphire's in-memory buckets
 * decide, as without REDIS_URL.
 */
export class CooldownPrecondition extends CorePreconditions.Cooldown {
	override buckets: TrackedBuckets = new TrackedBuckets();
	readonly #shared = new WeakMap<Command, RateLimiterRedis>();

	override chatInputRun(interaction: ChatInputCommandInteraction, command: Command, context: CooldownContext): Precondition.Result {
		return this.#sharedRun(interaction, command, context, 'chat input') ?? super.chatInputRun(interaction, command, context);
	}

	override contextMenuRun(interaction: ContextMenuCommandInteraction, command: Command, context: CooldownContext): Precondition.Result {
		return this.#sharedRun(interaction, command, context, 'context menu') ?? super.contextMenuRun(interaction, command, context);
	}

	/** Forget every bucket and stop the sweep intervals. */
	release(): void {
		this.buckets.release();
		this.buckets = new TrackedBuckets();
	}

	override onUnload() {
		this.release();
		return super.onUnload();
	}

	/** The use counted in the shared store; `undefined` when there is none (or it is unavailable) or no cooldown applies. */
	#sharedRun(
		interaction: ChatInputCommandInteraction | ContextMenuCommandInteraction,
		command: Command,
		context: CooldownContext,
		kind: string,
	): Precondition.AsyncResult | undefined {
		const store = this.container.sharedStore;
		if (!store?.available() || context.external || !context.delay || context.filteredUsers?.includes(interaction.user.id)) return undefined;
		let limiter = this.#shared.get(command);
		if (!limiter) this.#shared.set(command, (limiter = store.limiter(`cooldown:${command.name}`, context.limit ?? 1, context.delay)));
		const memory = () =>
			interaction.isChatInputCommand()
				? super.chatInputRun(interaction, command, context)
				: super.contextMenuRun(interaction as ContextMenuCommandInteraction, command, context);
		return consume(store, limiter, bucketId(interaction, context.scope)).then((use) => {
			if (!use) return memory(); // the store failed: decide in memory
			if (use.allowed) return this.ok();
			const nextAvailable = time(Math.floor((Date.now() + use.msBeforeNext) / 1000), TimestampStyles.RelativeTime);
			return this.error({
				identifier: Identifiers.PreconditionCooldown,
				message: `There is a cooldown in effect for this ${kind} command. It'll be available ${nextAvailable}.`,
				context: { remaining: use.msBeforeNext },
			});
		});
	}
}

/** Whose cooldown a use counts against, as Sapphire's Cooldown decides it. */
function bucketId(interaction: ChatInputCommandInteraction | ContextMenuCommandInteraction, scope: BucketScope | undefined): string {
	switch (scope) {
		case BucketScope.Global:
			return 'global';
		case BucketScope.Channel:
			return interaction.channelId;
		case BucketScope.Guild:
			return interaction.guildId ?? interaction.channelId;
		default:
			return interaction.user.id;
	}
}
