// The wellbeing test world: the real service on the fake Discord (test/bot/support.ts) with the fake OpenAI and field
// encryption on, in a server ("Quiet Corner") with a few members who have display names.
import { container } from '@sapphire/framework';
import { MessageFlags } from 'discord.js';
import assert from 'node:assert/strict';
import { startBotWorld, type BotWorld } from '../bot/support.ts';
import { snowflakeAt, type FakeDiscord, type RecordedRequest, type SentInteraction, type SlashCommandInput } from '../support/fake-discord.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';

export const ENCRYPTION_KEY = 'b2'.repeat(32);
export const OWNER = snowflakeAt(1_480_000_000_000, 1);

/** A fresh user id per call, so per-user cooldowns of earlier tests never interfere. */
let nextUser = 10;
export const someone = () => snowflakeAt(1_481_000_000_000, nextUser++);

export const JUNO = snowflakeAt(1_480_000_000_000, 2);
export const KAI = snowflakeAt(1_480_000_000_000, 3);

export interface WellbeingWorld {
	world: BotWorld;
	fake: FakeDiscord;
	openai: FakeOpenAi;
	guildId: string;
	otherGuildId: string;
	close(): Promise<void>;
}

export async function startWellbeingWorld(env: Record<string, string | undefined> = {}): Promise<WellbeingWorld> {
	const openai = await startFakeOpenAi();
	let world: BotWorld;
	try {
		world = await startBotWorld({
			fake: {
				guilds: [
					{
						name: 'Quiet Corner',
						members: [OWNER, { id: JUNO, nick: 'Juno *the* Brave' }, { id: KAI, nick: '@everyone Kai' }],
					},
					{ name: 'Elsewhere', members: [OWNER] },
				],
			},
			env: { OWNER_IDS: OWNER, OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: openai.url, OPENAI_TIMEOUT_MS: '5000', ENCRYPTION_KEY, ...env },
		});
	} catch (error) {
		await openai.close();
		throw error;
	}
	return {
		world,
		fake: world.fake,
		openai,
		guildId: world.fake.guilds.ids[0]!,
		otherGuildId: world.fake.guilds.ids[1]!,
		async close() {
			await world.close();
			await openai.close();
		},
	};
}

export function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
	return container.db.orm.em.fork().getConnection().execute<T[]>(query, params);
}

export async function counter(name: string): Promise<number> {
	const rows = await sql<{ value: string }>('select value from stat_counters where name = ?', [name]);
	return Number(rows[0]?.value ?? 0);
}

/** Send a slash command; the first callback. */
export async function run(
	fake: FakeDiscord,
	input: SlashCommandInput,
	timeoutMs = 3_000,
): Promise<{ callback: RecordedRequest; ix: SentInteraction }> {
	const ix = fake.sendSlashCommand(input);
	return { callback: await ix.callback(timeoutMs), ix };
}

/** The message body a callback (type 4 or 7) carries. */
export function data(request: RecordedRequest): any {
	return request.body?.data ?? request.body ?? {};
}

/** All text of a message body: content, embed titles, descriptions, fields and footers. */
export function textOf(body: any): string {
	const d = body?.data ?? body ?? {};
	const parts: string[] = [d.content ?? ''];
	for (const embed of d.embeds ?? []) {
		parts.push(embed.title ?? '', embed.description ?? '', embed.footer?.text ?? '');
		for (const field of embed.fields ?? []) parts.push(`${field.name}: ${field.value}`);
	}
	return parts.filter(Boolean).join('\n');
}

export function buttonsOf(body: any): { custom_id?: string; label: string; disabled?: boolean }[] {
	const d = body?.data ?? body ?? {};
	return (d.components ?? []).flatMap((row: any) => row.components ?? []);
}

export function isEphemeral(body: any): boolean {
	const d = body?.data ?? body ?? {};
	return ((d.flags ?? 0) & MessageFlags.Ephemeral) === MessageFlags.Ephemeral;
}

export function assertPrivate(request: RecordedRequest): void {
	assert.ok(isEphemeral(request.body), 'ephemeral');
	assert.deepEqual(data(request).allowed_mentions, { parse: [] }, 'pings nobody');
}

export function assertPublic(request: RecordedRequest): void {
	assert.ok(!isEphemeral(request.body), 'public');
	assert.deepEqual(data(request).allowed_mentions, { parse: [] }, 'pings nobody');
}

/** The chat completions the fake OpenAI received. */
export function completions(openai: FakeOpenAi): { system: string; user: string }[] {
	return openai.requests
		.filter((r) => r.path === '/v1/chat/completions')
		.map((r) => ({ system: String(r.body.messages?.[0]?.content ?? ''), user: String(r.body.messages?.at(-1)?.content ?? '') }));
}
