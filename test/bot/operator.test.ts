// The owners' controls through the fake Discord: blocking people and servers (crisis help is never blocked), the AI
// switch at run time (the next request, no restart; POST /v1/chat 503), the owner status view, and the feedback loop
// (owners hear of new feedback, reply by DM, the author sees the state of what they sent), with the CLI's side of it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, beforeEach, describe, test } from 'node:test';
import { InteractionResponseType, MessageFlags } from 'discord.js';
import { fallbackFor } from '../../src/lib/ai/index.ts';
import { Block, Feedback } from '../../src/lib/db/index.ts';
import { approveFeedback, submitFeedback } from '../../src/lib/feedback/store.ts';
import { changeAiState } from '../../src/lib/operations/ai-switch.ts';
import { BLOCKED_MESSAGE } from '../../src/lib/operations/blocks.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { waitFor } from '../support/wait.ts';
import { ALICE, BOB, CAROL, completions, dmOf, nextOutcome, OWNER, postsTo, startSafetyWorld, type SafetyWorld } from '../safety/support.ts';
import { textOf } from './support.ts';

const API_TOKEN = 'operator-test-token';
// Owner commands have a 3 s cooldown per person: each owner command here is sent by the next owner of a pool.
const OWNERS = Array.from({ length: 30 }, (_, i) => snowflakeAt(1_470_000_000_000, 200 + i));
let nextOwner = 0;
const anOwner = () => OWNERS[nextOwner++ % OWNERS.length]!;
let s: SafetyWorld;
let otherGuild: string;
let nextUser = 300;
const someone = () => snowflakeAt(1_470_000_000_000, nextUser++);
const em = () => s.world.haven.db.orm.em.fork();

before(async () => {
	// The AI tests poll POST /v1/chat; its rate limit is not what they are about.
	s = await startSafetyWorld({
		API_TOKEN,
		OWNER_IDS: [OWNER, ...OWNERS].join(','),
		RATE_LIMIT_PER_MINUTE: '10000',
		RATE_LIMIT_CHAT_PER_MINUTE: '10000',
	});
	otherGuild = s.fake.guilds.ids[1]!;
});

after(async () => {
	await s?.close();
});

beforeEach(() => {
	s.openai.reset();
	s.openai.reply = 'That sounds like a lot; I am here with you.';
	s.fake.clearRequests();
});

function assertPrivate(body: any) {
	assert.equal(body.data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral, 'ephemeral');
}

async function slash(input: Parameters<SafetyWorld['fake']['sendSlashCommand']>[0]) {
	const ix = s.fake.sendSlashCommand(input);
	return { ix, callback: await ix.callback() };
}

/** An owner command, in the private guild (the first guild). */
async function owner(name: string, subcommand: string | undefined, options: Record<string, string | number | boolean> = {}) {
	const userId = anOwner();
	const { callback, ix } = await slash({ name, subcommand, options, guildId: s.guildId, userId });
	if (callback.body.type !== InteractionResponseType.Modal) assertPrivate(callback.body);
	return { text: textOf(callback.body), callback, ix, userId };
}

function chat(message: string) {
	return fetch(`${s.world.haven.url}/v1/chat`, {
		method: 'POST',
		headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
		body: JSON.stringify({ message }),
	});
}

function dm(authorId: string, content: string) {
	const done = nextOutcome('message');
	s.fake.sendMessage({ authorId, dm: true, content });
	return done;
}

