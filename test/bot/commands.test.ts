// The real service logged in to the fake Discord: startup (ready, registration, pieces, system log, release check,
// bot-list post), every info, feedback and owner command, cooldowns and permissions, the error funnel, the feedback lifecycle
// through to GET /v1/testimonials, /changelog, and server join/leave.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { container, InteractionHandler, InteractionHandlerTypes, UserError, type Command } from '@sapphire/framework';
import { InteractionResponseType, MessageFlags, type ButtonInteraction } from 'discord.js';
import { AppState } from '../../src/lib/db/index.ts';
import { HavenCommand } from '../../src/lib/discord/command.ts';
import { collectDefinitions } from '../../src/lib/discord/definitions.ts';
import { COMMANDS_HASH_KEY } from '../../src/lib/discord/deploy.ts';
import { submitFeedback } from '../../src/lib/feedback/store.ts';
import { buildGuild, guildCreatePayload } from '../support/fake-discord-data.ts';
import { snowflakeAt } from '../support/fake-discord.ts';
import { ADMIN_ID, buttonsOf, LOG_CHANNEL_ID, MEMBER_ID, OWNER_ID, slash, startBotWorld, textOf, VERSION, type BotWorld } from './support.ts';

const OWNER_2 = snowflakeAt(1_450_000_000_000, 21);
const OWNER_3 = snowflakeAt(1_450_000_000_000, 22);
const OWNER_4 = snowflakeAt(1_450_000_000_000, 23);
const OWNER_5 = snowflakeAt(1_450_000_000_000, 24);
/** A fresh user id per use, so per-user cooldowns of earlier tests never interfere. */
let nextUser = 100;
const someone = () => snowflakeAt(1_460_000_000_000, nextUser++);

const notes = mkdtempSync(join(tmpdir(), 'haven-notes-'));
const PATCHNOTES = join(notes, 'PATCHNOTES.md');
writeFileSync(PATCHNOTES, Array.from({ length: 300 }, (_, i) => `- Change ${i}: a line of patch notes that is long enough to fill pages`).join('\n'));

let world: BotWorld;

before(async () => {
	world = await startBotWorld({
		env: {
			OWNER_IDS: [OWNER_ID, OWNER_2, OWNER_3, OWNER_4, OWNER_5].join(','),
			LOG_CHANNEL_ID,
			PATCHNOTES_PATH: PATCHNOTES,
			INTEGRATION_TOKEN: 'bot-list-token',
		},
		lateEnv: (capture) => ({ INTEGRATION_BASE_URL: `${capture.url}/botlist` }),
	});
});

after(async () => {
	await world?.close();
	rmSync(notes, { recursive: true, force: true });
});

function assertPrivate(callback: { body: any }) {
	assert.equal(callback.body.data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral, 'ephemeral');
	assert.deepEqual(callback.body.data.allowed_mentions, { parse: [] }, 'pings nobody');
}

