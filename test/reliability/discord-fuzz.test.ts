// Hostile input through the fake Discord (seeded fast-check): DMs, mentions and slash-command options that are very
// long, Unicode edge cases, mentions (@everyone, users, roles), markdown and zero-width characters; the fake AI echoes
// the text back, the worst case for an echo. Every message gets its answer, nothing fails inside Haven, and no answer
// can ping anyone or carries a raw mention.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test, type TestContext } from 'node:test';
import { container } from '@sapphire/framework';
import fc from 'fast-check';
import { safetyOutcomes } from '../../src/lib/safety/flows.ts';
import { startBotWorld, type BotWorld } from '../bot/support.ts';
import { snowflakeAt, type RecordedRequest } from '../support/fake-discord.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';

const SEED = 424_242;
let nextUser = 1;
const someone = () => snowflakeAt(1_498_000_000_000, nextUser++);
let openai: FakeOpenAi;
let world: BotWorld;
const failures: string[] = [];
let cases = 0;

before(async () => {
	openai = await startFakeOpenAi();
	// The worst case for an echo: the AI repeats the person's words (mentions, markdown and all).
	openai.reply = (body: any) => `You said: ${String(body?.messages?.at(-1)?.content ?? '')}`;
	world = await startBotWorld({ env: { OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: openai.url, OPENAI_TIMEOUT_MS: '2000' } });
	container.logger.error = (...values: unknown[]) => void failures.push(values.map(String).join(' '));
});

after(async () => {
	await world?.close();
	await openai?.close();
});

const RAW_MENTION = /@everyone|@here|<@!?\d+>|<@&\d+>/;

const piece = fc.oneof(
	fc.constantFrom(
		'@everyone',
		'@here',
		'@\u200beveryone',
		'<@123456789012345678>',
		'<@!123456789012345678>',
		'<@&123456789012345679>',
		'<#123456789012345670>',
		'**bold** __u__ ~~s~~ ||spoiler|| `code` ```js\nx\n```',
		'> quote',
		'[link](https://evil.example)',
		'\u200b\u200c\u200d\u2060\ufeff',
		'\u202e\u2066reversed',
		'e\u0301\u0301\u0301',
		'😀👩‍👩‍👧‍👦🏳️‍🌈',
		'ﷺ𒐫',
		'\\@everyone',
		'@ everyone',
		'<script>alert(1)</script>',
		'\n\n\n',
	),
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 20 }).map((value) => value.replaceAll('\u0000', '')),
);
const content = fc.oneof(
	{ weight: 4, arbitrary: fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(' ')) },
	{
		weight: 1,
		arbitrary: fc
			.tuple(piece, fc.integer({ min: 100, max: 1900 }))
			.map(([part, n]) => (part || 'x').repeat(Math.ceil(n / Math.max(1, (part || 'x').length))).slice(0, n)),
	},
);

/** The bot's messages and interaction answers since `from`. */
function answers(from: number): RecordedRequest[] {
	return world.fake.requests
		.slice(from)
		.filter(
			(r) =>
				(r.method === 'POST' && /^\/channels\/\d+\/messages$/.test(r.path)) ||
				r.path.startsWith('/interactions/') ||
				r.path.startsWith('/webhooks/'),
		);
}

/** The answer echoes no mention from the input; it may address its author (a crisis note does), pinging nobody else. */
function checkAnswer(request: RecordedRequest, input: string, author: string): void {
	const data = request.body?.data ?? request.body ?? {};
	if (typeof data.content !== 'string' && !data.embeds) return; // e.g. a deferral
	const text = [data.content ?? '', ...(data.embeds ?? []).map((e: any) => JSON.stringify(e))].join('\n');
	const echoed = text.replaceAll(`<@${author}>`, '');
	assert.doesNotMatch(echoed, RAW_MENTION, `a raw mention in an answer to ${JSON.stringify(input.slice(0, 80))}: ${text.slice(0, 300)}`);
	const allowed = data.allowed_mentions;
	assert.ok(allowed, `no allowed_mentions on ${request.method} ${request.path}`);
	assert.deepEqual(allowed.parse ?? [], [], 'parses no mentions');
	assert.ok(!allowed.roles?.length, 'pings no role');
	for (const user of allowed.users ?? []) assert.equal(user, author, 'pings nobody but the author');
}

describe('hostile input through Discord', () => {
	test('DMs and mentions: one answer each, nothing pings, no raw mention echoed', async () => {
		const guildId = world.fake.guilds.ids[1]!;
		await fc.assert(
			fc.asyncProperty(content, fc.boolean(), async (text, inGuild) => {
				cases++;
				const from = world.fake.requests.length;
				const author = someone();
				const done = once(safetyOutcomes, 'message', { signal: AbortSignal.timeout(10_000) });
				world.fake.sendMessage(
					inGuild ? { authorId: author, guildId, mentionsBot: true, content: text } : { authorId: author, dm: true, content: text },
				);
				await done;
				const sent = answers(from);
				assert.ok(sent.length >= 1, `no answer to ${JSON.stringify(text.slice(0, 80))}`);
				for (const request of sent) checkAnswer(request, text, author);
			}),
			{ seed: SEED, numRuns: 150 },
		);
	});

	test('slash-command options: /feedback and /crisis answer privately, never echo a mention', async () => {
		await fc.assert(
			fc.asyncProperty(content, fc.constantFrom('feedback', 'crisis'), async (text, name) => {
				cases++;
				const from = world.fake.requests.length;
				const message = text.length >= 3 ? text.slice(0, 2000) : `${text}...`;
				const userId = someone();
				const ix = world.fake.sendSlashCommand({ name, userId, options: { message } });
				const callback = await ix.callback(5_000);
				assert.ok(callback.status < 300, `${name}: callback ${callback.status}`);
				if (name === 'crisis') await once(safetyOutcomes, 'command', { signal: AbortSignal.timeout(10_000) });
				for (const request of answers(from)) checkAnswer(request, text, userId);
			}),
			{ seed: SEED + 1, numRuns: 100 },
		);
	});

	test('nothing failed inside Haven', (t: TestContext) => {
		t.diagnostic(`Discord fuzz cases: ${cases}; failures logged: ${failures.length}`);
		assert.deepEqual(failures, []);
	});
});
