// Proves the fake Discord against the real discord.js client: login, caches, interactions, messages, DMs,
// command registration, resume, sharding and Discord's error codes.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import {
	ActionRowBuilder,
	ButtonBuilder,
	ButtonStyle,
	ChannelType,
	ChatInputCommandInteraction,
	Client,
	DiscordAPIError,
	Events,
	GatewayIntentBits,
	MessageFlags,
	ModalBuilder,
	Partials,
	PermissionFlagsBits,
	TextInputBuilder,
	TextInputStyle,
	type ClientEvents,
	type Interaction,
	type Message,
	type TextChannel,
} from 'discord.js';
import { shardOf, startFakeDiscord, type FakeDiscord } from './fake-discord.ts';

const I = GatewayIntentBits;

function newClient(fake: FakeDiscord, options: { intents?: number[]; shards?: 'auto' } = {}): Client {
	return new Client({
		intents: options.intents ?? [I.Guilds, I.GuildMessages, I.DirectMessages, I.MessageContent],
		partials: [Partials.Channel],
		rest: { api: fake.restUrl },
		...(options.shards ? { shards: options.shards } : {}),
	});
}

async function login(client: Client, fake: FakeDiscord): Promise<void> {
	const ready = once(client, Events.ClientReady);
	await client.login(fake.token);
	await ready;
}

/** The next event of a kind, with a short timeout so a broken fake fails fast instead of hanging. */
async function next<K extends keyof ClientEvents & string>(client: Client, event: K, timeoutMs = 2_000): Promise<ClientEvents[K]> {
	return (await once(client, event, { signal: AbortSignal.timeout(timeoutMs) })) as ClientEvents[K];
}

async function nextInteraction(client: Client): Promise<Interaction> {
	return (await next(client, Events.InteractionCreate))[0];
}

