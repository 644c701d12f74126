// /guildcontext and /guilddebug through the fake Discord: Manage Server only, counts and settings without content,
// missing permissions (server-wide and per configured channel), the shard, recent errors of this server only (from
// the error funnel's ring, by id and command: no message), versions, and the 10 s cooldown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { container, type Command } from '@sapphire/framework';
import { MessageFlags, PermissionFlagsBits, version as discordVersion } from 'discord.js';
import { Conversation, CrisisEvent, MoodCheckIn } from '../../src/lib/db/index.ts';
import { HavenCommand } from '../../src/lib/discord/command.ts';
import { GUILD_ADMIN_MESSAGE, GUILD_ONLY_MESSAGE } from '../../src/lib/discord/info-views.ts';
import { updateGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { slash, startBotWorld, textOf, type BotWorld } from '../bot/support.ts';
import { snowflakeAt } from '../support/fake-discord.ts';

const person = (n: number) => snowflakeAt(1_490_000_000_000, n);
const OWNER = person(1);
const ADMIN = person(2);
const MEMBER = person(3);
const OTHER_OWNER = person(4);
const SECRET = 'SECRET-WORDS-never-shown';

class BoomCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, { name: 'boom-admin', description: 'Fails on purpose', category: 'Test', access: 'everyone', cooldownSeconds: 0 });
	}

	override async chatInputRun() {
		throw new TypeError(`${SECRET} in an error message`);
	}
}

let world: BotWorld;
let guildId: string;
let otherGuildId: string;
const channels: Record<string, string> = {};

before(async () => {
	world = await startBotWorld({
		fake: {
			guilds: [
				{ name: 'Harbour', members: [OWNER, { id: ADMIN, roles: ['Moderator'] }, MEMBER] },
				// Haven was added without Embed Links, Read Message History or threads (and @everyone has none of them).
				{
					name: 'Narrow',
					members: [OTHER_OWNER, MEMBER],
					botPermissions: PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages,
					everyonePermissions:
						PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.UseApplicationCommands,
				},
			],
		},
		env: { PURGE_INTERVAL_MS: '0', ENCRYPTION_KEY: 'c3'.repeat(32) },
	});
	[guildId, otherGuildId] = world.fake.guilds.ids as [string, string];
	for (const c of world.fake.guild(guildId)!.channels) channels[c.name] = c.id;
	await container.stores.loadPiece({ store: 'commands', name: 'boom-admin', piece: BoomCommand });
	// The funnel logs the failures this file causes on purpose; keep them out of the test output.
	const logged: string[] = [];
	container.logger.error = (...values: unknown[]) => void logged.push(values.map(String).join(' '));

	const em = world.haven.db.orm.em.fork();
	for (let i = 0; i < 2; i++) em.create(MoodCheckIn, { userId: person(20 + i), guildId, mood: 'sad', intensity: 2, note: `${SECRET} note` });
	for (let i = 0; i < 3; i++)
		em.create(CrisisEvent, {
			userId: person(30 + i),
			guildId,
			level: 'high',
			categories: ['self_harm'],
			trigger: 'mention',
			details: `${SECRET} details`,
		});
	for (let i = 0; i < 4; i++) em.create(Conversation, { userId: person(40 + i), guildId, source: 'discord' });
	em.create(CrisisEvent, { userId: person(50), guildId: otherGuildId, level: 'concern', categories: [], trigger: 'mention', details: null });
	await em.flush();
	await updateGuildSettings(world.haven.db.orm.em.fork(), guildId, {
		alertsEnabled: true,
		alertChannelId: channels['mod-alerts']!,
		checkinChannelId: channels.rules!,
		country: 'GB',
	});
});

after(async () => {
	await world?.close();
});

