import type { Command } from '@sapphire/framework';
import type { RateLimitManager } from '@sapphire/ratelimits';

/**
 * The buckets of Haven's Cooldown precondition (src/preconditions/Cooldown.ts, which replaces Sapphire's built-in of
 * the same name). Sapphire's Cooldown keeps one RateLimitManager per command in its `buckets` WeakMap, created
 * through `buckets.set`, and each manager starts a 30 s sweep interval that would keep the process alive after
 * shutdown. A WeakMap cannot be walked, so this one also remembers every manager it is given, and `release` clears
 * them (an empty manager stops its interval).
 */
export class TrackedBuckets extends WeakMap<Command, RateLimitManager<string>> {
	readonly managers = new Set<RateLimitManager<string>>();

	override set(command: Command, manager: RateLimitManager<string>): this {
		this.managers.add(manager);
		return super.set(command, manager);
	}

	/** Forget every manager and stop its sweep interval. */
	release(): void {
		for (const manager of this.managers) {
			manager.clear();
			manager.sweep(); // an empty manager stops its interval
		}
		this.managers.clear();
	}
}