describe('fake Discord: one shard, two guilds', () => {
	let fake: FakeDiscord;
	let client: Client;

	before(async () => {
		fake = await startFakeDiscord({ guilds: 2, membersPerGuild: 4 });
		client = newClient(fake);
		await login(client, fake);
	});

	after(async () => {
		await client?.destroy();
		await fake?.close();
	});

	test('login: clientReady with guilds, channels, roles, members and the bot', () => {
		assert.equal(client.user!.id, fake.bot.id);
		assert.equal(client.application!.id, fake.applicationId);
		assert.equal(client.guilds.cache.size, 2);
		for (const guild of client.guilds.cache.values()) {
			assert.equal(guild.available, true);
			assert.deepEqual(
				guild.channels.cache
					.filter((c) => c.type === ChannelType.GuildText)
					.map((c) => c.name)
					.sort(),
				['general', 'mod-alerts', 'rules'],
			);
			assert.equal(guild.members.cache.size, 5);
			assert.ok(guild.members.me, 'the bot is a member');
			assert.ok(guild.roles.everyone.permissions.has(PermissionFlagsBits.SendMessages));
			const modAlerts = guild.channels.cache.find((c) => c.name === 'mod-alerts') as TextChannel;
			assert.equal(modAlerts.permissionsFor(guild.roles.everyone).has(PermissionFlagsBits.ViewChannel), false);
			assert.equal(modAlerts.permissionsFor(guild.members.me!).has(PermissionFlagsBits.SendMessages), true);
		}
		const request = fake.requests.find((r) => r.path === '/gateway/bot');
		assert.equal(request?.headers.authorization, `Bot ${fake.token}`);
	});

	test('slash command with a subcommand and options; ephemeral reply recorded with flags 64', async () => {
		const arrived = nextInteraction(client);
		const sent = fake.sendSlashCommand({ name: 'checkin', subcommand: 'start', options: { mood: 'okay', intensity: 3 } });
		const interaction = await arrived;
		assert.ok(interaction instanceof ChatInputCommandInteraction);
		assert.equal(interaction.commandName, 'checkin');
		assert.equal(interaction.options.getSubcommand(), 'start');
		assert.equal(interaction.options.getString('mood'), 'okay');
		assert.equal(interaction.options.getInteger('intensity'), 3);
		assert.equal(interaction.inCachedGuild(), true);
		assert.equal(interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild), false);
		assert.equal(interaction.locale, 'en-US');
		await interaction.reply({ content: 'Checked in.', flags: MessageFlags.Ephemeral });
		const callback = await sent.callback();
		assert.equal(callback.body.type, 4);
		assert.equal(callback.body.data.content, 'Checked in.');
		assert.equal(callback.body.data.flags, MessageFlags.Ephemeral);
	});

	test('permissions can be configured (e.g. Manage Server), and the interaction expires after 3 s', async () => {
		const arrived = nextInteraction(client);
		fake.sendSlashCommand({ name: 'settings', permissions: PermissionFlagsBits.ManageGuild });
		const interaction = (await arrived) as ChatInputCommandInteraction;
		assert.equal(interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild), true);
		fake.interactionTimeoutMs = 20;
		try {
			await new Promise((resolve) => setTimeout(resolve, 40)); // past the 20 ms expiry: the clock is what is tested
			await assert.rejects(interaction.reply({ content: 'late' }), (error: DiscordAPIError) => error.code === 10062);
		} finally {
			fake.interactionTimeoutMs = 3_000;
		}
	});

	test('deferReply, editReply and followUp are recorded', async () => {
		const arrived = nextInteraction(client);
		const sent = fake.sendSlashCommand({ name: 'talk', options: { text: 'hello' } });
		const interaction = (await arrived) as ChatInputCommandInteraction;
		await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		assert.equal((await sent.callback()).body.type, 5);
		const edited = await interaction.editReply({ content: 'Here is a reply.' });
		assert.equal(edited.content, 'Here is a reply.');
		assert.equal((await sent.edit()).body.content, 'Here is a reply.');
		await interaction.followUp({ content: 'One more thing.', flags: MessageFlags.Ephemeral });
		const followup = await sent.followup(0);
		assert.equal(followup.body.content, 'One more thing.');
		assert.equal(followup.query.wait, 'true');
		assert.equal(sent.requests().length, 3);
		const original = await interaction.fetchReply();
		assert.equal(original.content, 'Here is a reply.');
	});

	test('a button on a message the bot sent, answered with update()', async () => {
		const channel = client.guilds.cache.first()!.channels.cache.find((c) => c.name === 'general') as TextChannel;
		const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
			new ButtonBuilder().setCustomId('breathe:start').setLabel('Start').setStyle(ButtonStyle.Primary),
		);
		const sentMessage = await channel.send({ content: 'Ready to breathe?', components: [row] });
		const arrived = nextInteraction(client);
		const sent = fake.sendButton({ customId: 'breathe:start', message: sentMessage.id, channelId: channel.id });
		const interaction = await arrived;
		assert.ok(interaction.isButton());
		assert.equal(interaction.customId, 'breathe:start');
		assert.equal(interaction.message.id, sentMessage.id);
		await interaction.update({ content: 'Breathe in...', components: [] });
		const callback = await sent.callback();
		assert.equal(callback.body.type, 7);
		assert.equal(fake.message(sentMessage.id)?.content, 'Breathe in...');
	});

	test('a modal shown from a command, then submitted', async () => {
		const arrived = nextInteraction(client);
		const command = fake.sendSlashCommand({ name: 'journal' });
		const interaction = (await arrived) as ChatInputCommandInteraction;
		const modal = new ModalBuilder()
			.setCustomId('journal:entry')
			.setTitle('Journal')
			.addComponents(
				new ActionRowBuilder<TextInputBuilder>().addComponents(
					new TextInputBuilder().setCustomId('text').setLabel('Today').setStyle(TextInputStyle.Paragraph),
				),
			);
		await interaction.showModal(modal);
		assert.equal((await command.callback()).body.type, 9);

		const submitted = nextInteraction(client);
		const submit = fake.sendModalSubmit({ customId: 'journal:entry', fields: { text: 'A calm day.' } });
		const modalInteraction = await submitted;
		assert.ok(modalInteraction.isModalSubmit());
		assert.equal(modalInteraction.fields.getTextInputValue('text'), 'A calm day.');
		await modalInteraction.reply({ content: 'Saved.', flags: MessageFlags.Ephemeral });
		assert.equal((await submit.callback()).body.data.flags, MessageFlags.Ephemeral);
	});

	test('user and message context-menu commands carry resolved targets', async () => {
		const guild = client.guilds.cache.first()!;
		const target = guild.members.cache.find((m) => !m.user.bot && m.id !== guild.ownerId)!;
		let arrived = nextInteraction(client);
		fake.sendContextMenu({ name: 'Check on user', type: 'user', targetUserId: target.id });
		const userCommand = await arrived;
		assert.ok(userCommand.isUserContextMenuCommand());
		assert.equal(userCommand.targetUser.id, target.id);
		assert.equal(userCommand.targetMember?.user.id, target.id);

		arrived = nextInteraction(client);
		fake.sendContextMenu({ name: 'Report message', type: 'message', targetUserId: target.id, targetMessage: { content: 'I feel low' } });
		const messageCommand = await arrived;
		assert.ok(messageCommand.isMessageContextMenuCommand());
		assert.equal(messageCommand.targetMessage.content, 'I feel low');
		assert.equal(messageCommand.targetMessage.author.id, target.id);
	});

	test('a slash command in DMs: user instead of member, no guild', async () => {
		const arrived = nextInteraction(client);
		fake.sendSlashCommand({ name: 'privacy', dm: true, userId: '310000000000000001' });
		const interaction = (await arrived) as ChatInputCommandInteraction;
		assert.equal(interaction.inGuild(), false);
		assert.equal(interaction.user.id, '310000000000000001');
		assert.equal(interaction.member, null);
		assert.equal(interaction.channel?.type, ChannelType.DM);
	});

	test('a DM arrives as messageCreate; author.send and channel.send (with a file) are recorded', async () => {
		const userId = '310000000000000002';
		const arrived = next(client, Events.MessageCreate);
		fake.sendMessage({ authorId: userId, content: 'hi haven', dm: true });
		const [message] = (await arrived) as [Message];
		assert.equal(message.guild, null);
		assert.equal(message.channel.type, ChannelType.DM);
		assert.equal(message.content, 'hi haven');

		await message.author.send('Hello from Haven.');
		const dmId = fake.dmChannel(userId).id;
		const posted = await fake.waitForRequest((r) => r.path === `/channels/${dmId}/messages` && r.body?.content === 'Hello from Haven.');
		assert.equal(posted.status, 200);

		const sent = await message.channel.send({
			content: 'Your export.',
			files: [{ attachment: Buffer.from('{"entries":[]}'), name: 'export.json' }],
		});
		assert.equal(sent.attachments.first()?.name, 'export.json');
		const upload = await fake.waitForRequest((r) => r.body?.content === 'Your export.');
		assert.equal(upload.files?.[0]?.name, 'export.json');
		assert.equal(upload.files?.[0]?.data.toString(), '{"entries":[]}');
		assert.equal(upload.files?.[0]?.field, 'files[0]');
		assert.equal(upload.body.attachments[0].id, '0');
	});

	test('a guild message that mentions the bot', async () => {
		const guild = client.guilds.cache.first()!;
		const author = guild.members.cache.find((m) => !m.user.bot)!;
		const arrived = next(client, Events.MessageCreate);
		fake.sendMessage({ authorId: author.id, content: 'are you there?', mentionsBot: true });
		const [message] = (await arrived) as [Message];
		assert.equal(message.guildId, guild.id);
		assert.equal(message.member?.id, author.id);
		assert.equal(message.mentions.has(client.user!), true);
		assert.equal(message.content, `<@${client.user!.id}> are you there?`);
		await (message.channel as TextChannel).sendTyping();
		await fake.waitForRequest({ method: 'POST', path: `/channels/${message.channelId}/typing` });
	});

	test('DMs closed: 50007 surfaces as DiscordAPIError; no permission: 50013', async () => {
		const userId = '310000000000000003';
		fake.setDmsClosed(userId);
		const user = await client.users.fetch(userId);
		await assert.rejects(
			user.send('hello'),
			(error: unknown) => error instanceof DiscordAPIError && error.code === 50007 && error.status === 403,
		);
		const createDm = await fake.waitForRequest({ method: 'POST', path: '/users/@me/channels' });
		assert.equal(createDm.body.recipient_id, userId);
		const rules = client.guilds.cache.first()!.channels.cache.find((c) => c.name === 'rules') as TextChannel;
		await assert.rejects(rules.send('hi'), (error: DiscordAPIError) => error.code === 50013);
		await assert.rejects(rules.send(''), (error: unknown) => error instanceof Error);
	});

	test('command registration round trip, global and per guild; interactions use the registered ids', async () => {
		const app = client.application!;
		await app.commands.set([
			{ name: 'ping', description: 'Check that Haven is awake' },
			{ name: 'mood', description: 'Log a mood', options: [{ type: 4, name: 'score', description: '1-5', required: true }] },
		]);
		const put = await fake.waitForRequest({ method: 'PUT', path: `/applications/${fake.applicationId}/commands` });
		assert.equal(put.body.length, 2);
		const fetched = await app.commands.fetch();
		assert.deepEqual(fetched.map((c) => c.name).sort(), ['mood', 'ping']);
		const ping = fetched.find((c) => c.name === 'ping')!;
		assert.match(ping.id, /^\d{17,20}$/);
		assert.match(ping.version, /^\d{17,20}$/);

		const guildId = client.guilds.cache.first()!.id;
		await app.commands.set([{ name: 'owner-stats', description: 'Owner only' }], guildId);
		const guildCommands = await app.commands.fetch({ guildId });
		assert.deepEqual(
			guildCommands.map((c) => c.name),
			['owner-stats'],
		);
		assert.equal(guildCommands.first()!.guildId, guildId);

		const arrived = nextInteraction(client);
		fake.sendSlashCommand({ name: 'ping' });
		assert.equal(((await arrived) as ChatInputCommandInteraction).commandId, ping.id);
		await assert.rejects(app.commands.set([{ name: 'Bad Name', description: 'x' }]), (error: DiscordAPIError) => error.code === 50035);
	});

	test('option types follow the registered command; autocomplete is answered with type 8', async () => {
		let arrived = nextInteraction(client);
		fake.sendSlashCommand({ name: 'mood', options: { score: 4 } });
		const mood = (await arrived) as ChatInputCommandInteraction;
		assert.equal(mood.options.getInteger('score', true), 4);

		arrived = nextInteraction(client);
		const sent = fake.sendSlashCommand({ name: 'country', options: { name: 'ge' }, focused: 'name' });
		const autocomplete = await arrived;
		assert.ok(autocomplete.isAutocomplete());
		assert.equal(autocomplete.options.getFocused(), 'ge');
		await autocomplete.respond([{ name: 'Germany', value: 'DE' }]);
		const callback = await sent.callback();
		assert.equal(callback.body.type, 8);
		assert.deepEqual(callback.body.data.choices, [{ name: 'Germany', value: 'DE' }]);
	});

	test('guild.members.fetch() is answered by GUILD_MEMBERS_CHUNK', async () => {
		const guild = client.guilds.cache.first()!;
		const members = await guild.members.fetch();
		assert.equal(members.size, 5);
	});

	test('unknown routes answer 404 and are recorded', async () => {
		await assert.rejects(client.rest.get('/nothing/here'), (error: DiscordAPIError) => error.status === 404);
		assert.equal((await fake.waitForRequest({ path: '/nothing/here' })).status, 404);
	});

	test('dropConnection: the client resumes on the same session', async () => {
		const resumed = next(client, Events.ShardResume, 5_000);
		fake.dropConnection(0);
		await resumed;
		assert.equal(fake.resumeCount(0), 1);
		assert.equal(fake.identifyCount(0), 1);
		assert.deepEqual(fake.connectedShards(), [0]);
		const arrived = nextInteraction(client);
		fake.sendSlashCommand({ name: 'ping' });
		assert.equal(((await arrived) as ChatInputCommandInteraction).commandName, 'ping');
	});
});

