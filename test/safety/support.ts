// The safety system's test world: the real service on the fake Discord (test/bot/support.ts) with the fake OpenAI,
// field encryption on, and a server with #general, #mod-alerts (moderators only) and #rules (read-only for Haven).
import { once } from 'node:events';
import { after, before, beforeEach } from 'node:test';
import { container } from '@sapphire/framework';
import { safetyOutcomes, type CheckInOutcome, type CommandOutcome, type MessageOutcome } from '../../src/lib/safety/flows.ts';
import { startBotWorld, type BotWorld } from '../bot/support.ts';
import { snowflakeAt, type FakeDiscord, type RecordedRequest } from '../support/fake-discord.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';

export const OWNER = snowflakeAt(1_470_000_000_000, 1);
export const ALICE = snowflakeAt(1_470_000_000_000, 2);
export const BOB = snowflakeAt(1_470_000_000_000, 3);
export const CAROL = snowflakeAt(1_470_000_000_000, 4);
export const MOD = snowflakeAt(1_470_000_000_000, 5);
export const ENCRYPTION_KEY = 'a1'.repeat(32);
export const AI_REPLY = 'I hear you, and I am glad you said something. Call 555-123-4567 any time.';

export interface SafetyWorld {
	world: BotWorld;
	fake: FakeDiscord;
	openai: FakeOpenAi;
	guildId: string;
	general: string;
	modAlerts: string;
	rules: string;
	moderatorRole: string;
	close(): Promise<void>;
}

export async function startSafetyWorld(env: Record<string, string | undefined> = {}): Promise<SafetyWorld> {
	const openai = await startFakeOpenAi();
	openai.reply = AI_REPLY;
	let world: BotWorld;
	try {
		world = await startBotWorld({
			fake: {
				guilds: [
					{ name: 'Safe Harbour', members: [OWNER, ALICE, BOB, CAROL, { id: MOD, roles: ['Moderator'] }] },
					{ name: 'Other Place', members: [OWNER, ALICE] },
				],
			},
			env: {
				OWNER_IDS: OWNER,
				OPENAI_API_KEY: 'sk-test-key',
				OPENAI_BASE_URL: openai.url,
				OPENAI_TIMEOUT_MS: '1500',
				ENCRYPTION_KEY,
				...env,
			},
		});
	} catch (error) {
		await openai.close();
		throw error;
	}
	const fake = world.fake;
	const guildId = fake.guilds.ids[0]!;
	const guild = fake.guild(guildId)!;
	const channel = (name: string) => guild.channels.find((c) => c.name === name)!.id as string;
	return {
		world,
		fake,
		openai,
		guildId,
		general: channel('general'),
		modAlerts: channel('mod-alerts'),
		rules: channel('rules'),
		moderatorRole: guild.roles.find((r) => r.name === 'Moderator')!.id,
		async close() {
			// Haven first, then the fakes it talks to.
			await world.close();
			await openai.close();
		},
	};
}

/** The next outcome of a safety flow (register before triggering it). */
export function nextOutcome(kind: 'message'): Promise<MessageOutcome>;
export function nextOutcome(kind: 'command'): Promise<CommandOutcome>;
export function nextOutcome(kind: 'checkIn'): Promise<CheckInOutcome>;
export async function nextOutcome(kind: 'message' | 'command' | 'checkIn'): Promise<unknown> {
	const [outcome] = await once(safetyOutcomes, kind, { signal: AbortSignal.timeout(10_000) });
	return outcome;
}

/** Bot messages posted to a channel (REST), in order. */
export function postsTo(fake: FakeDiscord, channelId: string): RecordedRequest[] {
	return fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`);
}

/** The DM channel id between the bot and a user. */
export function dmOf(fake: FakeDiscord, userId: string): string {
	return fake.dmChannel(userId).id as string;
}

export function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
	return container.db.orm.em.fork().getConnection().execute<T[]>(query, params);
}

export async function counter(name: string): Promise<number> {
	const rows = await sql<{ value: string }>('select value from stat_counters where name = ?', [name]);
	return Number(rows[0]?.value ?? 0);
}

/** The chat completions the fake OpenAI received, and whether each was told to be careful. */
export function completions(openai: FakeOpenAi): { at: number; careful: boolean; system: string; user: string }[] {
	return openai.requests
		.filter((r) => r.path === '/v1/chat/completions')
		.map((r) => {
			const system = String(r.body.messages?.[0]?.content ?? '');
			return { at: r.at, careful: system.includes("Haven's safety check found"), system, user: String(r.body.messages?.at(-1)?.content ?? '') };
		});
}

/**
 * One safety world for the test file, with the fakes reset before each test (AI answers `AI_REPLY`, no recorded Discord
 * requests). `use` receives the world once it runs.
 */
export function useSafetyWorld(use: (world: SafetyWorld) => void): void {
	let world: SafetyWorld | undefined;
	before(async () => {
		world = await startSafetyWorld();
		use(world);
	});
	after(async () => {
		await world?.close();
	});
	beforeEach(() => {
		world!.openai.reset();
		world!.openai.reply = AI_REPLY;
		world!.fake.clearRequests();
	});
}
