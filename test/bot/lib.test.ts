// The bot's pure parts and small services, without Discord: definitions and their hash, the registration diff,
// rendering, pagination, version comparison, the release check, the log channel's rate limit and the bot-list post.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../support/wait.ts';
import { ApplicationCommandOptionType, ApplicationCommandType, MessageFlags } from 'discord.js';
import {
	collectDefinitions,
	cooldownSeconds,
	definitionProblems,
	registrationHash,
	registrationPlan,
	toApplicationCommand,
	type CommandDefinition,
} from '../../src/lib/discord/definitions.ts';
import { deployCommands, describeDeploy, diffCommands } from '../../src/lib/discord/deploy.ts';
import { countryChoices, INTERNATIONAL } from '../../src/lib/crisis/resources.ts';
import { deferWhenSlow, respondSoon, updateSoon } from '../../src/lib/discord/reply.ts';
import { describeError, failureMessage, funnelError } from '../../src/lib/discord/interaction-errors.ts';
import { createIntegration } from '../../src/lib/operations/bot-list.ts';
import { createLogChannel } from '../../src/lib/operations/log-channel.ts';
import { compareVersions, createReleaseChecker, describeReleaseCheck } from '../../src/lib/operations/release-check.ts';
import {
	authorizeUrl,
	cooldownMessage,
	deniedMessage,
	renderChangelog,
	renderHelp,
	renderPing,
	renderStats,
	renderVersion,
} from '../../src/lib/discord/info-views.ts';
import { actionId, listId, parseFeedbackButton, renderFeedbackItem, renderFeedbackList } from '../../src/lib/feedback/views.ts';
import { chunkLines, excerpt, formatDuration, paginate } from '../../src/lib/discord/text.ts';
import type { FeedbackView } from '../../src/lib/feedback/store.ts';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.ts';

const def = (overrides: Partial<CommandDefinition> = {}): CommandDefinition => ({
	name: 'ping',
	description: 'Check that Haven is responding',
	category: 'Info',
	access: 'everyone',
	...overrides,
});

