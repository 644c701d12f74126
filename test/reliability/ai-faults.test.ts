// OpenAI down, slow (past the API's timeout and past Discord's 3 s), returning garbage, or rate-limiting: every
// surface degrades to its documented fallback or error, crisis resources still go out first, and the provider's own
// error text never reaches anyone. Complements test/ai/ai.test.ts (the client), test/api/endpoints.test.ts (502 on
// fail/stall/invalid JSON; resources on fail/stall) and test/safety (DMs and /crisis with the AI failing or stalling):
// here every failure mode on every surface, in one matrix.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { fallbackFor } from '../../src/lib/ai/index.ts';
import { renderCrisisReply } from '../../src/lib/crisis/resources.ts';
import { screen } from '../../src/lib/crisis/screen.ts';
import { safetyOutcomes, type MessageOutcome } from '../../src/lib/safety/flows.ts';
import { slash, startBotWorld, textOf, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { FAKE_SECRET, startFakeOpenAi, type FakeMode, type FakeOpenAi, type GarbageKind } from '../support/fake-openai.ts';
import { scrape, total } from './support.ts';

const API_TOKEN = 'ai-faults-token-0123456789';
const TIMEOUT_MS = 1500;
const CRISIS = 'I want to kill myself tonight';
const PLAIN = 'Today was long, but the walk home was nice';
let nextUser = 1;
const someone = () => snowflakeAt(1_495_000_000_000, nextUser++);

let openai: FakeOpenAi;
let world: BotWorld;

before(async () => {
	openai = await startFakeOpenAi();
	world = await startBotWorld({
		env: {
			API_TOKEN,
			OPENAI_API_KEY: 'sk-fake',
			OPENAI_BASE_URL: openai.url,
			OPENAI_TIMEOUT_MS: String(TIMEOUT_MS),
			RATE_LIMIT_PER_MINUTE: '100000',
			RATE_LIMIT_CHAT_PER_MINUTE: '100000',
		},
	});
});

after(async () => {
	await world?.close();
	await openai?.close();
});

interface Fault {
	name: string;
	mode: FakeMode;
	garbage?: GarbageKind;
	/** The AiError kind the fault becomes, which picks the companion's fallback. */
	kind: 'failed' | 'timeout' | 'rate_limited';
}

const FAULTS: Fault[] = [
	{ name: 'down (500)', mode: 'fail', kind: 'failed' },
	{ name: 'slow (past the timeout)', mode: 'stall', kind: 'timeout' },
	{ name: 'garbage: invalid JSON', mode: 'garbage', garbage: 'invalid_json', kind: 'failed' },
	{ name: 'garbage: wrong shape', mode: 'garbage', garbage: 'wrong_shape', kind: 'failed' },
	{ name: 'garbage: empty content', mode: 'garbage', garbage: 'empty_content', kind: 'failed' },
	{ name: 'rate-limited (429, long retry-after)', mode: 'rate_limit', kind: 'rate_limited' },
];

function inject(fault: Fault): void {
	openai.reset();
	openai.mode = fault.mode;
	if (fault.garbage) openai.garbage = fault.garbage;
	openai.retryAfter = '120';
	openai.stallMs = Infinity;
}

async function chat(message: string): Promise<{ status: number; body: any; ms: number }> {
	const started = performance.now();
	const response = await fetch(`${world.haven.url}/v1/chat`, {
		method: 'POST',
		headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
		body: JSON.stringify({ message }),
	});
	const body = await response.json();
	return { status: response.status, body, ms: performance.now() - started };
}

function dmMessages(userId: string): string[] {
	const channel = world.fake.dmChannel(userId).id;
	return world.fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channel}/messages`).map((r) => textOf(r.body));
}

async function dm(userId: string, content: string): Promise<MessageOutcome> {
	const done = once(safetyOutcomes, 'message', { signal: AbortSignal.timeout(15_000) });
	world.fake.sendMessage({ authorId: userId, dm: true, content });
	return ((await done) as [MessageOutcome])[0];
}

describe('the AI provider failing, every way, on every surface', () => {
	for (const fault of FAULTS) {
		test(fault.name, async () => {
			inject(fault);
			const resources = renderCrisisReply(screen(CRISIS), null);
			const [plain, crisis] = await Promise.all([chat(PLAIN), chat(CRISIS)]);
			// HTTP: an ordinary message is a 502 with our own words, within the timeout (plus one short retry at most).
			assert.equal(plain.status, 502);
			assert.deepEqual(plain.body, { error: 'The AI provider did not answer; try again later' });
			assert.ok(plain.ms < TIMEOUT_MS + 3_000, `answered in ${Math.round(plain.ms)} ms`);
			// HTTP: a person in crisis gets 200 with the vetted resources, and nothing invented.
			assert.equal(crisis.status, 200);
			assert.equal(crisis.body.reply, resources);

			// Discord DMs: the companion's fixed fallback for this kind of failure; a crisis gets the resources and no AI.
			const alice = someone();
			const bob = someone();
			const ordinary = await dm(alice, PLAIN);
			const inCrisis = await dm(bob, CRISIS);
			assert.equal(ordinary.aiReply, false);
			assert.deepEqual(dmMessages(alice), [fallbackFor(fault.kind)]);
			assert.equal(inCrisis.resources, 'sent');
			assert.equal(inCrisis.aiReply, false);
			assert.equal(dmMessages(bob).length, 2, 'the resources and the care offer, no AI');
			assert.ok(dmMessages(bob)[0]!.length > 50);
			assert.match(dmMessages(bob)[1]!, /check on you later/);

			for (const request of world.fake.requests)
				assert.ok(!JSON.stringify(request.body ?? '').includes('SECRET'), 'no provider text on Discord');
			assert.ok(!JSON.stringify([plain.body, crisis.body]).includes('SECRET') && !JSON.stringify(crisis.body).includes(FAKE_SECRET));
		});
	}

	test("slow past Discord's 3 s: /crisis with words answers at once with resources; the AI follow-up never comes", async () => {
		inject(FAULTS[1]!);
		const command = once(safetyOutcomes, 'command', { signal: AbortSignal.timeout(15_000) });
		const started = performance.now();
		const { callback, ix } = await slash(world.fake, { name: 'crisis', userId: someone(), options: { message: CRISIS } }, 3_000);
		assert.ok(performance.now() - started < 3_000, "answered within Discord's 3 s");
		assert.ok(textOf(callback.body).length > 50, 'resources first');
		await command;
		const followups = ix.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/webhooks/'));
		assert.deepEqual(
			followups.map((r) => /check on you later/.test(textOf(r.body))),
			[true],
			'the care offer only: no AI follow-up',
		);
	});

	test('the metrics count each failure by kind', async () => {
		openai.reset();
		const samples = await scrape(world.haven.url, API_TOKEN);
		assert.ok(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'timeout' }) >= 4);
		assert.ok(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'rate_limited' }) >= 4);
		assert.ok(total(samples, 'haven_ai_requests_total', { operation: 'complete', outcome: 'failed' }) >= 16);
		// After all that, a healthy provider is used again at once (no circuit left open).
		const reply = await chat(PLAIN);
		assert.equal(reply.status, 200);
	});
});