describe('blocking a person', () => {
	test('their commands are refused politely and privately; /crisis still answers with resources', async () => {
		const placed = await owner('block', 'user', { id: ALICE, reason: 'spamming the companion' });
		assert.match(placed.text, /^Blocked <@\d+> \(\d+\)\.\nReason: spamming the companion$/);
		const row = await em().findOneOrFail(Block, { kind: 'user', targetId: ALICE, liftedAt: null });
		assert.equal(row.blockedBy, placed.userId);
		assert.equal(row.reason, 'spamming the companion');

		const joke = (await slash({ name: 'joke', guildId: s.guildId, userId: ALICE })).callback;
		assertPrivate(joke.body);
		assert.equal(joke.body.data.content, BLOCKED_MESSAGE);
		assert.equal(completions(s.openai).length, 0, 'no AI for a refused command');
		const feedback = (await slash({ name: 'feedback', guildId: s.guildId, userId: ALICE })).callback;
		assert.equal(feedback.body.data.content, BLOCKED_MESSAGE, 'every command, in servers');
		const dmCommand = (await slash({ name: 'about', dm: true, userId: ALICE })).callback;
		assert.equal(dmCommand.body.data.content, BLOCKED_MESSAGE, 'and in DMs');

		const done = nextOutcome('command');
		const crisis = (await slash({ name: 'crisis', guildId: s.guildId, userId: ALICE })).callback;
		await done;
		assertPrivate(crisis.body);
		assert.match(crisis.body.data.content, /Crisis support worldwide/);
		const withText = (await slash({ name: 'crisis', dm: true, userId: ALICE, options: { text: 'I want to end my life' } })).callback;
		assert.notEqual(withText.body.data.content, BLOCKED_MESSAGE);
		assert.match(withText.body.data.content, /Crisis support|crisis line|988|Samaritans|emergency/i);
		const privacy = (await slash({ name: 'privacy', subcommand: 'info', dm: true, userId: ALICE })).callback;
		assert.notEqual(privacy.body.data.content, BLOCKED_MESSAGE, 'data rights hold for a blocked person');
		assert.match(JSON.stringify(privacy.body.data), /encrypted at rest/);
	});

	test('a crisis DM still gets the resources first; an ordinary DM gets one refusal and no AI', async () => {
		const crisis = await dm(ALICE, 'I want to kill myself, I cannot do this anymore');
		assert.notEqual(crisis.level, 'none');
		assert.equal(crisis.resources, 'sent');
		assert.equal(crisis.aiReply, false, 'no careful AI reply for a blocked person');
		const posts = postsTo(s.fake, dmOf(s.fake, ALICE));
		assert.ok(posts.length >= 1, 'the resources were sent');
		assert.match(posts[0]!.body.content, /Crisis support|crisis line|988|Samaritans|emergency/i);

		s.fake.clearRequests();
		const plain = await dm(ALICE, 'tell me something nice about clouds');
		assert.equal(plain.level, 'none');
		assert.equal(plain.aiReply, false);
		assert.deepEqual(
			postsTo(s.fake, dmOf(s.fake, ALICE)).map((p) => p.body.content),
			[BLOCKED_MESSAGE],
		);
		const again = await dm(ALICE, 'and about rain?');
		assert.equal(again.aiReply, false);
		assert.equal(postsTo(s.fake, dmOf(s.fake, ALICE)).length, 1, 'the refusal is not repeated at every message');
		assert.equal(completions(s.openai).length, 0, 'the companion never ran');
	});

	test('owners cannot be blocked; unblocking lets the person back in at once, the record stays', async () => {
		const refused = await owner('block', 'user', { id: OWNER, reason: 'oops' });
		assert.equal(refused.text, 'Owners cannot be blocked.');
		const lifted = await owner('unblock', 'user', { id: ALICE });
		assert.match(lifted.text, /^Unblocked <@\d+>/);
		const joke = (await slash({ name: 'joke', guildId: s.guildId, userId: ALICE })).callback;
		assert.notEqual(joke.body.data.content, BLOCKED_MESSAGE);
		const rows = await em().find(Block, { targetId: ALICE });
		assert.equal(rows.length, 1);
		assert.ok(rows[0]!.liftedAt, 'lifted, not deleted');
		assert.equal(rows[0]!.liftedBy, lifted.userId);
	});
});