describe('command definitions', () => {
	test('every command file exports a valid definition; cooldowns match the README table', async () => {
		const definitions = await collectDefinitions();
		assert.deepEqual(definitionProblems(definitions), []);
		const byName = new Map(definitions.map((d) => [d.name, d]));
		const expected: Record<string, number> = {
			ping: 5,
			about: 5,
			help: 5,
			invite: 5,
			support: 5,
			docs: 5,
			source: 5,
			privacy: 5,
			stats: 10,
			version: 10,
			'feedback-manage': 3,
			changelog: 3,
			feedback: 30,
		};
		for (const [name, seconds] of Object.entries(expected)) {
			assert.ok(byName.has(name), `/${name} is defined`);
			assert.equal(cooldownSeconds(byName.get(name)!), seconds, `/${name} cooldown`);
		}
		assert.equal(byName.get('changelog')!.access, 'owner');
		assert.equal(byName.get('feedback-manage')!.access, 'owner');
	});

	test('/crisis, /preferences and /guildsettings country offer the same countries, within the 25 choices Discord allows', async () => {
		const byName = new Map((await collectDefinitions()).map((d) => [d.name, d]));
		const countryOf = (options: readonly any[] | undefined): { name: string; value: string }[] => {
			for (const option of options ?? []) {
				if (option.name === 'country' && option.choices) return option.choices;
				const inner = option.options ? countryOf(option.options) : [];
				if (inner.length) return inner;
			}
			return [];
		};
		const crisis = countryOf(byName.get('crisis')!.options);
		assert.deepEqual(crisis, countryChoices());
		assert.deepEqual(countryOf(byName.get('guildsettings')!.options), crisis);
		// /preferences adds "the server's" in front of the same list.
		assert.deepEqual(countryOf(byName.get('preferences')!.options).slice(1), crisis);
		assert.deepEqual(crisis.at(-1), { name: 'Worldwide directory', value: INTERNATIONAL });
		assert.ok(crisis.some((choice) => choice.value === 'GB' && choice.name === 'the United Kingdom'));
		assert.ok(crisis.length + 1 <= 25);
	});

	test('owner commands are planned for the private guild only; bodies are explicit and sorted', () => {
		const plan = registrationPlan([def({ name: 'zeta' }), def({ name: 'changelog', access: 'owner' }), def({ name: 'alpha' })]);
		assert.deepEqual(
			plan.global.map((c) => c.name),
			['alpha', 'zeta'],
		);
		assert.deepEqual(
			plan.owner.map((c) => c.name),
			['changelog'],
		);
		assert.deepEqual(toApplicationCommand(def()), {
			name: 'ping',
			type: ApplicationCommandType.ChatInput,
			description: 'Check that Haven is responding',
			options: [],
			default_member_permissions: null,
			contexts: [0, 1],
			integration_types: [0],
			nsfw: false,
		});
		assert.equal(toApplicationCommand(def({ access: 'guildAdmin' })).default_member_permissions, '32');
		assert.deepEqual(toApplicationCommand(def({ access: 'owner' })).contexts, [0]);
	});

	test('the hash changes with any body, the application or the private guild, and not with order', () => {
		const a = registrationPlan([def({ name: 'a' }), def({ name: 'b' })]);
		const b = registrationPlan([def({ name: 'b' }), def({ name: 'a' })]);
		const hash = registrationHash(a, '1', '2');
		assert.equal(registrationHash(b, '1', '2'), hash);
		assert.notEqual(registrationHash(registrationPlan([def({ name: 'a' }), def({ name: 'b', description: 'Other' })]), '1', '2'), hash);
		assert.notEqual(registrationHash(a, '1', '3'), hash);
		assert.notEqual(registrationHash(a, '9', '2'), hash);
		assert.notEqual(registrationHash(a, '1', undefined), hash);
	});

	test('problems Discord would refuse are caught before registering', () => {
		assert.match(definitionProblems([def({ name: 'Ping' })])[0]!, /not a valid slash command name/);
		assert.match(definitionProblems([def(), def()])[0]!, /two commands are named "ping"/);
		assert.match(definitionProblems([def({ description: '' })])[0]!, /1 to 100/);
		assert.throws(() => registrationPlan([def({ name: 'a b' })]), /Invalid command definitions/);
	});

	test('diff against what Discord has: created, updated, removed, unchanged (Discord extras ignored)', () => {
		const desired = registrationPlan([
			def({ name: 'a' }),
			def({ name: 'b' }),
			def({ name: 'c', options: [{ type: ApplicationCommandOptionType.String, name: 'x', description: 'X', required: true }] }),
		]).global;
		const current = [
			{
				...desired[0]!,
				id: '1',
				application_id: '9',
				version: '5',
				name_localizations: null,
				description_localizations: null,
				dm_permission: true,
			},
			{ ...desired[2]!, id: '3', options: [{ type: ApplicationCommandOptionType.String, name: 'x', description: 'Changed', required: true }] },
			{ ...desired[1]!, name: 'old', id: '4' },
		];
		const changes = diffCommands('global', current as never, desired);
		assert.deepEqual(changes, { scope: 'global', created: ['/b'], updated: ['/c'], removed: ['/old'], unchanged: ['/a'] });
		assert.deepEqual(describeDeploy({ status: 'deployed', hash: 'h', warnings: [], scopes: [changes] }), [
			'Commands global: created 1 (/b), updated 1 (/c), removed 1 (/old), unchanged 1',
		]);
	});
});

