import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { inspect } from 'node:util';
import type { AddressInfo } from 'node:net';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import type { FakeOpenAi } from '../support/fake-openai.ts';
import { startCaptureServer } from '../support/capture-server.ts';
import {
	AiError,
	CAREFUL_ADDENDUM,
	FALLBACK_REPLY,
	HAVEN_SYSTEM_PROMPT,
	NUMBER_PLACEHOLDER,
	createAi,
	fallbackFor,
	sanitizeReply,
} from '../../src/lib/ai/index.ts';
import type { AiFailure, AiOptions } from '../../src/lib/ai/index.ts';

const TIMEOUT = 300;
let fake: FakeOpenAi;

before(async () => {
	fake = await startFakeOpenAi();
});
after(() => fake.close());
beforeEach(() => fake.reset());

const makeAi = (extra: Partial<AiOptions> = {}) =>
	createAi({ apiKey: 'sk-test-key', baseURL: fake.url, model: 'gpt-test', timeoutMs: TIMEOUT, ...extra });

async function failure(promise: Promise<unknown>, kind: AiFailure): Promise<AiError> {
	const err = await promise.then(
		() => assert.fail(`expected AiError '${kind}'`),
		(e: unknown) => e,
	);
	assert.ok(err instanceof AiError, `expected AiError, got ${inspect(err)}`);
	assert.equal(err.kind, kind);
	for (const text of [err.message, String(err), inspect(err)]) assert.ok(!text.includes('SECRET'), text);
	return err;
}

const chatRequests = () => fake.requests.filter((r) => r.path === '/v1/chat/completions');

describe('complete', () => {
	test('answers, sending the model, key, Haven system prompt and turns', async () => {
		fake.reply = 'That sounds really hard. I am here with you.';
		const reply = await makeAi().complete(
			[
				{ role: 'user', content: 'hi' },
				{ role: 'assistant', content: 'hello' },
				{ role: 'user', content: 'rough day' },
			],
			{ system: 'Answer in one sentence.', user: 'hashed-user', maxTokens: 200 },
		);
		assert.equal(reply, 'That sounds really hard. I am here with you.');
		const [req] = chatRequests();
		assert.ok(req);
		assert.equal(req.authorization, 'Bearer sk-test-key');
		assert.equal(req.body.model, 'gpt-test');
		assert.equal(req.body.messages[0].role, 'system');
		assert.ok(req.body.messages[0].content.startsWith(HAVEN_SYSTEM_PROMPT));
		assert.ok(req.body.messages[0].content.includes('Answer in one sentence.'));
		assert.ok(!req.body.messages[0].content.includes(CAREFUL_ADDENDUM));
		assert.deepEqual(req.body.messages.slice(1), [
			{ role: 'user', content: 'hi' },
			{ role: 'assistant', content: 'hello' },
			{ role: 'user', content: 'rough day' },
		]);
		assert.equal(req.body.safety_identifier, 'hashed-user');
		assert.equal(req.body.max_completion_tokens, 200);
	});

	test('careful appends the careful addendum to the system prompt', async () => {
		await makeAi().complete([{ role: 'user', content: 'I want to disappear' }], { careful: true });
		const system: string = chatRequests()[0]!.body.messages[0].content;
		assert.ok(system.startsWith(HAVEN_SYSTEM_PROMPT));
		assert.ok(system.endsWith(CAREFUL_ADDENDUM));
	});

	test('sanitizes the reply', async () => {
		fake.reply = (body) => `Hey <@123456789012345678>, please call 988 now. (${body.model})`;
		const reply = await makeAi().complete([{ role: 'user', content: 'hi' }]);
		assert.equal(reply, `Hey someone, please call ${NUMBER_PLACEHOLDER} now. (gpt-test)`);
	});

	test('provider 500 -> failed, without the provider text; retried once within the deadline', async () => {
		fake.mode = 'fail';
		const err = await failure(makeAi().complete([{ role: 'user', content: 'hi' }]), 'failed');
		assert.equal(err.status, 500);
		assert.equal(chatRequests().length, 2);
	});

	test('one retry recovers from a transient 500', async () => {
		fake.queue = ['fail', 'answer'];
		assert.ok(await makeAi().complete([{ role: 'user', content: 'hi' }]));
		assert.equal(chatRequests().length, 2);
	});

	test('a stalled provider fails with timeout in about timeoutMs', async () => {
		fake.mode = 'stall';
		const started = performance.now();
		await failure(makeAi().complete([{ role: 'user', content: 'hi' }]), 'timeout');
		const elapsed = performance.now() - started;
		assert.ok(elapsed >= TIMEOUT - 20, `too early: ${elapsed}`);
		assert.ok(elapsed < TIMEOUT + 1500, `too late: ${elapsed}`);
		assert.equal(chatRequests().length, 1, 'no retry after a timeout');
	});

	test('a slow answer that arrives after the deadline is a timeout too', async () => {
		fake.mode = 'stall';
		fake.stallMs = TIMEOUT + 100;
		await failure(makeAi().complete([{ role: 'user', content: 'hi' }]), 'timeout');
	});

	test('the caller signal aborts early', async () => {
		fake.mode = 'stall';
		const started = performance.now();
		await failure(makeAi({ timeoutMs: 5000 }).complete([{ role: 'user', content: 'hi' }], { signal: AbortSignal.timeout(100) }), 'timeout');
		assert.ok(performance.now() - started < 1000);
	});

	test('429 -> rate_limited without waiting out a long retry-after', async () => {
		fake.mode = 'rate_limit';
		fake.retryAfter = '30';
		const started = performance.now();
		const err = await failure(makeAi().complete([{ role: 'user', content: 'hi' }]), 'rate_limited');
		assert.equal(err.status, 429);
		assert.ok(performance.now() - started < TIMEOUT, 'returned before the deadline');
		assert.equal(chatRequests().length, 1);
	});

	test('429 with a short retry-after is retried once', async () => {
		fake.queue = ['rate_limit', 'answer'];
		fake.retryAfter = '0';
		assert.ok(await makeAi().complete([{ role: 'user', content: 'hi' }]));
		assert.equal(chatRequests().length, 2);
	});

	for (const kind of ['invalid_json', 'wrong_shape', 'empty_content'] as const) {
		test(`garbage (${kind}) -> failed`, async () => {
			fake.mode = 'garbage';
			fake.garbage = kind;
			await failure(makeAi().complete([{ role: 'user', content: 'hi' }]), 'failed');
		});
	}

	test('unreachable provider -> failed', async () => {
		const server = http.createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		await new Promise((resolve) => server.close(resolve));
		const ai = createAi({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: TIMEOUT });
		await failure(ai.complete([{ role: 'user', content: 'hi' }]), 'failed');
	});

	test('not configured: no key, no request', async () => {
		const ai = createAi({ baseURL: fake.url, model: 'gpt-test' });
		assert.equal(ai.configured, false);
		assert.equal(makeAi().configured, true);
		await failure(ai.complete([{ role: 'user', content: 'hi' }]), 'not_configured');
		assert.equal(await ai.moderate('hello'), null);
		assert.equal(fake.requests.length, 0);
	});
});