describe('blocking a server', () => {
	test('its members are refused except crisis help; the same person elsewhere is not; Haven leaves when asked', async () => {
		const placed = await owner('block', 'guild', { id: otherGuild, reason: 'raids' });
		assert.match(placed.text, new RegExp(`^Blocked server ${otherGuild}\\.`));

		const joke = (await slash({ name: 'joke', guildId: otherGuild, userId: ALICE })).callback;
		assert.equal(joke.body.data.content, BLOCKED_MESSAGE);
		const crisis = (await slash({ name: 'crisis', guildId: otherGuild, userId: ALICE })).callback;
		assert.match(crisis.body.data.content, /Crisis support worldwide/);
		const home = (await slash({ name: 'about', guildId: s.guildId, userId: ALICE })).callback;
		assert.match(textOf(home.body), /About Haven/, 'not blocked in another server');
		const ownerThere = (await slash({ name: 'about', guildId: otherGuild, userId: OWNER })).callback;
		assert.match(textOf(ownerThere.body), /About Haven/, 'owners are never blocked');

		// A mention in the blocked server: no answer in the channel; the refusal comes privately.
		const member = someone();
		const done = nextOutcome('message');
		const channel = s.fake.guild(otherGuild)!.channels.find((c) => c.type === 0)!.id as string;
		s.fake.sendMessage({ authorId: member, guildId: otherGuild, channelId: channel, mentionsBot: true, content: 'hello Haven' });
		const outcome = await done;
		assert.equal(outcome.aiReply, false);
		assert.equal(postsTo(s.fake, channel).length, 0, 'nothing in the channel');
		assert.deepEqual(
			postsTo(s.fake, dmOf(s.fake, member)).map((p) => p.body.content),
			[BLOCKED_MESSAGE],
		);

		const left = await owner('block', 'guild', { id: otherGuild, reason: 'raids, and leave', leave: true });
		assert.match(left.text, /already blocked; the reason is updated\.[\s\S]*Haven left that server\./);
		assert.ok(s.fake.requests.some((r) => r.method === 'DELETE' && r.path === `/users/@me/guilds/${otherGuild}`));
		await waitFor(() => !s.world.client.guilds.cache.has(otherGuild), { what: 'the client to drop the server' });
		const list = await owner('block', 'list');
		assert.match(list.text, new RegExp(`server ${otherGuild}`));
		assert.match(list.text, /raids, and leave/);
	});
});

describe('the AI switch', () => {
	after(async () => {
		await owner('ai', 'on');
		await owner('ai', 'model');
	});

	test('off and on take effect on the next request, no restart: fallbacks, POST /v1/chat 503, no provider call', async () => {
		assert.equal((await chat('I had a good day')).status, 200);
		assert.equal(completions(s.openai).length, 1);

		const off = await owner('ai', 'off');
		assert.match(off.text, /AI features are off/);
		s.openai.reset();
		const refused = await chat('I had a good day');
		assert.equal(refused.status, 503);
		assert.match(((await refused.json()) as { error: string }).error, /turned off/);
		const plain = await dm(BOB, 'my day was long and a bit dull');
		assert.equal(plain.aiReply, false);
		assert.deepEqual(
			postsTo(s.fake, dmOf(s.fake, BOB)).map((p) => p.body.content),
			[fallbackFor('disabled')],
		);
		const crisis = await chat('I want to kill myself tonight');
		assert.equal(crisis.status, 200, 'a person in crisis still gets the resources');
		assert.equal(completions(s.openai).length, 0, 'the provider is never called while off');
		assert.equal(s.openai.requests.length, 0, 'no moderation call either');

		const on = await owner('ai', 'on');
		assert.match(on.text, /AI features are on/);
		assert.equal((await chat('I had a good day')).status, 200);
		assert.equal(completions(s.openai).length, 1);
	});

	test('the chat model changes for the next request, and back', async () => {
		const changed = await owner('ai', 'model', { name: 'gpt-test-mini' });
		assert.match(changed.text, /gpt-test-mini/);
		await chat('hello there');
		assert.equal(s.openai.requests.find((r) => r.path === '/v1/chat/completions')!.body.model, 'gpt-test-mini');
		await owner('ai', 'model');
		s.openai.reset();
		await chat('hello again');
		assert.notEqual(s.openai.requests.find((r) => r.path === '/v1/chat/completions')!.body.model, 'gpt-test-mini');
	});

	test('a change from another process (the CLI) is picked up within the cache time', async () => {
		await changeAiState(em(), { enabled: false, by: null });
		const status = await waitFor(async () => ((await chat('hi')).status === 503 ? 503 : undefined), {
			timeoutMs: 8_000,
			everyMs: 250,
			what: '503',
		});
		assert.equal(status, 503);
		await changeAiState(em(), { enabled: true, by: null });
		await waitFor(async () => (await chat('hi')).status === 200, { timeoutMs: 8_000, everyMs: 250, what: '200' });
	});
});

