import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { renderCrisisReply } from '../../src/lib/crisis/resources.ts';
import { screen } from '../../src/lib/crisis/screen.ts';
import { dropDatabase, testEnv } from '../support/env.ts';
import { startTestHaven, type TestHaven } from '../support/haven.ts';
import { request } from './support.ts';

let haven: TestHaven | undefined;
let env: Record<string, string | undefined> = {};

async function start(overrides: Record<string, string>) {
	await stop();
	env = testEnv(overrides);
	haven = await startTestHaven(env);
	return haven.url;
}

async function stop() {
	await haven?.stop();
	haven = undefined;
	await dropDatabase(env.DATABASE_URL);
}

after(stop);

describe('without API_TOKEN', () => {
	test('the protected routes refuse every request with 503, token or not; the rest works', async () => {
		const url = await start({});
		for (const path of ['/v1/chat', '/v1/feedback']) {
			for (const headers of [{}, { authorization: 'Bearer ' }, { authorization: 'Bearer anything' }] as Record<string, string>[]) {
				const reply = await request(url, 'POST', path, { body: { message: 'hello there', userId: '123456789012345678' }, headers });
				assert.equal(reply.status, 503, `${path} ${JSON.stringify(headers)}`);
				assert.match(reply.json.error, /no API_TOKEN configured/);
			}
		}
		assert.equal((await request(url, 'GET', '/v1/stats')).status, 200);
		const [row] = await haven!.db.orm.em.getConnection().execute('select count(*)::int as n from feedback');
		assert.equal(row.n, 0);
	});
});

describe('with API_TOKEN but without OPENAI_API_KEY', () => {
	test('chat answers 503, except to a person in crisis, who gets the resources', async () => {
		const url = await start({ API_TOKEN: 't' });
		const chat = (message: string) => request(url, 'POST', '/v1/chat', { token: 't', body: { message } });
		const plain = await chat('hello');
		assert.equal(plain.status, 503);
		assert.match(plain.json.error, /AI is not configured/);

		const message = 'i keep thinking about ending my life';
		assert.notEqual(screen(message).level, 'none');
		const crisis = await chat(message);
		assert.equal(crisis.status, 200);
		assert.deepEqual(crisis.json, { reply: renderCrisisReply(screen(message), null) });
		const stats = (await request(url, 'GET', '/v1/stats')).json;
		assert.equal(stats.crisisEvents, 1);
		assert.equal(stats.conversations, 1);

		// The totals are then reused for STATS_CACHE_MS (default 5 s): no database work per request.
		await haven!.db.orm.em.getConnection().execute(`insert into users (id, created_at, updated_at) values ('123456789012345678', now(), now())`);
		assert.deepEqual((await request(url, 'GET', '/v1/stats')).json, stats);
	});
});