describe('concurrency guard', () => {
	test('rejects fast when slots and queue are full, and queued calls keep their deadline', async () => {
		fake.mode = 'stall';
		const ai = makeAi({ maxConcurrent: 1, maxQueue: 1 });
		const turns = [{ role: 'user' as const, content: 'hi' }];
		const started = performance.now();
		const first = failure(ai.complete(turns), 'timeout');
		const queued = failure(ai.complete(turns), 'timeout');
		await failure(ai.complete(turns), 'rate_limited');
		assert.ok(performance.now() - started < TIMEOUT / 2, 'rejected without waiting');
		await Promise.all([first, queued]);
		assert.ok(performance.now() - started < TIMEOUT + 1500);
		assert.equal(chatRequests().length, 1, 'the queued call never got a slot');

		fake.mode = 'answer';
		assert.ok(await ai.complete(turns), 'slots are released after failures');
	});

	test('a queued call runs when a slot frees up', async () => {
		fake.mode = 'stall';
		fake.stallMs = 50;
		const ai = makeAi({ maxConcurrent: 1, maxQueue: 1, timeoutMs: 2000 });
		const turns = [{ role: 'user' as const, content: 'hi' }];
		const replies = await Promise.all([ai.complete(turns), ai.complete(turns)]);
		assert.equal(replies.length, 2);
		const [a, b] = chatRequests();
		assert.ok(b!.at - a!.at >= 40, 'second request started after the first finished');
	});
});

describe('moderate', () => {
	test('returns the self-harm scores', async () => {
		fake.moderation = { selfHarm: 0.91, selfHarmIntent: 0.72, selfHarmInstructions: 0.05 };
		const scores = await makeAi({ moderationModel: 'mod-test' }).moderate('some text');
		assert.deepEqual(scores, { selfHarm: 0.91, selfHarmIntent: 0.72, selfHarmInstructions: 0.05 });
		const [req] = fake.requests;
		assert.equal(req!.path, '/v1/moderations');
		assert.equal(req!.body.model, 'mod-test');
		assert.equal(req!.body.input, 'some text');
	});

	for (const mode of ['fail', 'rate_limit', 'garbage'] as const) {
		test(`null on ${mode}`, async () => {
			fake.mode = mode;
			fake.garbage = 'wrong_shape';
			assert.equal(await makeAi().moderate('some text'), null);
		});
	}

	test('null on a stall, within its own timeout', async () => {
		fake.mode = 'stall';
		const started = performance.now();
		assert.equal(await makeAi({ timeoutMs: 5000 }).moderate('some text', { timeoutMs: 150 }), null);
		assert.ok(performance.now() - started < 1000);
	});
});

