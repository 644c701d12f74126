// PostgreSQL goes away and comes back under a running Haven (bot and API), using a PostgreSQL of this test's own that
// it stops and starts (test/support/postgres-control.ts), whatever DATABASE_URL the suite runs with:
// - /healthz keeps answering; data endpoints answer 503 with Retry-After at once (no hang, no 500);
// - POST /v1/feedback is never 202 unless the row is committed; no 202 is ever lost (a crash stop included);
// - Discord commands that need the database answer kindly; crisis resources still go out;
// - everything recovers by itself when PostgreSQL is back, with no Haven restart; /metrics says haven_db_up 0, then 1.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { container } from '@sapphire/framework';
import { DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE_REPLY } from '../../src/lib/db/outage.ts';
import { Feedback } from '../../src/lib/db/index.ts';
import { safetyOutcomes, type MessageOutcome } from '../../src/lib/safety/flows.ts';
import { slash, startBotWorld, textOf, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.ts';
import { startControlledPostgres, type ControlledPostgres } from '../support/postgres-control.ts';
import { scrape, total, until } from './support.ts';

const API_TOKEN = 'outage-api-token-0123456789';
const CRISIS = 'I want to kill myself tonight';
let nextUser = 1;
const someone = () => snowflakeAt(1_490_000_000_000, nextUser++);

let pg: ControlledPostgres;
let openai: FakeOpenAi;
let world: BotWorld;
const logged: string[] = [];

/** Every feedback answered 202, by message (each message is unique). */
const accepted = new Set<string>();
/** Every feedback sent, by message. */
const sent = new Set<string>();

before(async () => {
	pg = await startControlledPostgres();
	openai = await startFakeOpenAi();
	world = await startBotWorld({
		env: {
			DATABASE_URL: pg.url,
			API_TOKEN,
			OPENAI_API_KEY: 'sk-fake',
			OPENAI_BASE_URL: openai.url,
			OPENAI_TIMEOUT_MS: '1500',
			ENCRYPTION_KEY: 'c3'.repeat(32),
			STATS_CACHE_MS: '0',
			RATE_LIMIT_PER_MINUTE: '100000',
			RATE_LIMIT_CHAT_PER_MINUTE: '100000',
			RATE_LIMIT_FEEDBACK_PER_MINUTE: '100000',
		},
	});
	// The outage is expected here: keep its log lines for assertions instead of the console.
	for (const level of ['error', 'warn'] as const)
		container.logger[level] = (...values: unknown[]) => void logged.push(values.map(String).join(' '));
});

after(async () => {
	if (pg && !pg.running) await pg.start();
	await world?.close();
	await openai?.close();
	await pg?.close();
});

const url = (path: string) => `${world.haven.url}${path}`;

async function timed(path: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers; ms: number }> {
	const started = performance.now();
	const response = await fetch(url(path), { ...init, signal: AbortSignal.timeout(20_000) });
	const text = await response.text();
	let body: unknown = text;
	try {
		body = JSON.parse(text);
	} catch {
		// not JSON (e.g. /metrics)
	}
	return { status: response.status, body, headers: response.headers, ms: performance.now() - started };
}

async function sendFeedback(message: string): Promise<number> {
	sent.add(message);
	const reply = await timed('/v1/feedback', {
		method: 'POST',
		headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
		body: JSON.stringify({ userId: someone(), message }),
	});
	if (reply.status === 202) accepted.add(message);
	return reply.status;
}

async function storedFeedback(): Promise<string[]> {
	const rows = await world.haven.db.orm.em.fork().find(Feedback, {}, { orderBy: { id: 'asc' } });
	return rows.map((row) => row.message ?? '');
}

const dbUp = async () => total(await scrape(world.haven.url, API_TOKEN), 'haven_db_up');

describe('PostgreSQL stops and comes back', () => {
	test('while it is down: health answers, data endpoints 503 at once, feedback is refused, nothing hangs', async () => {
		for (let i = 0; i < 3; i++) assert.equal(await sendFeedback(`before the outage ${i}`), 202);
		await pg.stop('fast');

		for (let i = 0; i < 3; i++) assert.deepEqual((await timed('/healthz')).body, { status: 'ok' });
		for (const path of ['/v1/testimonials', '/v1/stats']) {
			const reply = await timed(path);
			assert.equal(reply.status, 503, `${path}: ${JSON.stringify(reply.body)}`);
			assert.deepEqual(reply.body, { error: DATABASE_UNAVAILABLE });
			assert.equal(reply.headers.get('retry-after'), '5');
			assert.ok(reply.ms < 5_000, `${path} answered in ${Math.round(reply.ms)} ms`);
		}
		for (let i = 0; i < 5; i++) assert.equal(await sendFeedback(`during the outage ${i}`), 503);
		const status = await timed('/v1/status');
		assert.equal(status.status, 200, 'the status page still works: shards come from Discord, not the database');
		assert.equal(status.body.status, 'ok');
		const chat = await timed('/v1/chat', {
			method: 'POST',
			headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
			body: JSON.stringify({ message: 'Just wanted to say hello' }),
		});
		assert.equal(chat.status, 200, 'chat only counts the conversation, best effort');
		assert.equal(await dbUp(), 0);
		assert.equal(
			logged.filter((line) => line.startsWith('The database is unavailable')).length,
			1,
			'one note for the outage, not one per request',
		);
	});

	test('while it is down: commands that need it answer kindly; crisis resources still go out', async () => {
		sent.add('a note while the database is down');
		const feedback = await slash(
			world.fake,
			{ name: 'feedback', userId: someone(), options: { message: 'a note while the database is down' } },
			6_000,
		);
		const replied = feedback.callback.body.data?.content ?? (await feedback.ix.edit(6_000)).body.content;
		assert.equal(replied, DATABASE_UNAVAILABLE_REPLY);
		const preferences = await slash(world.fake, { name: 'preferences', userId: someone(), options: { screening: true } }, 6_000);
		assert.equal(preferences.callback.body.data?.content ?? (await preferences.ix.edit(6_000)).body.content, DATABASE_UNAVAILABLE_REPLY);

		const message = once(safetyOutcomes, 'message', { signal: AbortSignal.timeout(15_000) });
		const author = someone();
		world.fake.sendMessage({ authorId: author, dm: true, content: CRISIS });
		const [outcome] = (await message) as [MessageOutcome];
		assert.equal(outcome.resources, 'sent', 'the resources DM went out without the database');
		assert.equal(outcome.eventId, undefined, 'the event could not be recorded');
		const dm = world.fake.requests.find((r) => r.method === 'POST' && r.path === `/channels/${world.fake.dmChannel(author).id}/messages`);
		assert.ok(dm && textOf(dm.body).length > 50, 'resources in the DM');

		const command = once(safetyOutcomes, 'command', { signal: AbortSignal.timeout(15_000) });
		const crisis = await slash(world.fake, { name: 'crisis', userId: someone() }, 6_000);
		await command;
		const crisisText = textOf(crisis.callback.body) || textOf((await crisis.ix.edit(6_000)).body);
		assert.doesNotMatch(crisisText, /database/i, '/crisis answers with resources, not an error');
		assert.ok(crisisText.length > 50);
	});

	test('it comes back: everything recovers by itself; every 202 is stored, nothing refused is', async () => {
		await pg.start();
		await until(async () => (await timed('/v1/testimonials')).status === 200, 'testimonials to answer again');
		assert.equal((await timed('/v1/stats')).status, 200);
		assert.equal(await sendFeedback('after the outage'), 202);
		sent.add('a note after the database came back');
		const { callback, ix } = await slash(
			world.fake,
			{ name: 'feedback', userId: someone(), options: { message: 'a note after the database came back' } },
			6_000,
		);
		const text = callback.body.data?.content ?? (await ix.edit(6_000)).body.content;
		assert.notEqual(text, DATABASE_UNAVAILABLE_REPLY);
		accepted.add('a note after the database came back');
		assert.equal(await dbUp(), 1);

		const stored = new Set(await storedFeedback());
		for (const message of accepted) assert.ok(stored.has(message), `202 but lost: ${message}`);
		for (const message of sent) if (!accepted.has(message)) assert.ok(!stored.has(message), `refused but stored: ${message}`);
	});

	test('a crash stop under a steady stream of feedback: only 202 or 503, never lost, recovers alone', async (t) => {
		const statuses = new Map<number, number>();
		let running = true;
		let restarted = false;
		let acceptedAfterRestart = 0;
		let counter = 0;
		const worker = async () => {
			while (running) {
				const status = await sendFeedback(`stream ${counter++}`);
				statuses.set(status, (statuses.get(status) ?? 0) + 1);
				if (status === 202 && restarted) acceptedAfterRestart++;
				if (status !== 202) await sleep(20); // pacing after a refusal, not a wait for anything
			}
		};
		const workers = Array.from({ length: 4 }, worker);
		t.after(() => (running = false)); // a failed wait must not leave the workers running and the file never ending
		await until(() => (statuses.get(202) ?? 0) >= 20, 'a steady stream');
		await pg.stop('immediate');
		await sleep(800); // the outage itself: the database stays down while the stream goes on
		await pg.start();
		restarted = true;
		await until(() => acceptedAfterRestart >= 20, 'feedback accepted again');
		running = false;
		await Promise.all(workers);

		assert.deepEqual(
			[...statuses.keys()].filter((status) => status !== 202 && status !== 503),
			[],
			`statuses: ${JSON.stringify([...statuses])}`,
		);
		assert.ok((statuses.get(503) ?? 0) > 0, 'some were refused while it was down');
		const stored = await storedFeedback();
		const storedSet = new Set(stored);
		assert.equal(storedSet.size, stored.length, 'no duplicates');
		for (const message of accepted) assert.ok(storedSet.has(message), `202 but lost: ${message}`);
		for (const message of stored) assert.ok(sent.has(message), `a row nobody sent: ${message}`);
		// A 503 whose commit reached the disk just before the crash may exist; it can only be one of those in flight.
		const refusedButStored = stored.filter((message) => !accepted.has(message));
		assert.ok(refusedButStored.length <= 4, `refused but stored: ${refusedButStored.join(', ')}`);

		// No connection was lost to the crash: every pooled connection is idle again (none stuck checked out).
		const pool = await (world.haven.db.orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
		await until(() => pool.totalCount === pool.idleCount, `an idle pool (${pool.totalCount} connections, ${pool.idleCount} idle)`, 5_000);
	});
});
