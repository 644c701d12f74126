import { container } from '@sapphire/framework';
import type { EntityManager } from '@mikro-orm/postgresql';
import { describeError } from '../discord/interaction-errors.ts';
import { NO_MENTIONS } from '../discord/reply.ts';
import { getGuildSettings } from '../settings/guild-settings.ts';
import { moodOf } from './checkins.ts';

/**
 * Sharing a check-in in the server's check-in channel (`/guildsettings checkin-channel`): only when the person chose
 * to (`/checkin log share:True`), and only the mood and intensity, never the note. The post names the person without
 * pinging anyone.
 */

export type ShareResult = 'shared' | 'no-channel' | 'failed';

export function renderShared(userId: string, mood: string, intensity: number): string {
	const m = moodOf(mood);
	return `${m.emoji} <@${userId}> checked in: **${m.label}**, ${intensity}/5. A kind word goes a long way.`;
}

export async function shareCheckIn(
	em: EntityManager,
	guildId: string,
	input: { userId: string; mood: string; intensity: number },
): Promise<{ result: ShareResult; channelId?: string }> {
	const { checkinChannelId } = await getGuildSettings(em, guildId);
	if (!checkinChannelId) return { result: 'no-channel' };
	try {
		const channel = await container.client.channels.fetch(checkinChannelId);
		if (!channel?.isSendable()) return { result: 'failed', channelId: checkinChannelId };
		await channel.send({ content: renderShared(input.userId, input.mood, input.intensity), allowedMentions: NO_MENTIONS });
		return { result: 'shared', channelId: checkinChannelId };
	} catch (error) {
		container.logger.warn(`Could not share a check-in in the check-in channel: ${describeError(error)}`);
		return { result: 'failed', channelId: checkinChannelId };
	}
}

export function shareNote(share: { result: ShareResult; channelId?: string }): string {
	switch (share.result) {
		case 'shared':
			return `Shared in <#${share.channelId}>: your mood and intensity only, never your note.`;
		case 'no-channel':
			return 'This server has no check-in channel (`/guildsettings checkin-channel`), so nothing was shared.';
		default:
			return `Haven could not post in <#${share.channelId}> (missing permission?), so nothing was shared.`;
	}
}