describe('deployCommands (stub REST and database)', () => {
	test('without PRIVATE_GUILD_ID owner commands are registered nowhere, with a warning; the hash then skips', async () => {
		const calls: string[] = [];
		const rest = {
			get: async (route: string) => (calls.push(`GET ${route}`), []),
			put: async (route: string, { body }: { body: unknown[] }) => (calls.push(`PUT ${route} ${body.length}`), body),
		};
		let stored: unknown;
		const em = {
			findOne: async () => (stored ? { value: stored } : null),
			upsert: async (_: unknown, row: { value: unknown }) => void (stored = row.value),
		};
		const db = { orm: { em: { fork: () => em } } };
		const definitions = [def(), def({ name: 'changelog', access: 'owner' })];
		const first = await deployCommands({ rest: rest as never, applicationId: '1', privateGuildId: undefined, definitions, db: db as never });
		assert.equal(first.status, 'deployed');
		assert.deepEqual(calls, ['GET /applications/1/commands', 'PUT /applications/1/commands 1']);
		assert.deepEqual(first.warnings, ['PRIVATE_GUILD_ID is not set: the 1 owner command(s) are not registered anywhere']);
		const second = await deployCommands({ rest: rest as never, applicationId: '1', privateGuildId: undefined, definitions, db: db as never });
		assert.equal(second.status, 'skipped');
		assert.equal(calls.length, 2);
	});
});

describe('answering soon (defer when slow)', () => {
	const fakeInteraction = () => {
		const calls: string[] = [];
		const interaction = {
			deferred: false,
			replied: false,
			reply: async () => void calls.push('reply'),
			deferReply: async (options: { flags: number }) => {
				calls.push(`deferReply ${options.flags}`);
				interaction.deferred = true;
			},
			editReply: async (view: { content: string }) => void calls.push(`editReply ${view.content}`),
			followUp: async () => void calls.push('followUp'),
		};
		return { interaction, calls };
	};

	test('fast work: one reply; slow work: an ephemeral deferral first, then the edit', async () => {
		const fast = fakeInteraction();
		await respondSoon(fast.interaction as never, async () => ({ content: 'done' }), 50);
		assert.deepEqual(fast.calls, ['reply']);
		// sleep() here is work slower than the deferral threshold (10 ms): the behaviour under test, not a wait.
		const slow = fakeInteraction();
		await respondSoon(slow.interaction as never, () => sleep(80).then(() => ({ content: 'done' })), 10);
		assert.deepEqual(slow.calls, [`deferReply ${MessageFlags.Ephemeral}`, 'editReply done']);
		const failing = fakeInteraction();
		await assert.rejects(
			respondSoon(failing.interaction as never, () => sleep(40).then(() => Promise.reject(new Error('db down'))), 10),
			/db down/,
		);
		assert.deepEqual(failing.calls, [`deferReply ${MessageFlags.Ephemeral}`], 'deferred: the funnel will edit');
	});

	test('buttons: fast work updates the message in one call; slow work defers the update, then edits', async () => {
		const button = () => {
			const calls: string[] = [];
			const interaction = {
				update: async (view: { content: string }) => void calls.push(`update ${view.content}`),
				deferUpdate: async () => void calls.push('deferUpdate'),
				editReply: async (view: { content: string }) => void calls.push(`editReply ${view.content}`),
			};
			return { interaction, calls };
		};
		const fast = button();
		await updateSoon(fast.interaction as never, async () => ({ content: 'done' }), 50);
		assert.deepEqual(fast.calls, ['update done']);
		// sleep() here is work slower than the deferral threshold: the behaviour under test, not a wait.
		const slow = button();
		await updateSoon(slow.interaction as never, () => sleep(80).then(() => ({ content: 'done' })), 10);
		assert.deepEqual(slow.calls, ['deferUpdate', 'editReply done']);
	});

	test('deferWhenSlow: the edit step defaults to the answer step; fast failures send nothing', async () => {
		const calls: string[] = [];
		const steps = {
			answer: async (text: string) => void calls.push(`answer ${text}`),
			defer: async () => void calls.push('defer'),
		};
		await deferWhenSlow(() => sleep(60).then(() => 'late'), steps, 10); // slow work, not a wait
		assert.deepEqual(calls, ['defer', 'answer late']);
		calls.length = 0;
		await assert.rejects(
			deferWhenSlow(() => Promise.reject(new Error('bug')), steps, 50),
			/bug/,
		);
		assert.deepEqual(calls, []);
	});
});

