import { CorePreconditions, type Command } from '@sapphire/framework';
import type { RateLimitManager } from '@sapphire/ratelimits';

/**
 * Sapphire's own Cooldown precondition (same behaviour; commands configure it with `cooldownDelay`), plus a way to
 * let go of its buckets: each RateLimitManager starts a 30 s sweep interval that would keep the process alive after
 * shutdown. This piece has the built-in's name, so it replaces it; when the stores are unloaded
 * at shutdown, every bucket is cleared and its interval stopped.
 */
class TrackedBuckets extends WeakMap<Command, RateLimitManager<string>> {
	readonly managers = new Set<RateLimitManager<string>>();

	override set(command: Command, manager: RateLimitManager<string>): this {
		this.managers.add(manager);
		return super.set(command, manager);
	}
}

export class CooldownPrecondition extends CorePreconditions.Cooldown {
	override buckets: TrackedBuckets = new TrackedBuckets();

	/** Forget every bucket and stop the sweep intervals. */
	release(): void {
		for (const manager of this.buckets.managers) {
			manager.clear();
			manager.sweep(); // an empty manager stops its interval
		}
		this.buckets.managers.clear();
		this.buckets = new TrackedBuckets();
	}

	override onUnload() {
		this.release();
		return super.onUnload();
	}
}