describe('sanitizeReply', () => {
	const stripped = [
		'If it gets bad, please call 988.',
		'You can text or call 9-8-8 any time.',
		'call 1-800-273-8255',
		'Call 1-800-273-TALK tonight',
		'Samaritans are on +44 116 123.',
		'Samaritans: 116 123, free.',
		'Try (555) 123-4567 or 555.123.4567.',
		'Childline is on 0800 1111.',
		'Text HOME to 741741.',
		'In Australia ring 13 11 14.',
		'International: +61 2 9876 5432',
		'In an emergency dial 911 or 112.',
		'Call the line at 555 0199.',
	];
	for (const text of stripped) {
		test(`strips numbers: ${text}`, () => {
			const out = sanitizeReply(text);
			assert.ok(!/\d/.test(out), `left a digit in: ${out}`);
			assert.ok(out.includes(NUMBER_PLACEHOLDER), out);
		});
	}

	test('keeps ordinary numbers', () => {
		const text = 'Try the 5-4-3-2-1 exercise: breathe in for 4, hold for 7, out for 8. Since 2019 - 2021 and on 2024-01-15 I had 2 cats.';
		assert.equal(sanitizeReply(text), text);
	});

	test('neutralises mentions', () => {
		const out = sanitizeReply('Hey @everyone and @here, ask <@123> or <@!456> in <#789> with <@&321>.');
		assert.equal(out, 'Hey everyone and here, ask someone or someone in a channel with a role.');
		assert.ok(!/[<@]/.test(out));
	});

	test('cuts long text at a sentence boundary with an ellipsis', () => {
		const sentence = 'You are doing better than you think. ';
		const out = sanitizeReply(sentence.repeat(100), 200);
		assert.ok(out.length <= 200, String(out.length));
		assert.ok(out.endsWith('think…'), out);
		assert.ok(out.length > 150);
	});

	test('cuts at a word boundary when there is no sentence end', () => {
		const out = sanitizeReply('word '.repeat(100), 53);
		assert.ok(out.length <= 53);
		assert.match(out, /^(word )+word…$/);
	});

	test('default limit fits a Discord message', () => {
		assert.ok(sanitizeReply('a'.repeat(5000)).length <= 1900);
		assert.equal(sanitizeReply('  short  '), 'short');
	});

	test('does not split an emoji', () => {
		const out = sanitizeReply('x'.repeat(8) + '😀😀😀', 10);
		assert.equal(out, 'x'.repeat(8) + '…');
	});

	// How long this takes (target: under 500 ms, a linear pass) is measured by bench/sanitize.ts.
	test('hostile input: the digit runs are replaced and the text after them is kept', () => {
		const out = sanitizeReply('1 '.repeat(20_000) + 'x' + '1-'.repeat(20_000) + 'call ' + 'a'.repeat(20_000), 100_000);
		assert.ok(out.startsWith(NUMBER_PLACEHOLDER), out.slice(0, 40));
		assert.doesNotMatch(out, /\d[\d -]{5,}/, 'no phone-like run left');
		assert.ok(out.endsWith(`call ${'a'.repeat(20_000)}`));
	});
});

test('fallback replies are kind and contain no numbers', () => {
	for (const kind of ['not_configured', 'timeout', 'rate_limited', 'failed'] as const) {
		assert.ok(fallbackFor(kind).length > 20);
		assert.ok(!/\d/.test(fallbackFor(kind)));
	}
	assert.ok(!/\d/.test(FALLBACK_REPLY));
});

test('capture server records requests and answers as configured', async () => {
	const capture = await startCaptureServer();
	try {
		capture.setResponse(503, 50);
		const pending = capture.waitForRequests(1, 1000);
		const started = performance.now();
		const res = await fetch(`${capture.url}/api/status?x=1`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ apiKey: 'k' }),
		});
		assert.equal(res.status, 503);
		assert.ok(performance.now() - started >= 45);
		const [req] = await pending;
		assert.equal(req!.method, 'POST');
		assert.equal(req!.path, '/api/status');
		assert.deepEqual(req!.body, { apiKey: 'k' });
		await assert.rejects(capture.waitForRequests(2, 50), /expected 2/);
	} finally {
		await capture.close();
	}
});