describe('fake Discord: two shards', () => {
	let fake: FakeDiscord;
	let client: Client;

	before(async () => {
		fake = await startFakeDiscord({ shardCount: 2, guilds: 6 });
		client = newClient(fake, { shards: 'auto', intents: [I.Guilds, I.GuildMessages] });
		await login(client, fake);
	});

	after(async () => {
		await client?.destroy();
		await fake?.close();
	});

	test('both shards identify and each gets its own guilds', () => {
		assert.deepEqual(fake.connectedShards(), [0, 1]);
		assert.equal(client.ws.shards.size, 2);
		assert.equal(client.guilds.cache.size, 6);
		for (const guild of client.guilds.cache.values()) assert.equal(guild.shardId, shardOf(guild.id, 2));
		assert.ok(client.guilds.cache.some((g) => g.shardId === 0) && client.guilds.cache.some((g) => g.shardId === 1));
		assert.equal(fake.identifyCount(0), 1);
		assert.equal(fake.identifyCount(1), 1);
	});

	test('without the MessageContent intent, guild content is blank unless the bot is mentioned; no DM intent, no DM', async () => {
		const guild = client.guilds.cache.find((g) => g.shardId === 1)!;
		const author = guild.members.cache.find((m) => !m.user.bot)!;
		let arrived = next(client, Events.MessageCreate);
		fake.sendMessage({ authorId: author.id, guildId: guild.id, content: 'secret' });
		assert.equal(((await arrived)[0] as Message).content, '');
		arrived = next(client, Events.MessageCreate);
		fake.sendMessage({ authorId: author.id, guildId: guild.id, content: 'hello', mentionsBot: true });
		assert.equal(((await arrived)[0] as Message).content, `<@${fake.bot.id}> hello`);
		assert.equal(fake.sendMessage({ authorId: author.id, dm: true, content: 'hi' }).delivered, false);
	});

	test('setShardDown keeps a shard disconnected until it is up again, then it resumes', async () => {
		fake.setShardDown(1, true);
		assert.deepEqual(fake.connectedShards(), [0]);
		await next(client, Events.ShardReconnecting);
		await new Promise((resolve) => setTimeout(resolve, 700)); // a window in which the shard must stay down: what is asserted
		assert.deepEqual(fake.connectedShards(), [0]);
		const resumed = next(client, Events.ShardResume, 5_000);
		fake.setShardDown(1, false);
		const [shardId] = await resumed;
		assert.equal(shardId, 1);
		assert.deepEqual(fake.connectedShards(), [0, 1]);
		assert.equal(fake.identifyCount(1), 1);
		assert.ok(fake.resumeCount(1) >= 1);
	});
});

describe('fake Discord: login failures', () => {
	test('a wrong token is refused with 401 (TokenInvalid)', async () => {
		const fake = await startFakeDiscord();
		const client = newClient(fake);
		try {
			await assert.rejects(client.login('not-the-token'), /token/i);
		} finally {
			await client.destroy();
			await fake.close();
		}
	});
});