function assertPrivate(body: any) {
	assert.equal(body.data.flags & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
	assert.deepEqual(body.data.allowed_mentions, { parse: [] });
}

describe('access', () => {
	test('Manage Server required; not in DMs', async () => {
		for (const name of ['guildcontext', 'guilddebug']) {
			const { callback } = await slash(world.fake, { name, userId: MEMBER, guildId });
			assertPrivate(callback.body);
			assert.equal(callback.body.data.content, GUILD_ADMIN_MESSAGE, `/${name} refused to a plain member`);
			const dm = await slash(world.fake, { name, userId: MEMBER, dm: true });
			assert.equal(dm.callback.body.data.content, GUILD_ONLY_MESSAGE);
		}
	});
});

describe('/guildcontext', () => {
	test('settings and counts of this server, never content or people', async () => {
		const { callback } = await slash(world.fake, { name: 'guildcontext', userId: ADMIN, guildId });
		assertPrivate(callback.body);
		const text = textOf(callback.body);
		assert.match(text, /What Haven knows about this server/);
		assert.match(text, /Check-ins: \*\*2\*\* \(2 in the last 30 days\)/);
		assert.match(text, /Crisis events: \*\*3\*\*/, 'this server only (the other server has one)');
		assert.match(text, /Conversations \(answered messages\): \*\*4\*\*/);
		assert.match(text, /Permissions Haven is missing: None/);
		assert.match(text, /deleted 7 days after Haven is removed/);
		assert.match(text, new RegExp(`<#${channels['mod-alerts']}>`), 'the settings are shown');
		assert.doesNotMatch(text, /SECRET/);
		for (let i = 20; i < 51; i++) assert.ok(!text.includes(person(i)), 'nobody is named');
	});

	test('server-wide permissions Haven lacks', async () => {
		const { callback } = await slash(world.fake, { name: 'guildcontext', userId: OTHER_OWNER, guildId: otherGuildId });
		const text = textOf(callback.body);
		assert.match(text, /Permissions Haven is missing: Send Messages in Threads, Embed Links, Read Message History\./);
		assert.match(text, /Crisis events: \*\*1\*\*/);
		assert.match(text, /Default settings/);
	});
});

describe('/guilddebug', () => {
	test('shard, channel permissions, recent errors here (ids, no message), versions; 10 s cooldown', async () => {
		// A failing command here and one in the other server.
		const boom = await slash(world.fake, { name: 'boom-admin', userId: MEMBER, guildId });
		const errorId = /error id `([0-9a-f]{8})`/.exec(boom.callback.body.data.content)?.[1];
		assert.ok(errorId);
		const elsewhere = await slash(world.fake, { name: 'boom-admin', userId: MEMBER, guildId: otherGuildId });
		const otherId = /error id `([0-9a-f]{8})`/.exec(elsewhere.callback.body.data.content)?.[1];
		assert.ok(otherId);

		const { callback } = await slash(world.fake, { name: 'guilddebug', userId: ADMIN, guildId, channelId: channels.general });
		assertPrivate(callback.body);
		const text = textOf(callback.body);
		assert.match(text, /Shard \*\*0\*\*: ready/);
		assert.match(text, /Heartbeat latency: /);
		assert.match(text, new RegExp(`This channel: <#${channels.general}> OK`));
		assert.match(text, new RegExp(`Crisis alert channel: <#${channels['mod-alerts']}> OK`));
		assert.match(text, new RegExp(`Check-in channel: <#${channels.rules}> \\*\\*missing\\*\\* Send Messages`));
		assert.match(text, /Alert role: not set/);
		assert.match(text, new RegExp(`/boom-admin: TypeError, error id \`${errorId}\``));
		assert.ok(!text.includes(otherId!), "another server's errors are not shown");
		assert.doesNotMatch(text, /SECRET/);
		assert.match(text, new RegExp(`discord\\.js ${discordVersion.replace(/\./g, '\\.')}`));
		assert.match(text, /Haven v0\.3\.0/);
		assert.match(text, /Node v\d+/);
		assert.match(text, /PostgreSQL \d+/);

		const again = await slash(world.fake, { name: 'guilddebug', userId: ADMIN, guildId });
		assert.match(again.callback.body.data.content, /try again in (10|9) seconds/);
	});
});
