import { container } from '@sapphire/framework';
import { MessageFlags, type ButtonInteraction, type ModalSubmitInteraction, type RepliableInteraction } from 'discord.js';
import { getGuildSettings, type Feature } from '../settings/guild-settings.ts';
import { describeError, failureMessage, newErrorId } from '../discord/interaction-errors.ts';
import { DEFER_AFTER_MS, deferWhenSlow, NO_MENTIONS, respondSoon, send, type View } from '../discord/reply.ts';

/**
 * Answering for the wellbeing and community commands. Personal answers (check-ins, coping, ghost letters) are
 * ephemeral through `respondSoon`; community answers (jokes, compliments, games) are public. Both defer when the work
 * (the AI) is slow, and never ping anyone.
 */

/** Like `respondSoon`, with a public or ephemeral first answer. */
export async function answerSoon(
	interaction: RepliableInteraction,
	produce: () => Promise<View>,
	{ ephemeral }: { ephemeral: boolean },
	deferAfterMs = DEFER_AFTER_MS,
): Promise<void> {
	if (ephemeral) return respondSoon(interaction, produce, deferAfterMs);
	await deferWhenSlow(
		produce,
		{
			answer: async (view) => {
				if (interaction.deferred || interaction.replied) return send(interaction, view);
				await interaction.reply({ ...view, allowedMentions: NO_MENTIONS });
			},
			defer: async () => {
				if (!interaction.deferred && !interaction.replied) await interaction.deferReply();
			},
			edit: (view) => send(interaction, view),
		},
		deferAfterMs,
	);
}

/** An ephemeral message after the interaction was answered (or the first answer when it was not). */
export async function whisper(interaction: RepliableInteraction, content: string): Promise<void> {
	if (interaction.deferred || interaction.replied) {
		await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
	} else {
		await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
	}
}

/**
 * For buttons on public messages: a failure must never overwrite the shared message (the general error funnel edits a
 * deferred interaction's message). The clicker alone gets the error id; the log gets the usual line.
 */
export async function guardComponent(interaction: ButtonInteraction | ModalSubmitInteraction, work: () => Promise<void>): Promise<void> {
	try {
		await work();
	} catch (error) {
		const id = newErrorId();
		container.logger.error(`component ${interaction.customId.split(':')[0]} failed [error ${id}]: ${describeError(error)}`);
		await whisper(interaction, failureMessage(id)).catch(() => undefined);
	}
}

export const FEATURE_OFF: Record<Extract<Feature, 'games' | 'ghostLetters'>, string> = {
	games: 'Games are turned off in this server by its admins. You can still use them in a direct message with Haven.',
	ghostLetters: 'Ghost letters are turned off in this server by its admins. You can still write one in a direct message with Haven.',
};

/** Is a feature on where this interaction happens? Always in DMs; in a server, its /guildsettings decide. */
export async function featureOn(guildId: string | null, feature: Feature): Promise<boolean> {
	if (!guildId) return true;
	const settings = await getGuildSettings(container.db.orm.em.fork(), guildId);
	return settings.features[feature];
}
