import { escapeMarkdown } from 'discord.js';
import { COLOR } from '../discord/info-views.ts';
import type { View } from '../discord/reply.ts';
import { discordTime, excerpt, formatDuration, plural } from '../discord/text.ts';
import type { AiState } from './ai-switch.ts';
import type { BlockKind, BlockView } from './blocks.ts';
import type { ReleaseCheck } from './release-check.ts';
import type { ShardSnapshot } from './status.ts';

/** Views of the owner commands `/block`, `/unblock`, `/ai` and `/status`. Pure. */

const what = (kind: BlockKind, id: string) => (kind === 'user' ? `<@${id}> (${id})` : `server ${id}`);

export function renderBlocked(block: BlockView, created: boolean, left?: 'left' | 'not_in_server' | 'failed'): View {
	const lines = [
		created ? `Blocked ${what(block.kind, block.targetId)}.` : `${what(block.kind, block.targetId)} was already blocked; the reason is updated.`,
		`Reason: ${escapeMarkdown(block.reason)}`,
	];
	if (left === 'left') lines.push('Haven left that server.');
	if (left === 'not_in_server') lines.push('Haven is not in that server, so there was nothing to leave.');
	if (left === 'failed') lines.push('Haven could not leave that server (Discord refused); the block is in force anyway.');
	return { content: lines.join('\n') };
}

export function renderUnblocked(kind: BlockKind, targetId: string, lifted: boolean): View {
	return { content: lifted ? `Unblocked ${what(kind, targetId)}.` : `${what(kind, targetId)} is not blocked.` };
}

export function renderBlockList(blocks: readonly BlockView[]): View {
	const description = blocks.length
		? blocks
				.slice(0, 25)
				.map(
					(block) =>
						`**#${block.id}** ${what(block.kind, block.targetId)} · ${discordTime(block.createdAt, 'd')}${block.blockedBy ? ` by <@${block.blockedBy}>` : ''}\n> ${escapeMarkdown(excerpt(block.reason, 200))}`,
				)
				.join('\n')
		: 'Nobody is blocked.';
	return {
		embeds: [{ title: 'Blocks in force', color: COLOR, description, footer: { text: plural(blocks.length, 'block') } }],
	};
}

export function describeAi(state: AiState, keySet: boolean, configuredModel: string): string {
	if (!keySet) return 'not configured (no OPENAI_API_KEY)';
	const model = state.model ? `${state.model} (set by the owners; OPENAI_MODEL is ${configuredModel})` : configuredModel;
	return `${state.enabled ? 'on' : 'off: fixed replies only'} · model ${model}`;
}

export function renderAiState(state: AiState, keySet: boolean, configuredModel: string, notice?: string): View {
	const changed = state.updatedAt
		? `Last changed ${discordTime(state.updatedAt)}${state.updatedBy ? ` by <@${state.updatedBy}>` : ' from the command line'}.`
		: 'Never changed: the defaults apply.';
	return {
		content: notice ?? '',
		embeds: [{ title: 'AI', color: COLOR, description: `${describeAi(state, keySet, configuredModel)}\n${changed}` }],
	};
}

export interface OwnerStatusInput {
	version: string;
	uptimeSeconds: number;
	shards: readonly ShardSnapshot[];
	guilds: number;
	database: { ok: true; ms: number; describe: string } | { ok: false; problem: string };
	ai: string;
	blocks: number;
	release: ReleaseCheck | undefined;
}

export function renderOwnerStatus(input: OwnerStatusInput): View {
	const shards = input.shards.length
		? input.shards
				.map(
					(shard) =>
						`#${shard.id} ${shard.state}${shard.latencyMs === null ? '' : ` ${shard.latencyMs} ms`} · ${plural(shard.guilds, 'server')}`,
				)
				.join('\n')
		: 'none';
	const database = input.database.ok ? `up (${input.database.ms} ms) · ${input.database.describe}` : `unreachable: ${input.database.problem}`;
	const release = input.release
		? input.release.latest
			? `${input.release.state}: latest ${input.release.latest.tag} (checked ${discordTime(input.release.checkedAt, 'R')})`
			: `${input.release.state}: ${input.release.problem ?? 'no answer'} (checked ${discordTime(input.release.checkedAt, 'R')})`
		: 'not checked yet';
	return {
		embeds: [
			{
				title: 'Haven status',
				color: COLOR,
				fields: [
					{ name: 'Version', value: input.version, inline: true },
					{ name: 'Uptime', value: formatDuration(input.uptimeSeconds), inline: true },
					{ name: 'Servers', value: String(input.guilds), inline: true },
					{ name: 'Shards', value: shards, inline: false },
					{ name: 'Database', value: database, inline: false },
					{ name: 'AI', value: input.ai, inline: false },
					{ name: 'Blocks in force', value: String(input.blocks), inline: true },
					{ name: 'Release check', value: release, inline: false },
				],
			},
		],
	};
}
