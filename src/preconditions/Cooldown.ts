import { CorePreconditions } from '@sapphire/framework';
import { TrackedBuckets } from '../lib/framework/cooldown-buckets.ts';

/**
 * Sapphire's own Cooldown precondition (same behaviour; commands configure it with `cooldownDelay`), plus a way to
 * let go of its buckets (src/lib/framework/cooldown-buckets.ts). This piece has the built-in's name, so it replaces
 * it; when the stores are unloaded at shutdown, every bucket is cleared and its interval stopped.
 */
export class CooldownPrecondition extends CorePreconditions.Cooldown {
	override buckets: TrackedBuckets = new TrackedBuckets();

	/** Forget every bucket and stop the sweep intervals. */
	release(): void {
		this.buckets.release();
		this.buckets = new TrackedBuckets();
	}

	override onUnload() {
		this.release();
		return super.onUnload();
	}
}