describe('rendering', () => {
	test('cooldown denial says "try again in N seconds", N rounded up', () => {
		assert.equal(cooldownMessage(4_001), 'Please slow down a little: try again in 5 seconds.');
		assert.equal(cooldownMessage(5_000), 'Please slow down a little: try again in 5 seconds.');
		assert.equal(cooldownMessage(120), 'Please slow down a little: try again in 1 second.');
		assert.equal(
			deniedMessage({ identifier: 'preconditionCooldown', message: 'x', context: { remaining: 9_200 } }),
			'Please slow down a little: try again in 10 seconds.',
		);
		assert.equal(
			deniedMessage({ identifier: 'OwnerOnly', message: "This command is for Haven's owners." }),
			"This command is for Haven's owners.",
		);
	});

	test('help is generated from the definitions with cooldowns; owner commands only for owners', () => {
		const definitions = [
			def(),
			def({ name: 'stats', description: 'Totals', cooldownSeconds: 10 }),
			def({ name: 'changelog', description: 'Patch notes', access: 'owner' }),
		];
		const member = renderHelp({ definitions, isOwner: false }).embeds![0]!.description!;
		assert.match(member, /\*\*\/ping\*\*: Check that Haven is responding\. _Cooldown 5 s\._/);
		assert.match(member, /\*\*\/stats\*\*: Totals\. _Cooldown 10 s\._/);
		assert.doesNotMatch(member, /changelog/);
		const owner = renderHelp({ definitions, isOwner: true }).embeds![0]!.description!;
		assert.match(owner, /__\*\*Owner\*\*__\n\*\*\/changelog\*\*: Patch notes\. _Cooldown 3 s\._/);
		const many = Array.from({ length: 80 }, (_, i) => def({ name: `c${i}`, description: 'x'.repeat(90) }));
		const embeds = renderHelp({ definitions: many, isOwner: false }).embeds!;
		assert.ok(embeds.length > 1 && embeds.every((embed) => embed.description!.length <= 4_096));
	});

	test('ping, stats and version views', () => {
		assert.equal(renderPing({ gatewayMs: -1, roundTripMs: null }).content, 'Pong! Gateway heartbeat: not measured yet. Round trip: measuring.');
		assert.equal(renderPing({ gatewayMs: 41.6, roundTripMs: 120.2 }).content, 'Pong! Gateway heartbeat: 42 ms. Round trip: 120 ms.');
		const stats = renderStats({ users: 1200, guilds: 3, conversations: 45, moodCheckIns: 6, crisisEvents: 7 }).embeds![0]!;
		assert.deepEqual(
			stats.fields!.map((f) => f.value),
			['1,200', '3', '45', '6', '7'],
		);
		const base = { running: 'v1.0.0', problem: null, checkedAt: '2026-11-21T00:00:00.000Z' };
		const latest = { tag: 'v1.1.0', url: 'https://example.test/r', publishedAt: '2026-11-01T00:00:00Z' };
		assert.match(renderVersion({ ...base, state: 'outdated', latest }).embeds![0]!.description!, /newer release is available: \[v1\.1\.0\]/);
		assert.match(renderVersion({ ...base, state: 'current', latest: { ...latest, tag: 'v1.0.0' } }).embeds![0]!.description!, /Up to date/);
		assert.match(
			renderVersion({ ...base, state: 'unknown', latest: null, problem: 'GitHub answered 500' }).embeds![0]!.description!,
			/GitHub answered 500/,
		);
	});

	test('invite link carries CLIENT_ID, scopes and permissions', () => {
		const url = new URL(authorizeUrl('123456789012345678'));
		assert.equal(url.searchParams.get('client_id'), '123456789012345678');
		assert.equal(url.searchParams.get('scope'), 'bot applications.commands');
		assert.ok(Number(url.searchParams.get('permissions')) > 0);
	});

	test('changelog pages: within the embed limit, navigation buttons, clear messages when missing', () => {
		const pages = paginate(Array.from({ length: 400 }, (_, i) => `- change number ${i} with some words`).join('\n'), 3_900);
		assert.ok(pages.length >= 3);
		const view = renderChangelog({ ok: true, pages, path: '/x' }, 1);
		assert.equal(view.embeds![0]!.footer!.text, `Page 2 of ${pages.length}`);
		assert.deepEqual(
			view.components![0]!.components.map((c) => ('custom_id' in c ? c.custom_id : '')),
			['changelog:0', 'changelog:2'],
		);
		assert.equal(renderChangelog({ ok: true, pages, path: '/x' }, 99).embeds![0]!.footer!.text, `Page ${pages.length} of ${pages.length}`);
		assert.match(renderChangelog({ ok: false, reason: 'unset' }, 0).content!, /PATCHNOTES_PATH/);
		assert.match(renderChangelog({ ok: false, reason: 'missing', path: '/nope.md' }, 0).content!, /not found at `\/nope\.md`/);
	});

	test('feedback views and button ids', () => {
		assert.deepEqual(parseFeedbackButton(listId('approved', 2)), { kind: 'list', filter: 'approved', page: 2 });
		assert.deepEqual(parseFeedbackButton(actionId('approve-public', 7)), { kind: 'action', action: 'approve-public', id: 7 });
		for (const bad of ['fbm:list:bogus:1', 'fbm:explode:1', 'fbm:view:0', 'fbm:view:x', 'other:view:1'])
			assert.equal(parseFeedbackButton(bad), null, bad);
		const item: FeedbackView = {
			id: 7,
			userId: '123456789012345678',
			message: 'Thanks **so** much @everyone',
			source: 'discord',
			status: 'queued',
			consentPublic: false,
			public: false,
			featured: false,
			reviewerId: null,
			reviewedAt: null,
			createdAt: '2026-11-21T00:00:00.000Z',
		};
		const view = renderFeedbackItem(item);
		assert.match(view.embeds![0]!.description!, /Thanks \\\*\\\*so\\\*\\\* much/);
		assert.match(view.embeds![0]!.description!, /did not agree to be quoted/);
		const ids = view.components!.flatMap((row) => row.components.map((c) => ('custom_id' in c ? c.custom_id : '')));
		assert.equal(new Set(ids).size, ids.length, 'custom ids are unique in a message');
		const list = renderFeedbackList({ items: [item], filter: 'queued', page: 0, pages: 2, total: 6 });
		assert.equal(list.embeds![0]!.footer!.text, 'Page 1 of 2 · 6 items');
		const [prev, , next] = list.components![0]!.components as { disabled?: boolean }[];
		assert.equal(prev!.disabled, true);
		assert.equal(next!.disabled, false);
	});

	test('text helpers', () => {
		const long = `${'word '.repeat(1000)}\n${'x'.repeat(5000)}`;
		const pages = paginate(long, 2000);
		assert.ok(pages.every((page) => page.length <= 2000));
		assert.equal(pages.join('').replace(/\s/g, '').length, long.replace(/\s/g, '').length, 'nothing lost');
		assert.deepEqual(chunkLines(['aaa', 'bbb', 'ccc'], 7), ['aaa\nbbb', 'ccc']);
		assert.equal(excerpt('a  b\n\nc', 10), 'a b c');
		assert.equal(excerpt('abcdefghijkl', 5), 'abcd…');
		assert.equal(formatDuration(93_784), '1d 2h 3m');
		assert.equal(formatDuration(42), '42s');
	});
});