describe('startup', () => {
	test('logs in: one IDENTIFY, ready with the fake guilds', () => {
		assert.equal(world.client.isReady(), true);
		assert.equal(world.fake.identifyCount(0), 1);
		assert.equal(world.client.guilds.cache.size, 2);
		const identify = world.fake.gatewayReceived.find((p) => p.op === 2)!.d as { intents: number };
		// Guilds | GuildMessages | DirectMessages | MessageContent
		assert.equal(identify.intents, 1 | 512 | 4096 | 32768);
	});

	test('registration: global PUT of the global commands, private-guild PUT of the owner commands, hash stored', async () => {
		const definitions = await collectDefinitions();
		const owner = definitions
			.filter((d) => d.access === 'owner')
			.map((d) => d.name)
			.sort();
		const global = definitions
			.filter((d) => d.access !== 'owner')
			.map((d) => d.name)
			.sort();
		const registrations = world.fake.requests.filter((r) => r.path.includes('/commands'));
		assert.deepEqual(
			registrations.map((r) => `${r.method} ${r.path.replace(world.fake.applicationId, 'APP').replace(world.privateGuildId, 'PRIVATE')}`),
			[
				'GET /applications/APP/commands',
				'PUT /applications/APP/commands',
				'GET /applications/APP/guilds/PRIVATE/commands',
				'PUT /applications/APP/guilds/PRIVATE/commands',
			],
		);
		assert.deepEqual(
			world.fake
				.registeredCommands()
				.map((c) => c.name)
				.sort(),
			global,
		);
		assert.deepEqual(
			world.fake
				.registeredCommands(world.privateGuildId)
				.map((c) => c.name)
				.sort(),
			owner,
		);
		assert.deepEqual(owner, ['ai', 'block', 'changelog', 'feedback-manage', 'status', 'unblock']);
		const other = world.fake.guilds.ids[1]!;
		assert.deepEqual(world.fake.registeredCommands(other), [], 'owner commands nowhere else');
		const stored = await world.haven.db.orm.em.fork().findOne(AppState, { key: COMMANDS_HASH_KEY });
		assert.match((stored!.value as { hash: string }).hash, /^[0-9a-f]{64}$/);
	});

	test("every folder's pieces are loaded: commands, listeners, preconditions, interaction handlers, routes, middlewares", () => {
		const root = new URL('../../src/', import.meta.url).pathname;
		for (const folder of ['commands', 'listeners', 'preconditions', 'interaction-handlers', 'routes', 'middlewares']) {
			const files = (
				readdirSync(join(root, folder), { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[]
			)
				.filter((e) => e.isFile() && e.name.endsWith('.ts'))
				.map((e) => join(e.parentPath, e.name));
			const store = container.stores.get(folder as 'commands');
			const loaded = new Set([...store.values()].map((piece) => piece.location.full));
			assert.ok(files.length > 0, `${folder} has pieces`);
			for (const file of files) assert.ok(loaded.has(file), `${folder}: ${file.slice(root.length)} is loaded`);
		}
		const commands = container.stores.get('commands');
		for (const name of ['about', 'changelog', 'feedback', 'feedback-manage', 'help', 'ping', 'stats', 'version'])
			assert.ok(commands.has(name), `command ${name}`);
		const listeners = container.stores.get('listeners');
		assert.equal(listeners.has('CoreReady'), false, "Sapphire's own registration is not loaded");
		for (const name of [
			'CoreInteractionCreate',
			'CorePossibleChatInputCommand',
			'chatInputCommandDenied',
			'chatInputCommandError',
			'clientReady',
			'shardResume',
		]) {
			assert.ok(listeners.has(name), `listener ${name}`);
		}
		const preconditions = container.stores.get('preconditions');
		for (const name of ['OwnerOnly', 'GuildAdmin', 'Cooldown']) assert.ok(preconditions.has(name), `precondition ${name}`);
		assert.equal(preconditions.get('Cooldown')!.location.full, join(root, 'preconditions/Cooldown.ts'), 'our Cooldown replaces the built-in');
		assert.equal(container.stores.get('listeners').has('CoreChatInputCommandError'), false, "Sapphire's error listeners are off: ours funnel");
	});

	test('system log: the startup line reaches LOG_CHANNEL_ID without mentions', async () => {
		const post = await world.fake.waitForRequest({ method: 'POST', path: `/channels/${LOG_CHANNEL_ID}/messages` }, 5_000);
		assert.equal(post.body.content, `Haven ${VERSION} is online as Haven: 2 servers, 1 shard.`);
		assert.deepEqual(post.body.allowed_mentions, { parse: [] });
	});

	test('release check at startup and bot-list post after ready', async () => {
		const requests = await world.capture.waitForRequests(2, 5_000);
		const release = requests.find((r) => r.path === '/repos/haven-wellbeing/haven/releases/latest');
		assert.ok(release, 'release check');
		const post = requests.find((r) => r.path === `/botlist/bots/${world.fake.applicationId}/stats`);
		assert.ok(post, 'bot-list post');
		assert.equal(post.method, 'POST');
		assert.equal(post.headers.authorization, 'bot-list-token');
		assert.deepEqual(post.body, { server_count: 2, shard_count: 1 });
	});
});

describe('info commands', () => {
	test('/ping: an ephemeral reply, then the measured round trip', async () => {
		const { callback, ix } = await slash(world.fake, { name: 'ping', userId: someone() });
		assert.equal(callback.body.type, InteractionResponseType.ChannelMessageWithSource);
		assertPrivate(callback);
		assert.match(callback.body.data.content, /^Pong! Gateway heartbeat: /);
		const edit = await ix.edit();
		assert.match(edit.body.content, /Round trip: \d+ ms\.$/);
	});

	test('/about', async () => {
		const { callback } = await slash(world.fake, { name: 'about', userId: someone() });
		assertPrivate(callback);
		const text = textOf(callback.body);
		assert.match(text, /About Haven/);
		assert.match(text, new RegExp(`Version: ${VERSION}`));
		assert.match(text, /Servers: 2/);
		assert.ok(buttonsOf(callback.body).some((b) => b.url === 'https://github.com/haven-wellbeing/haven'));
	});

	test('/stats: the same counts as GET /v1/stats', async () => {
		const { callback } = await slash(world.fake, { name: 'stats', userId: someone() });
		assertPrivate(callback);
		const api = (await (await fetch(`${world.haven.url}/v1/stats`)).json()) as Record<string, number>;
		const fields = Object.fromEntries(
			callback.body.data.embeds[0].fields.map((f: { name: string; value: string }) => [f.name, Number(f.value.replace(/,/g, ''))]),
		);
		assert.deepEqual(fields, {
			People: api.users,
			Servers: api.guilds,
			Conversations: api.conversations,
			'Mood check-ins': api.moodCheckIns,
			'Times crisis resources were shared': api.crisisEvents,
		});
		assert.equal(api.guilds, 2);
	});

	test('/version: running, latest release, up to date', async () => {
		const { callback } = await slash(world.fake, { name: 'version', userId: someone() });
		assertPrivate(callback);
		const text = textOf(callback.body);
		assert.match(text, /Up to date/);
		assert.match(text, new RegExp(`Running: ${VERSION}`));
		assert.match(text, /Latest release: \[v0\.3\.0\]\(https:\/\/github\.com/);
	});

	test('/help: generated from the definitions, with cooldowns; owner commands for owners only', async () => {
		const member = textOf((await slash(world.fake, { name: 'help', userId: MEMBER_ID })).callback.body);
		for (const name of ['ping', 'about', 'stats', 'version', 'help', 'invite', 'support', 'docs', 'source', 'privacy', 'feedback'])
			assert.match(member, new RegExp(`\\*\\*/${name}\\*\\*`));
		assert.match(member, /\*\*\/stats\*\*: [^\n]*_Cooldown 10 s\._/);
		assert.match(member, /\*\*\/ping\*\*: [^\n]*_Cooldown 5 s\._/);
		assert.doesNotMatch(member, /feedback-manage|changelog/);
		const owner = textOf((await slash(world.fake, { name: 'help', userId: OWNER_ID })).callback.body);
		assert.match(owner, /\*\*\/feedback-manage\*\*: [^\n]*_Cooldown 3 s\._/);
		assert.match(owner, /\*\*\/changelog\*\*/);
	});

	test('/invite, /support, /docs, /source, /privacy: links from the URL settings', async () => {
		const invite = (await slash(world.fake, { name: 'invite', userId: someone() })).callback;
		assertPrivate(invite);
		assert.match(invite.body.data.content, new RegExp(`client_id=${world.fake.applicationId}`));
		assert.ok(buttonsOf(invite.body).some((b) => b.url === 'https://haven.test/invite'));
		const expected: Record<string, string> = {
			support: 'https://haven.test/support',
			docs: 'https://haven.test/docs',
			source: 'https://github.com/haven-wellbeing/haven',
		};
		for (const [name, url] of Object.entries(expected)) {
			const { callback } = await slash(world.fake, { name, userId: someone() });
			assertPrivate(callback);
			assert.ok(callback.body.data.content.includes(url), `/${name} shows ${url}`);
			assert.ok(buttonsOf(callback.body).some((b) => b.url === url));
		}
		const privacy = (await slash(world.fake, { name: 'privacy', userId: someone() })).callback;
		assertPrivate(privacy);
		assert.match(textOf(privacy.body), /encrypted at rest/);
	});

	test('commands work in DMs too', async () => {
		const { callback } = await slash(world.fake, { name: 'about', dm: true, userId: someone() });
		assert.match(textOf(callback.body), /About Haven/);
	});
});

describe('cooldowns and permissions', () => {
	test('a second /ping within 5 s: "try again in 5 seconds", ephemeral; another user is not affected', async () => {
		const user = someone();
		await slash(world.fake, { name: 'ping', userId: user });
		const denied = (await slash(world.fake, { name: 'ping', userId: user })).callback;
		assertPrivate(denied);
		assert.equal(denied.body.data.content, 'Please slow down a little: try again in 5 seconds.');
		const other = (await slash(world.fake, { name: 'ping', userId: someone() })).callback;
		assert.match(other.body.data.content, /^Pong!/);
		const stats = someone();
		await slash(world.fake, { name: 'stats', userId: stats });
		assert.match((await slash(world.fake, { name: 'stats', userId: stats })).callback.body.data.content, /try again in 10 seconds/);
	});

	test('owner commands refused to others, who spend no cooldown; their buttons refused too', async () => {
		for (const name of ['changelog', 'feedback-manage']) {
			const options = name === 'feedback-manage' ? { subcommand: 'list' } : {};
			const refused = (await slash(world.fake, { name, userId: MEMBER_ID, guildId: world.privateGuildId, ...options })).callback;
			assertPrivate(refused);
			assert.equal(refused.body.data.content, "This command is for Haven's owners.");
		}
		const admin = (await slash(world.fake, { name: 'changelog', userId: ADMIN_ID, guildId: world.privateGuildId })).callback;
		assert.equal(admin.body.data.content, "This command is for Haven's owners.", 'Manage Server is not ownership');
		const again = (await slash(world.fake, { name: 'changelog', userId: MEMBER_ID })).callback;
		assert.equal(again.body.data.content, "This command is for Haven's owners.", 'still the refusal, not a cooldown');
		const button = await world.fake.sendButton({ customId: 'fbm:list:queued:0', userId: MEMBER_ID }).callback();
		assertPrivate(button);
		assert.equal(button.body.data.content, "This command is for Haven's owners.");
	});
});

class BoomCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, { name: 'boom', description: 'Fails', category: 'Test', access: 'everyone', cooldownSeconds: 0, options: [] });
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const how = interaction.options.getString('how') ?? 'throw';
		if (how === 'defer') await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		if (how === 'reply') await interaction.reply({ content: 'Working on it', flags: MessageFlags.Ephemeral });
		if (how === 'user') throw new UserError({ identifier: 'test', message: 'That id does not look right.' });
		throw new Error('insert failed for "my secret words"');
	}
}

class AdminCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, { name: 'admin-only', description: 'Server settings', category: 'Test', access: 'guildAdmin', cooldownSeconds: 0 });
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await interaction.reply({ content: 'Settings saved', flags: MessageFlags.Ephemeral });
	}
}

class BoomButton extends InteractionHandler {
	constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	override parse(interaction: ButtonInteraction) {
		return interaction.customId === 'boom' ? this.some() : this.none();
	}

	override run() {
		throw new Error('button failed with "private text"');
	}
}

describe('guild admin commands', () => {
	before(() => container.stores.loadPiece({ store: 'commands', name: 'admin-only', piece: AdminCommand }));

	test('need Manage Server, in a server', async () => {
		const member = (await slash(world.fake, { name: 'admin-only', userId: MEMBER_ID })).callback;
		assertPrivate(member);
		assert.equal(member.body.data.content, 'You need the Manage Server permission to use this command.');
		const admin = (await slash(world.fake, { name: 'admin-only', userId: ADMIN_ID })).callback;
		assert.equal(admin.body.data.content, 'Settings saved', 'the Moderator role has Manage Server');
		const dm = (await slash(world.fake, { name: 'admin-only', userId: ADMIN_ID, dm: true })).callback;
		assert.equal(dm.body.data.content, 'This command only works in a server.');
	});

	test('a command this build does not have (stale registration) is answered, not left to time out', async () => {
		const { callback } = await slash(world.fake, { name: 'retired-command', userId: someone() });
		assertPrivate(callback);
		assert.match(callback.body.data.content, /not available any more/);
	});
});

