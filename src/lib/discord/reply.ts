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
 * Runs `produce` and answers with its view. Fast work is answered in one call; work still running after
 * `deferAfterMs` gets a deferred (ephemeral) reply first and an edit when done. A failure propagates to the
 * error funnel, which then sees the deferral and edits.
 */
export async function respondSoon(interaction: RepliableInteraction, produce: () => Promise<View>, deferAfterMs = DEFER_AFTER_MS): Promise<void> {
	const work = produce();
	let timer: NodeJS.Timeout | undefined;
	const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), deferAfterMs)));
	try {
		const first = await Promise.race([work, slow]);
		if (first !== 'slow') return await send(interaction, first);
	} finally {
		clearTimeout(timer);
	}
	if (!interaction.deferred && !interaction.replied) await interaction.deferReply({ flags: MessageFlags.Ephemeral });
	await send(interaction, await work);
}

/** `respondSoon` for buttons: updates the message the button is on (deferring the update when the work is slow). */
export async function updateSoon(
	interaction: MessageComponentInteraction,
	produce: () => Promise<View>,
	deferAfterMs = DEFER_AFTER_MS,
): Promise<void> {
	const work = produce();
	let timer: NodeJS.Timeout | undefined;
	const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), deferAfterMs)));
	try {
		const first = await Promise.race([work, slow]);
		if (first !== 'slow') return void (await interaction.update({ ...first, allowedMentions: NO_MENTIONS }));
	} finally {
		clearTimeout(timer);
	}
	await interaction.deferUpdate();
	await interaction.editReply({ ...(await work), allowedMentions: NO_MENTIONS });
}