describe('versions and the release check', () => {
	test('compareVersions', () => {
		const cases: [string, string, string][] = [
			['v1.2.3', 'v1.2.3', 'current'],
			['1.2.3', 'v1.2.3', 'current'],
			['v1.2.3', 'v1.3.0', 'outdated'],
			['v1.10.0', 'v1.9.9', 'ahead'],
			['v1.2.3-4-gabc1234', 'v1.2.3', 'ahead'],
			['v1.2.3-4-gabc1234-dirty', 'v1.2.4', 'outdated'],
			['v1.2.3-dirty', 'v1.2.3', 'ahead'],
			['v2.0.0-rc.1', 'v2.0.0', 'outdated'],
			['v2.0.0-rc.2', 'v2.0.0-rc.10', 'outdated'],
			['v2.0.0', 'v2.0.0-rc.1', 'ahead'],
			['25ecd57', 'v1.0.0', 'unknown'],
			['25ecd57-dirty', 'v1.0.0', 'unknown'],
		];
		for (const [running, latest, state] of cases) assert.equal(compareVersions(running, latest), state, `${running} vs ${latest}`);
	});

	describe('against a capture server', () => {
		let capture: CaptureServer;
		before(async () => (capture = await startCaptureServer()));
		after(() => capture.close());

		test('GET /repos/<repo>/releases/latest with the token; cached; failures are results', async () => {
			capture.setResponse(200, 0, {
				tag_name: 'v1.4.0',
				html_url: 'https://github.com/o/r/releases/tag/v1.4.0',
				published_at: '2026-11-01T00:00:00Z',
			});
			let now = 0;
			const checker = createReleaseChecker({ running: 'v1.3.0', repo: 'o/r', apiUrl: capture.url, token: 'ghp_secret', now: () => now });
			const first = await checker.check();
			assert.equal(first.state, 'outdated');
			assert.equal(first.latest!.tag, 'v1.4.0');
			assert.equal(
				describeReleaseCheck(first),
				'Release check: v1.3.0 is behind the latest release v1.4.0 (https://github.com/o/r/releases/tag/v1.4.0)',
			);
			assert.equal(capture.requests.length, 1);
			assert.equal(capture.requests[0]!.path, '/repos/o/r/releases/latest');
			assert.equal(capture.requests[0]!.headers.authorization, 'Bearer ghp_secret');
			await checker.check();
			assert.equal(capture.requests.length, 1, 'cached');
			now += 16 * 60_000;
			capture.setResponse(404, 0, { message: 'Not Found' });
			const missing = await checker.check();
			assert.equal(missing.state, 'unknown');
			assert.match(missing.problem!, /no published release/);

			capture.setResponse(200, 500, { tag_name: 'v9' });
			const slow = await createReleaseChecker({ running: 'v1.3.0', repo: 'o/r', apiUrl: capture.url, timeoutMs: 100 }).check();
			assert.match(slow.problem!, /did not answer within 100 ms/);
			const none = await createReleaseChecker({ running: 'v1.3.0', repo: undefined, apiUrl: capture.url }).check();
			assert.match(describeReleaseCheck(none), /skipped, no repository/);
		});

		test('bot-list integration: POST /bots/<id>/stats with the token and the counts; failures logged without the token', async () => {
			capture.requests.length = 0;
			capture.setResponse(200);
			const logs: string[] = [];
			const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), debug: () => undefined };
			const integration = createIntegration({
				baseUrl: `${capture.url}/api/`,
				token: 'list-token',
				clientId: '42',
				counts: () => ({ server_count: 7, shard_count: 2 }),
				log,
				intervalMs: 300,
			});
			integration.start();
			const [first, second] = await capture.waitForRequests(2, 2_000);
			await integration.stop();
			assert.equal(first!.method, 'POST');
			assert.equal(first!.path, '/api/bots/42/stats');
			assert.equal(first!.headers.authorization, 'list-token');
			assert.equal(first!.headers['content-type'], 'application/json');
			assert.deepEqual(first!.body, { server_count: 7, shard_count: 2 });
			// Arrival times: a loaded machine can delay the first request (a new connection) by tens of milliseconds.
			assert.ok(second!.at - first!.at >= 150, `posts ${second!.at - first!.at} ms apart with a 300 ms interval`);
			const count = capture.requests.length;
			await sleep(250); // a window in which nothing may happen: that is what is asserted
			assert.equal(capture.requests.length, count, 'no post after stop');

			capture.setResponse(500);
			const failing = createIntegration({
				baseUrl: capture.url,
				token: 'list-token',
				clientId: '42',
				counts: () => ({ server_count: 1, shard_count: 1 }),
				log,
			});
			assert.equal(await failing.post(), false);
			await failing.stop();
			assert.ok(logs.some((line) => /answered 500/.test(line)));
			assert.ok(logs.every((line) => !line.includes('list-token')));
		});
	});
});

