import { chmodSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { container } from '@sapphire/framework';
import { Events, type Client } from 'discord.js';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import {
	snowflakeAt,
	startFakeDiscord,
	type FakeDiscord,
	type FakeDiscordOptions,
	type RecordedRequest,
	type SlashCommandInput,
} from '../support/fake-discord.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';

/** People of the test world: an owner (in OWNER_IDS), a plain member, an admin (Manage Server through a role). */
export const OWNER_ID = snowflakeAt(1_450_000_000_000, 11);
export const MEMBER_ID = snowflakeAt(1_450_000_000_000, 12);
export const ADMIN_ID = snowflakeAt(1_450_000_000_000, 13);
export const LOG_CHANNEL_ID = snowflakeAt(1_600_000_000_000, 99);
export const VERSION = 'v0.3.0';

export interface BotWorld {
	fake: FakeDiscord;
	haven: TestHaven;
	/** Stands in for api.github.com (release check) and the bot-list API. */
	capture: CaptureServer;
	env: Record<string, string | undefined>;
	client: Client;
	privateGuildId: string;
	/** Start the service again on the same fake Discord and database (after `haven.stop()`). */
	restart(overrides?: Record<string, string | undefined>): Promise<TestHaven>;
	close(): Promise<void>;
}

export interface WorldOptions {
	fake?: FakeDiscordOptions;
	env?: Record<string, string | undefined>;
	/** More settings that need the capture server's address. */
	lateEnv?: (capture: CaptureServer) => Record<string, string | undefined>;
	/** Wait for clientReady and the bot's ready work (default true). */
	waitReady?: boolean;
}

/** The first guild is the private guild, with a #haven-log channel the bot may post in. */
export function worldGuilds(extra = 1): FakeDiscordOptions['guilds'] {
	return [
		{
			name: 'Haven HQ',
			members: [OWNER_ID, MEMBER_ID, { id: ADMIN_ID, roles: ['Moderator'] }],
			channels: [{ name: 'general' }, { id: LOG_CHANNEL_ID, name: 'haven-log' }],
		},
		...Array.from({ length: extra }, (_, i) => ({ name: `Guild ${i + 2}` })),
	];
}

export async function waitReady(client: Client): Promise<void> {
	if (!client.isReady()) await once(client, Events.ClientReady, { signal: AbortSignal.timeout(10_000) });
	// The bot's own ready work (startup line, integration, server table) runs in a listener: let it finish.
	await Promise.race([
		container.bot!.readied,
		new Promise((_, reject) => setTimeout(() => reject(new Error('bot ready work timed out')), 10_000).unref()),
	]);
}

export async function startBotWorld(options: WorldOptions = {}): Promise<BotWorld> {
	const capture = await startCaptureServer();
	capture.setResponse(200, 0, {
		tag_name: VERSION,
		html_url: 'https://github.com/haven-wellbeing/haven/releases/tag/v0.3.0',
		published_at: '2026-11-01T10:00:00Z',
	});
	const fake = await startFakeDiscord({ guilds: worldGuilds(), ...options.fake });
	const privateGuildId = fake.guilds.ids[0]!;
	const env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		OWNER_IDS: OWNER_ID,
		PRIVATE_GUILD_ID: privateGuildId,
		HAVEN_VERSION: VERSION,
		GITHUB_API_URL: capture.url,
		GITHUB_REPO: 'haven-wellbeing/haven',
		WEBSITE_URL: 'https://haven.test',
		SOURCE_URL: 'https://github.com/haven-wellbeing/haven',
		...options.env,
		...options.lateEnv?.(capture),
	});
	// As root, the embedded PostgreSQL runs as `postgres`, and mkdtemp makes the folder 0700.
	if (env.DATA_DIR) chmodSync(env.DATA_DIR, 0o711);
	let haven = await startTestHaven(env);
	if (options.waitReady !== false) await waitReady(haven.client!);
	const world: BotWorld = {
		fake,
		capture,
		env,
		privateGuildId,
		get haven() {
			return haven;
		},
		get client() {
			return haven.client!;
		},
		async restart(overrides = {}) {
			await haven.stop();
			haven = await startTestHaven({ ...env, ...overrides });
			await waitReady(haven.client!);
			return haven;
		},
		async close() {
			await haven.stop();
			await fake.close();
			await capture.close();
			await dropDatabase(env.DATABASE_URL);
			if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
		},
	};
	return world;
}

/** Send a slash command and wait for its callback (the first answer). */
export async function slash(
	fake: FakeDiscord,
	input: SlashCommandInput,
	timeoutMs = 3_000,
): Promise<{ callback: RecordedRequest; ix: ReturnType<FakeDiscord['sendSlashCommand']> }> {
	const ix = fake.sendSlashCommand(input);
	const callback = await ix.callback(timeoutMs);
	return { callback, ix };
}

/** All text of a message body: content, embed titles, descriptions, fields and footers. */
export function textOf(body: any): string {
	const data = body?.data ?? body ?? {};
	const parts: string[] = [data.content ?? ''];
	for (const embed of data.embeds ?? []) {
		parts.push(embed.title ?? '', embed.description ?? '', embed.footer?.text ?? '');
		for (const field of embed.fields ?? []) parts.push(`${field.name}: ${field.value}`);
	}
	return parts.filter(Boolean).join('\n');
}

/** Custom ids of the buttons of a message body. */
export function buttonsOf(body: any): { custom_id?: string; url?: string; label: string; disabled?: boolean }[] {
	const data = body?.data ?? body ?? {};
	return (data.components ?? []).flatMap((row: any) => row.components ?? []);
}