describe('error funnel', () => {
	const lines: string[] = [];
	let restore: () => void;
	before(async () => {
		await container.stores.loadPiece({ store: 'commands', name: 'boom', piece: BoomCommand });
		await container.stores.loadPiece({ store: 'interaction-handlers', name: 'boom-button', piece: BoomButton });
		const original = container.logger.error.bind(container.logger);
		container.logger.error = (...values: unknown[]) => void lines.push(values.map(String).join(' '));
		restore = () => (container.logger.error = original);
	});
	after(() => restore());

	test('an error before answering: a kind ephemeral reply with an error id; the log has the command and id, not the message', async () => {
		const { callback } = await slash(world.fake, { name: 'boom', userId: someone() });
		assertPrivate(callback);
		const id = /error id `([0-9a-f]{8})`/.exec(callback.body.data.content)?.[1];
		assert.ok(id, callback.body.data.content);
		assert.match(callback.body.data.content, /^Sorry, something went wrong on my side\. It's not you\./);
		assert.doesNotMatch(callback.body.data.content, /secret|insert|at /);
		const line = lines.find((l) => l.includes(id));
		assert.ok(line, 'logged');
		assert.match(line, new RegExp(`^/boom failed \\[error ${id}\\]: Error at `));
		assert.doesNotMatch(line, /secret words/);
	});

	test('after a deferral the funnel edits the deferred reply; after a reply it follows up', async () => {
		const deferred = world.fake.sendSlashCommand({ name: 'boom', userId: someone(), options: { how: 'defer' } });
		assert.equal((await deferred.callback()).body.type, InteractionResponseType.DeferredChannelMessageWithSource);
		assert.match((await deferred.edit()).body.content, /something went wrong on my side/);
		const replied = world.fake.sendSlashCommand({ name: 'boom', userId: someone(), options: { how: 'reply' } });
		assert.equal((await replied.callback()).body.data.content, 'Working on it');
		const followup = await replied.followup(0);
		assert.match(followup.body.content, /something went wrong on my side/);
		assert.equal(followup.body.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
	});

	test('a failing button gets the same kind reply and log line', async () => {
		const callback = await world.fake.sendButton({ customId: 'boom', userId: someone() }).callback();
		assertPrivate(callback);
		const id = /error id `([0-9a-f]{8})`/.exec(callback.body.data.content)?.[1];
		assert.ok(id);
		assert.match(
			lines.find((l) => l.includes(id))!,
			new RegExp(`^component boom failed \\[error ${id}\\]: Error at `),
		);
		assert.ok(lines.every((l) => !l.includes('private text')));
	});

	test('a UserError is a message for the user, not a fault', async () => {
		const before = lines.length;
		const { callback } = await slash(world.fake, { name: 'boom', userId: someone(), options: { how: 'user' } });
		assert.equal(callback.body.data.content, 'That id does not look right.');
		assert.equal(lines.length, before);
	});
});

describe('feedback lifecycle', () => {
	const testimonials = async () => (await (await fetch(`${world.haven.url}/v1/testimonials`)).json()) as { message: string; featured: boolean }[];
	const message = (body: any) => ({ ...body.data, flags: MessageFlags.Ephemeral });

	test('/feedback -> queue (not public) -> /feedback-manage approve as public -> GET /v1/testimonials -> feature -> unapprove -> delete', async () => {
		const author = someone();
		const sent = (
			await slash(world.fake, {
				name: 'feedback',
				userId: author,
				options: { message: '  Haven helped me through a rough week  ', public: true },
			})
		).callback;
		assertPrivate(sent);
		assert.match(sent.body.data.content, /^Thank you\. Your feedback is in the owners' review queue\. You said it may be quoted publicly/);
		assert.deepEqual(await testimonials(), [], 'queued feedback is not public');
		const again = (await slash(world.fake, { name: 'feedback', userId: author, options: { message: 'more' } })).callback;
		assert.match(again.body.data.content, /try again in 30 seconds/);

		const list = (await slash(world.fake, { name: 'feedback-manage', subcommand: 'list', userId: OWNER_ID })).callback;
		assertPrivate(list);
		const listText = textOf(list.body);
		assert.match(listText, /Feedback: queued/);
		assert.match(listText, /\*\*#1\*\* · .* · queued · may be quoted · via discord\n> Haven helped me through a rough week/);
		const open = buttonsOf(list.body).find((b) => b.label === 'Open #1');
		assert.ok(open);

		const view = await world.fake.sendButton({ customId: open.custom_id!, userId: OWNER_ID, message: message(list.body) }).callback();
		assert.equal(view.body.type, InteractionResponseType.UpdateMessage);
		assert.match(textOf(view.body), /Feedback #1\nHaven helped me through a rough week/);
		assert.match(textOf(view.body), new RegExp(`From: <@${author}>`));

		const approved = await world.fake.sendButton({ customId: 'fbm:approve-public:1', userId: OWNER_ID, message: message(view.body) }).callback();
		assert.match(approved.body.data.content, /^Approved #1 as public: it is now a testimonial\./);
		const [testimonial] = await testimonials();
		assert.deepEqual(
			{ message: testimonial!.message, featured: testimonial!.featured },
			{ message: 'Haven helped me through a rough week', featured: false },
		);

		const featured = (await slash(world.fake, { name: 'feedback-manage', subcommand: 'feature', options: { id: 1 }, userId: OWNER_2 })).callback;
		assert.match(featured.body.data.content, /^Featured #1/);
		assert.equal((await testimonials())[0]!.featured, true);

		const unapproved = await world.fake.sendButton({ customId: 'fbm:unapprove:1', userId: OWNER_ID, message: message(featured.body) }).callback();
		assert.match(unapproved.body.data.content, /back in the queue and no longer public/);
		assert.deepEqual(await testimonials(), []);

		const missing = (await slash(world.fake, { name: 'feedback-manage', subcommand: 'view', options: { id: 999 }, userId: OWNER_3 })).callback;
		assert.equal(missing.body.data.content, 'There is no feedback #999 (it may have been deleted).');

		const confirm = await world.fake.sendButton({ customId: 'fbm:delete:1', userId: OWNER_ID, message: message(unapproved.body) }).callback();
		assert.match(confirm.body.data.content, /Delete feedback #1 for good\?/);
		const deleted = await world.fake
			.sendButton({ customId: 'fbm:delete-confirm:1', userId: OWNER_ID, message: message(confirm.body) })
			.callback();
		assert.equal(deleted.body.data.content, 'Deleted feedback #1.');
		assert.deepEqual(deleted.body.data.components, []);
	});

	test('approve with featured makes it public; the list pages with buttons', async () => {
		const em = world.haven.db.orm.em.fork();
		const ids: number[] = [];
		for (let i = 0; i < 7; i++) ids.push((await submitFeedback(em, { userId: MEMBER_ID, message: `Feedback number ${i}`, source: 'api' })).id);
		const approved = (
			await slash(world.fake, { name: 'feedback-manage', subcommand: 'approve', options: { id: ids[0]!, featured: true }, userId: OWNER_4 })
		).callback;
		assert.match(approved.body.data.content, /featured public testimonial/);
		assert.deepEqual(
			(await testimonials()).map((t) => [t.message, t.featured]),
			[['Feedback number 0', true]],
		);

		const page1 = (await slash(world.fake, { name: 'feedback-manage', subcommand: 'list', userId: OWNER_5 })).callback;
		assert.match(textOf(page1.body), /Page 1 of 2 · 6 items/);
		const next = buttonsOf(page1.body).find((b) => b.label === 'Next')!;
		const page2 = await world.fake.sendButton({ customId: next.custom_id!, userId: OWNER_5, message: message(page1.body) }).callback();
		assert.match(textOf(page2.body), /Page 2 of 2 · 6 items/);
		assert.match(textOf(page2.body), /Feedback number 6/);

		const rejected = await world.fake.sendButton({ customId: `fbm:reject:${ids[6]}`, userId: OWNER_ID, message: message(page2.body) }).callback();
		assert.equal(rejected.body.data.content, `Rejected #${ids[6]}; it will never be shown.`);
		const rejectedList = await world.fake
			.sendButton({ customId: 'fbm:list:rejected:0', userId: OWNER_ID, message: message(rejected.body) })
			.callback();
		assert.match(textOf(rejectedList.body), new RegExp(`\\*\\*#${ids[6]}\\*\\* · .* · rejected · via api`));
	});
});

describe('/changelog', () => {
	test('PATCHNOTES_PATH paginated to Discord limits with Previous/Next; a clear message when the file is missing', async () => {
		const first = (await slash(world.fake, { name: 'changelog', userId: OWNER_3 })).callback;
		assertPrivate(first);
		const embed = first.body.data.embeds[0];
		assert.ok(embed.description.length <= 4_096);
		assert.match(embed.description, /^- Change 0:/);
		const pages = Number(/Page 1 of (\d+)/.exec(embed.footer.text)![1]);
		assert.ok(pages >= 5);
		const next = await world.fake.sendButton({ customId: 'changelog:1', userId: OWNER_3, message: { ...first.body.data } }).callback();
		assert.match(next.body.data.embeds[0].footer.text, new RegExp(`Page 2 of ${pages}`));
		rmSync(PATCHNOTES);
		const gone = await world.fake.sendButton({ customId: 'changelog:0', userId: OWNER_3, message: { ...first.body.data } }).callback();
		assert.equal(gone.body.data.content, `The patch-notes file was not found at \`${PATCHNOTES}\` (PATCHNOTES_PATH).`);
		writeFileSync(PATCHNOTES, '- Back again');
	});
});

// Both wait on a clock (a 3 s cooldown, the log channel's 2 s spacing): they run side by side.
describe('timed: cooldown expiry, server join/leave', { concurrency: true }, () => {
	test('owner command cooldown (3 s): N counts down and the command runs again after it', async () => {
		const started = Date.now();
		assert.match(textOf((await slash(world.fake, { name: 'changelog', userId: OWNER_4 })).callback.body), /Patch notes/);
		const first = (await slash(world.fake, { name: 'changelog', userId: OWNER_4 })).callback;
		assert.equal(first.body.data.content, 'Please slow down a little: try again in 3 seconds.');
		await sleep(2_100 - (Date.now() - started)); // the cooldown's clock is the behaviour under test
		const second = (await slash(world.fake, { name: 'changelog', userId: OWNER_4 })).callback;
		assert.equal(second.body.data.content, 'Please slow down a little: try again in 1 second.');
		await sleep(Math.max(0, 3_050 - (Date.now() - started)));
		assert.match(textOf((await slash(world.fake, { name: 'changelog', userId: OWNER_4 })).callback.body), /Patch notes/);
	});

	test('join and leave: system log lines (ids and counts only) and the guilds table', async () => {
		const bot = world.fake.bot;
		const guild = buildGuild({ name: 'Secret <@&1> name' }, 4_242, 3, bot);
		const sql = (q: string, p: unknown[] = []) => world.haven.db.orm.em.getConnection().execute(q, p);
		world.fake.dispatch('GUILD_CREATE', guildCreatePayload(guild), 0);
		const joined = await world.fake.waitForRequest(
			(r) => r.path === `/channels/${LOG_CHANNEL_ID}/messages` && r.body?.content?.includes('Joined'),
			5_000,
		);
		assert.match(joined.body.content, new RegExp(`Joined a server \\(id ${guild.id}, 4 members\\)\\. Now in 3 servers\\.`));
		assert.doesNotMatch(joined.body.content, /Secret/);
		assert.deepEqual(await sql('select left_at from guilds where id = ?', [guild.id]), [{ left_at: null }]);
		world.fake.dispatch('GUILD_DELETE', { id: guild.id }, 0);
		const left = await world.fake.waitForRequest(
			(r) => r.path === `/channels/${LOG_CHANNEL_ID}/messages` && r.body?.content?.includes('Left'),
			5_000,
		);
		assert.match(left.body.content, new RegExp(`Left a server \\(id ${guild.id}\\)\\. Now in 2 servers\\.`));
		const [row] = await sql('select left_at from guilds where id = ?', [guild.id]);
		assert.ok(row.left_at, 'left_at set');
		const [{ count }] = await sql('select count(*)::int as count from guilds where left_at is null');
		assert.equal(count, 2, 'the servers found at startup were recorded');
	});
});