describe('log channel', () => {
	test('one message per interval, queued lines joined, overflow dropped and reported, nothing after stop', async () => {
		const sent: { content: string; at: number }[] = [];
		const channel = createLogChannel({
			send: async (content) => void sent.push({ content, at: Date.now() }),
			log: { warn: () => undefined },
			intervalMs: 200,
			maxQueue: 3,
		});
		channel.post('one');
		await waitFor(() => sent.length === 1, { what: 'the first line sent' });
		for (const line of ['two', 'three', 'four', 'five', 'six']) channel.post(line);
		assert.equal(channel.dropped, 2);
		await channel.idle();
		assert.deepEqual(
			sent.map((s) => s.content),
			['one', '(2 earlier log lines dropped: too many at once)\ntwo\nthree\nfour'],
		);
		assert.ok(sent[1]!.at - sent[0]!.at >= 190, 'rate limited');
		channel.post('seven');
		channel.stop();
		await sleep(250); // a window in which nothing may be sent: that is what is asserted
		assert.equal(sent.length, 2);
	});

	test('a failing channel is reported once and never throws', async () => {
		const warnings: string[] = [];
		const channel = createLogChannel({
			send: async () => {
				throw Object.assign(new Error('Missing Permissions'), { code: 50013 });
			},
			log: { warn: (m) => warnings.push(m) },
			intervalMs: 10,
		});
		channel.post('a');
		await channel.idle();
		channel.post('b');
		await channel.idle();
		channel.stop();
		assert.equal(warnings.length, 1);
		assert.match(warnings[0]!, /50013/);
	});
});