describe('owner status', () => {
	test('/status: shards, servers, database, AI, version, release check', async () => {
		await owner('ai', 'off');
		const { text } = await owner('status', undefined);
		await owner('ai', 'on');
		assert.match(text, /Haven status/);
		assert.match(text, /Version: v0\.3\.0/);
		assert.match(text, /Shards: #0 ready/);
		assert.match(text, /Servers: \d+/);
		assert.match(text, /Database: up \(\d+ ms\)/);
		assert.match(text, /AI: off: fixed replies only · model /);
		assert.match(text, /Release check: current: latest v0\.3\.0/);
		const refused = (await slash({ name: 'status', guildId: s.guildId, userId: BOB })).callback;
		assert.equal(refused.body.data.content, "This command is for Haven's owners.");
	});
});

describe('the feedback loop', () => {
	test('owners hear of new feedback by DM (no LOG_CHANNEL_ID): an id and a count, never the text', async () => {
		const author = someone();
		const { callback } = await slash({
			name: 'feedback',
			guildId: s.guildId,
			userId: author,
			options: { message: 'The breathing exercise helped me a lot' },
		});
		assert.match(callback.body.data.content, /Thank you/);
		const row = await em().findOneOrFail(Feedback, { userId: author });
		const ownerDm = await s.fake.waitForRequest({ method: 'POST', path: `/channels/${dmOf(s.fake, OWNER)}/messages` }, 5_000);
		assert.match(ownerDm.body.content, new RegExp(`^New feedback #${row.id}: \\d+ waiting in the review queue\\.`));
		assert.doesNotMatch(ownerDm.body.content, /breathing/);
	});

	test('/feedback without a message shows the state of what the person sent', async () => {
		const author = someone();
		const queued = await submitFeedback(em(), { userId: author, message: 'Please add more languages', source: 'api' });
		const kept = await submitFeedback(em(), { userId: author, message: 'Nice bot overall', source: 'discord' });
		const shown = await submitFeedback(em(), {
			userId: author,
			message: 'Haven got me through a hard week',
			source: 'discord',
			consentPublic: true,
		});
		await approveFeedback(em(), kept.id, {});
		await approveFeedback(em(), shown.id, { public: true });
		await submitFeedback(em(), { userId: someone(), message: 'Someone else entirely', source: 'api' });

		const { callback } = await slash({ name: 'feedback', dm: true, userId: author });
		assertPrivate(callback.body);
		const text = textOf(callback.body);
		assert.match(text, /Your feedback/);
		assert.match(text, new RegExp(`#${queued.id}\\*\\* · [^\\n]* · queued`));
		assert.match(text, new RegExp(`#${kept.id}\\*\\* · [^\\n]* · approved: read and kept`));
		assert.match(text, new RegExp(`#${shown.id}\\*\\* · [^\\n]* · published`));
		assert.doesNotMatch(text, /Someone else/);
		assert.match(text, /3 messages/);
	});

	test('/feedback-manage reply: a modal, the text by DM to the author; closed DMs are reported to the owner', async () => {
		const item = await submitFeedback(em(), { userId: CAROL, message: 'The check-in reminders are too frequent', source: 'discord' });
		const { callback } = await owner('feedback-manage', 'reply', { id: item.id });
		assert.equal(callback.body.type, InteractionResponseType.Modal);
		assert.equal(callback.body.data.custom_id, `fbr:${item.id}`);

		const submit = s.fake.sendModalSubmit({
			customId: `fbr:${item.id}`,
			fields: { reply: 'Thanks! You can now set them weekly.' },
			guildId: s.guildId,
			userId: OWNER,
		});
		const answer = await submit.callback();
		assertPrivate(answer.body);
		assert.equal(answer.body.data.content, `Reply to feedback #${item.id} sent to its author by DM.`);
		const carolDm = postsTo(s.fake, dmOf(s.fake, CAROL));
		assert.equal(carolDm.length, 1);
		assert.match(
			carolDm[0]!.body.content,
			new RegExp(`^Haven's owners replied to your feedback #${item.id}:\\n\\nThanks! You can now set them weekly\\.`),
		);
		assert.doesNotMatch(carolDm[0]!.body.content, /too frequent/, 'their feedback is not quoted back');

		const closed = someone();
		s.fake.setDmsClosed(closed);
		const other = await submitFeedback(em(), { userId: closed, message: 'Could you add a dark theme to the site', source: 'discord' });
		const refused = await s.fake
			.sendModalSubmit({ customId: `fbr:${other.id}`, fields: { reply: 'Working on it' }, guildId: s.guildId, userId: OWNER })
			.callback();
		assert.match(refused.body.data.content, new RegExp(`^Could not DM the author of feedback #${other.id}: they do not accept direct messages`));
		const notOwner = await s.fake
			.sendModalSubmit({ customId: `fbr:${other.id}`, fields: { reply: 'hi' }, guildId: s.guildId, userId: BOB })
			.callback();
		assert.equal(notOwner.body.data.content, "This command is for Haven's owners.");
	});

	test('the "Reply by DM" button on an item opens the same modal', async () => {
		const item = await submitFeedback(em(), { userId: someone(), message: 'Button path feedback here', source: 'discord' });
		const view = await owner('feedback-manage', 'view', { id: item.id });
		const buttons = (view.callback.body.data.components ?? []).flatMap((row: any) => row.components);
		const reply = buttons.find((b: any) => b.label === 'Reply by DM');
		assert.equal(reply.custom_id, `fbm:reply:${item.id}`);
		const click = await s.fake.sendButton({ customId: reply.custom_id, userId: OWNER, guildId: s.guildId }).callback();
		assert.equal(click.body.type, InteractionResponseType.Modal);
		assert.equal(click.body.data.custom_id, `fbr:${item.id}`);
	});
});

describe('the CLI', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL: the embedded PostgreSQL is held by the running service' }, () => {
	const bin = new URL('../../bin/haven.js', import.meta.url).pathname;
	const run = (args: string[], env: Record<string, string | undefined> = {}) => {
		const base: Record<string, string | undefined> = { ...process.env, ...s.world.env, LOG_LEVEL: 'error', ...env };
		for (const [key, value] of Object.entries(base)) if (value === undefined) delete base[key];
		// Asynchronously: the fake Discord the CLI talks to runs in this process.
		return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
			execFile(
				process.execPath,
				[bin, ...args],
				{ env: base as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 },
				(error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
			);
		});
	};

	test('feedback reply needs TOKEN, and says so; with it, the author gets the DM', async () => {
		const author = someone();
		const item = await submitFeedback(em(), { userId: author, message: 'CLI reply target message', source: 'api' });
		const missing = await run(['feedback', 'reply', String(item.id), '--message', 'Hello from the CLI'], { TOKEN: undefined });
		assert.notEqual(missing.status, 0);
		assert.match(missing.stderr, /TOKEN is not set/);
		assert.equal(postsTo(s.fake, dmOf(s.fake, author)).length, 0);

		const sent = await run(['feedback', 'reply', String(item.id), '--message', 'Hello from the CLI']);
		assert.equal(sent.status, 0, sent.stderr);
		assert.match(sent.stdout, new RegExp(`Reply to feedback #${item.id} sent`));
		assert.match(postsTo(s.fake, dmOf(s.fake, author))[0]!.body.content, /Hello from the CLI/);
	});

	test('feedback unapprove and delete', async () => {
		const item = await submitFeedback(em(), { userId: someone(), message: 'To be unapproved and deleted', source: 'api' });
		await approveFeedback(em(), item.id, { public: true });
		const unapproved = await run(['feedback', 'unapprove', String(item.id)]);
		assert.equal(unapproved.status, 0, unapproved.stderr);
		const row = await em().findOneOrFail(Feedback, { id: item.id });
		assert.equal(row.status, 'queued');
		assert.equal(row.public, false);
		const deleted = await run(['feedback', 'delete', String(item.id)]);
		assert.equal(deleted.status, 0, deleted.stderr);
		assert.equal(await em().count(Feedback, { id: item.id }), 0);
	});

	test('block, blocks, unblock and ai off reach the running service without a restart', async () => {
		const person = BOB;
		const blocked = await run(['block', 'user', person, '--reason', 'from the CLI']);
		assert.equal(blocked.status, 0, blocked.stderr);
		assert.match((await run(['blocks'])).stdout, /from the CLI/);
		await waitFor(async () => (await slash({ name: 'about', dm: true, userId: person })).callback.body.data.content === BLOCKED_MESSAGE, {
			timeoutMs: 15_000,
			everyMs: 1_000,
			what: 'the block to reach the service',
		});
		assert.equal((await run(['unblock', 'user', person])).status, 0);
		const off = await run(['ai', 'off']);
		assert.equal(off.status, 0, off.stderr);
		assert.match(off.stdout, /AI: off/);
		await waitFor(async () => ((await chat('hello')).status === 503 ? true : undefined), { timeoutMs: 8_000, everyMs: 250, what: '503' });
		assert.equal((await run(['ai', 'on'])).status, 0);
	});
});
