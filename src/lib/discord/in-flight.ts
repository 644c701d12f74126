import { Events, type SapphireClient } from '@sapphire/framework';

/**
 * The Discord work this instance is doing right now: commands and context menus being run, buttons and modals being
 * handled, direct messages and mentions being answered. At shutdown, startHaven waits for it (bounded) before it leaves
 * Discord and closes the database, so a check-in, a crisis event or a feedback that a person is being answered about
 * is written and answered rather than cut off halfway (src/index.ts, shutdown).
 */
export class InFlight {
	#count = 0;
	#waiters: (() => void)[] = [];

	get size(): number {
		return this.#count;
	}

	/** Counts one piece of work until the returned function is called (once; later calls do nothing). */
	start(): () => void {
		this.#count++;
		let ended = false;
		return () => {
			if (ended) return;
			ended = true;
			if (--this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
		};
	}

	/** Counts `work` until it settles, and returns it. */
	track<T>(work: Promise<T>): Promise<T> {
		const end = this.start();
		return work.finally(end);
	}

	/** Resolves true once nothing is in flight, or false after `timeoutMs` with work still running. */
	idle(timeoutMs: number): Promise<boolean> {
		if (this.#count === 0) return Promise.resolve(true);
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
				resolve(false);
			}, timeoutMs);
			const wake = () => {
				clearTimeout(timer);
				resolve(true);
			};
			this.#waiters.push(wake);
		});
	}
}

/**
 * Counts the client's commands (from Sapphire's run event to its finish event, which it emits whatever the outcome) and
 * its buttons and modals (the interaction-handlers store's `run`, which Sapphire's interaction listener awaits).
 * Messages are counted by their listener (src/listeners/messages/messageCreate.ts).
 */
export function watchDiscordWork(client: SapphireClient, inFlight: InFlight): void {
	const running = new Map<string, () => void>();
	const begin = (interaction: { id: string }) => running.set(interaction.id, inFlight.start());
	const finish = (interaction: { id: string }) => {
		running.get(interaction.id)?.();
		running.delete(interaction.id);
	};
	client.on(Events.ChatInputCommandRun, begin);
	client.on(Events.ChatInputCommandFinish, finish);
	client.on(Events.ContextMenuCommandRun, begin);
	client.on(Events.ContextMenuCommandFinish, finish);
	const handlers = client.stores.get('interaction-handlers');
	const run = handlers.run.bind(handlers);
	handlers.run = (interaction) => inFlight.track(run(interaction));
}
