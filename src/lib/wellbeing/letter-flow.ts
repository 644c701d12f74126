import { container } from '@sapphire/framework';
import type { RepliableInteraction } from 'discord.js';
import { respondSoon, send } from '../discord/reply.ts';
import { keepLetter, LET_GO, LETTER_MAX_LENGTH, LIMIT_REACHED, renderKept, type LetterMode } from './ghost-letters.ts';
import { recordScreened, screenPrivately } from '../safety/screen-command-text.ts';

/**
 * A written ghost letter, from the command's option or from the writing box (modal): kept encrypted or let go, answered
 * privately. A letter that screens as a possible crisis gets the resources first, as all screened text does; "let go" still stores
 * nothing (the counted event holds no text and no user id).
 */
export async function handleLetter(interaction: RepliableInteraction, mode: LetterMode, text: string): Promise<void> {
	const letter = text.trim().slice(0, LETTER_MAX_LENGTH);
	if (!letter) return send(interaction, { content: 'Your letter was empty: nothing was kept.' });
	const em = () => container.db.orm.em.fork();
	const deps = { em, warn: (m: string) => container.logger.warn(m) };
	const screened = await screenPrivately(letter, { userId: interaction.user.id, guildId: interaction.guildId }, deps);
	if (screened) await send(interaction, { content: screened.resources });
	await respondSoon(interaction, async () => {
		if (mode === 'letgo') return { content: LET_GO };
		const kept = await keepLetter(em(), interaction.user.id, letter);
		return kept ? renderKept(kept.total) : { content: LIMIT_REACHED };
	});
	if (screened) await recordScreened(screened, interaction.guildId, deps);
}
