import {
	MessageFlags,
	type APIActionRowComponent,
	type APIComponentInMessageActionRow,
	type APIEmbed,
	type MessageComponentInteraction,
	type RepliableInteraction,
} from 'discord.js';

/**
 * Answering interactions. Every answer is ephemeral (`flags`, never `ephemeral: true`) and pings nobody
 * (`allowedMentions: { parse: [] }`, on top of the client's default). `send` picks reply, editReply or followUp from
 * the interaction's state, so any code path (including the error funnel) can answer at any time.
 */

/** What render functions return: plain Discord JSON, testable without Discord. */
export interface View {
	content?: string;
	embeds?: APIEmbed[];
	components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
}

export const NO_MENTIONS = { parse: [] as [] };

export async function send(interaction: RepliableInteraction, view: View): Promise<void> {
	if (interaction.deferred && !interaction.replied) {
		await interaction.editReply({ ...view, allowedMentions: NO_MENTIONS });
	} else if (interaction.replied) {
		await interaction.followUp({ ...view, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
	} else {
		await interaction.reply({ ...view, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
	}
}

/** Past this, an answer is deferred first: Discord drops interactions not answered within 3 s. */
export const DEFER_AFTER_MS = 1_500;

/**
 * The one race behind every "answer soon": `produce` runs, and if it is done within `deferAfterMs` its result goes to
 * `answer` (one call to Discord). If it is still running then, `defer` acknowledges the interaction first and `edit`
 * (default: `answer`) gets the result when it comes. A failure of the work propagates: before the deferral, nothing
 * was sent; after it, the caller (the error funnel) sees a deferred interaction.
 */
export async function deferWhenSlow<T>(
	produce: () => Promise<T>,
	steps: { answer: (result: T) => Promise<void>; defer: () => Promise<void>; edit?: (result: T) => Promise<void> },
	deferAfterMs = DEFER_AFTER_MS,
): Promise<void> {
	const work = produce();
	const slow = Symbol('slow');
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<typeof slow>((resolve) => (timer = setTimeout(() => resolve(slow), deferAfterMs)));
	try {
		const first = await Promise.race([work, late]);
		if (first !== slow) return await steps.answer(first as T);
	} finally {
		clearTimeout(timer);
	}
	await steps.defer();
	await (steps.edit ?? steps.answer)(await work);
}

/**
 * Runs `produce` and answers with its view. Fast work is answered in one call; work still running after
 * `deferAfterMs` gets a deferred (ephemeral) reply first and an edit when done. A failure propagates to the
 * error funnel, which then sees the deferral and edits.
 */
export async function respondSoon(interaction: RepliableInteraction, produce: () => Promise<View>, deferAfterMs = DEFER_AFTER_MS): Promise<void> {
	await deferWhenSlow(
		produce,
		{
			answer: (view) => send(interaction, view),
			defer: async () => {
				if (!interaction.deferred && !interaction.replied) await interaction.deferReply({ flags: MessageFlags.Ephemeral });
			},
		},
		deferAfterMs,
	);
}

/** `respondSoon` for buttons: updates the message the button is on (deferring the update when the work is slow). */
export async function updateSoon(
	interaction: MessageComponentInteraction,
	produce: () => Promise<View>,
	deferAfterMs = DEFER_AFTER_MS,
): Promise<void> {
	await deferWhenSlow(
		produce,
		{
			answer: async (view) => void (await interaction.update({ ...view, allowedMentions: NO_MENTIONS })),
			defer: async () => void (await interaction.deferUpdate()),
			edit: async (view) => void (await interaction.editReply({ ...view, allowedMentions: NO_MENTIONS })),
		},
		deferAfterMs,
	);
}
