// Check-ins after the first contact, through the fake Discord: sharing a check-in in the server's check-in channel
// (only when asked; mood and intensity, never the note), and the reminder DM's "Check in now" (a mood select, then
// the intensity: a check-in in two clicks) and "Snooze 1 hour".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { container } from '@sapphire/framework';
import { ChannelType, ComponentType, InteractionResponseType } from 'discord.js';
import { updateGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { QUICK_MOOD, QUICK_START, SNOOZE_BUTTON } from '../../src/lib/wellbeing/quick-checkin.ts';
import { run, someone, sql, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const posts = (channelId: string) => w.fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`);

describe('/checkin log share', () => {
	test('shared only when asked: mood and intensity in the check-in channel, never the note; without a channel, nothing', async () => {
		const channelId = w.fake.guild(w.guildId)!.channels.find((c) => c.type === ChannelType.GuildText)!.id as string;
		const user = someone();
		const log = (options: Record<string, string | number | boolean>) =>
			run(w.fake, {
				name: 'checkin',
				subcommand: 'log',
				userId: user,
				guildId: w.guildId,
				options: { mood: 'good', intensity: 4, ...options },
			});

		await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { checkinChannelId: null });
		const none = await log({ share: true, note: 'secret note' });
		assert.match(textOf(none.callback.body), /no check-in channel/);
		assert.equal(posts(channelId).length, 0);

		await updateGuildSettings(container.db.orm.em.fork(), w.guildId, { checkinChannelId: channelId });
		const before = posts(channelId).length;
		await log({ note: 'not shared at all' });
		assert.equal(posts(channelId).length, before, 'not asked: nothing posted');

		const shared = await log({ share: true, note: 'my private words' });
		assert.match(textOf(shared.callback.body), new RegExp(`Shared in <#${channelId}>: your mood and intensity only`));
		const [post] = posts(channelId).slice(before);
		assert.ok(post, 'posted in the check-in channel');
		assert.match(post.body.content, new RegExp(`🙂 <@${user}> checked in: \\*\\*Good\\*\\*, 4/5`));
		assert.ok(!JSON.stringify(post.body).includes('my private words'), 'never the note');
		assert.deepEqual(post.body.allowed_mentions, { parse: [] });
	});
});

describe('reminder DM buttons', () => {
	const T = new Date('2031-05-10T12:00:00Z');

	async function reminded(user: string) {
		await run(w.fake, {
			name: 'checkin',
			subcommandGroup: 'reminders',
			subcommand: 'set',
			userId: user,
			options: { every: 1440, timezone: 'UTC' },
		});
		await sql('update check_in_reminders set enabled = false where user_id <> ?', [user]);
		await sql('update check_in_reminders set next_due_at = ? where user_id = ?', [T, user]);
		assert.equal((await container.reminders!.tick(T)).sent, 1);
		const dm = w.fake.requests.filter((r) => r.method === 'POST' && r.path === `/channels/${w.fake.dmChannel(user).id}/messages`).at(-1)!;
		return { embeds: dm.body.embeds, components: dm.body.components };
	}

	test('Check in now: a mood select, then the intensity; the check-in is recorded and the reminder moves on', async () => {
		const user = someone();
		const message = await reminded(user);
		assert.deepEqual(
			message.components[0].components.map((b: { label: string }) => b.label),
			['Check in now', 'Snooze 1 hour', 'Turn off reminders'],
		);
		const start = await w.fake.sendButton({ customId: QUICK_START, userId: user, dm: true, message }).callback();
		assert.equal(start.body.type, InteractionResponseType.UpdateMessage);
		const select = start.body.data.components[0].components[0];
		assert.equal(select.custom_id, QUICK_MOOD);
		assert.ok(select.options.some((o: { value: string }) => o.value === 'tired'));

		const picked = await w.fake
			.sendComponent({
				customId: QUICK_MOOD,
				componentType: ComponentType.StringSelect,
				values: ['tired'],
				userId: user,
				dm: true,
				message: start.body.data,
			})
			.callback();
		assert.match(textOf(picked.body), /Tired\*\*\. How strong is it\?/);
		const buttons = picked.body.data.components[0].components as { label: string; custom_id: string }[];
		assert.deepEqual(
			buttons.map((b) => b.label),
			['1', '2', '3', '4', '5'],
		);
		const done = await w.fake.sendButton({ customId: buttons[2]!.custom_id, userId: user, dm: true, message: picked.body.data }).callback();
		assert.match(textOf(done.body), /Logged: \*\*Tired\*\*, intensity 3\/5/);
		assert.match(textOf(done.body), /Your next reminder moves to/);
		assert.deepEqual(done.body.data.components, []);
		assert.deepEqual(await sql('select mood, intensity, guild_id, note from mood_check_ins where user_id = ?', [user]), [
			{ mood: 'tired', intensity: 3, guild_id: null, note: null },
		]);
	});

	test('Snooze 1 hour moves the next reminder an hour from now; with reminders off, says so', async () => {
		const user = someone();
		const message = await reminded(user);
		const clicked = Date.now();
		const snoozed = await w.fake.sendButton({ customId: SNOOZE_BUTTON, userId: user, dm: true, message }).callback();
		assert.match(snoozed.body.data.content, /Snoozed: the next reminder comes <t:\d+:R>/);
		const [row] = await sql<{ next_due_at: Date }>('select next_due_at from check_in_reminders where user_id = ?', [user]);
		const due = new Date(row!.next_due_at).getTime();
		// An hour on, unless that lands in the default quiet hours (22:00-08:00 UTC), then their end.
		assert.ok(due >= clicked + 3_600_000 - 1_000, 'at least an hour on');
		assert.ok(due <= clicked + 11 * 3_600_000, 'within the quiet hours at most');

		await run(w.fake, { name: 'checkin', subcommandGroup: 'reminders', subcommand: 'off', userId: user });
		const off = await w.fake.sendButton({ customId: SNOOZE_BUTTON, userId: user, dm: true, message }).callback();
		assert.match(off.body.data.content, /reminders are off, so there is nothing to snooze/);
	});
});