describe('error funnel (unit)', () => {
	test('logs class, code and frames but never the message; tells the user an id', async () => {
		const error = Object.assign(new Error('insert into feedback values ($1) - my private words'), { code: '22001' });
		const described = describeError(error);
		assert.match(described, /^Error \(code 22001\) at /);
		assert.doesNotMatch(described, /private words/);
		const lines: string[] = [];
		const replies: any[] = [];
		const interaction = {
			isChatInputCommand: () => true,
			isAutocomplete: () => false,
			isRepliable: () => true,
			commandName: 'boom',
			options: { getSubcommand: () => null },
			deferred: false,
			replied: false,
			reply: async (payload: unknown) => void replies.push(payload),
		};
		const id = await funnelError(interaction as never, error, { error: (m) => lines.push(m), debug: () => undefined });
		assert.match(id!, /^[0-9a-f]{8}$/);
		assert.equal(lines.length, 1);
		assert.match(lines[0]!, new RegExp(`^/boom failed \\[error ${id}\\]: Error \\(code 22001\\)`));
		assert.doesNotMatch(lines[0]!, /private words/);
		assert.equal(replies[0].content, failureMessage(id!));
		assert.equal(replies[0].flags, MessageFlags.Ephemeral);
		assert.deepEqual(replies[0].allowedMentions, { parse: [] });
	});
});
