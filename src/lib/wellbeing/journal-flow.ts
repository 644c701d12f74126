import { container } from '@sapphire/framework';
import type { RepliableInteraction } from 'discord.js';
import { aiSafetyIdentifier } from '../companion/companion.ts';
import { respondSoon, send } from '../discord/reply.ts';
import { recordScreened, screenPrivately } from '../safety/screen-command-text.ts';
import { ENTRY_MAX_LENGTH, LIMIT_REACHED, reflect, renderWritten, saveReflection, writeEntry, type JournalModal } from './journal.ts';

/**
 * A submitted journal entry: screened first (a possible crisis gets the resources privately before anything else),
 * then saved encrypted, then, when asked for, a short reflection (the AI told to be careful after a screened entry,
 * or the fixed one), stored with the entry. All answers are ephemeral.
 */
export async function handleJournalEntry(interaction: RepliableInteraction, options: JournalModal, text: string): Promise<void> {
	const content = text.trim().slice(0, ENTRY_MAX_LENGTH);
	if (!content) return send(interaction, { content: 'Your entry was empty: nothing was saved.' });
	const em = () => container.db.orm.em.fork();
	const deps = { em, warn: (m: string) => container.logger.warn(m) };
	const userId = interaction.user.id;
	const screened = await screenPrivately(content, { userId, guildId: interaction.guildId }, deps);
	if (screened) await send(interaction, { content: screened.resources });
	await respondSoon(interaction, async () => {
		const saved = await writeEntry(em(), { userId, mood: options.mood, content });
		if (!saved) return { content: LIMIT_REACHED };
		if (!options.reflect) return renderWritten(saved.total);
		const { ai, aiIdentifierKey } = container;
		const reflection = await reflect(
			ai,
			{ content, mood: options.mood },
			{ careful: screened !== null, user: aiSafetyIdentifier(userId, aiIdentifierKey) },
		);
		await saveReflection(em(), userId, saved.id, reflection.value);
		return renderWritten(saved.total, reflection);
	});
	if (screened) await recordScreened(screened, interaction.guildId, deps);
}
