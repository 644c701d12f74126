// The safety system's pure parts, without Discord or a database: decisions, views, settings parsing, the companion.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import { AiError, CAREFUL_ADDENDUM, fallbackFor, type Ai, type ChatTurn, type CompleteOptions } from '../../src/lib/ai/index.ts';
import { aiSafetyIdentifier, companionTurn, EMPTY_MENTION_REPLY, safetyIdentifier } from '../../src/lib/companion/companion.ts';
import { INTERNATIONAL, listCountries } from '../../src/lib/crisis/resources.ts';
import { screen } from '../../src/lib/crisis/screen.ts';
import { applyGuildSettingsPatch, DEFAULT_GUILD_SETTINGS, parseGuildSettings } from '../../src/lib/settings/guild-settings.ts';
import { alertBody } from '../../src/lib/safety/alerts.ts';
import {
	alertDecision,
	alertsConfigured,
	atLeast,
	canRespondToAlert,
	DETAILS_MAX_CHARS,
	eventDetails,
	jumpUrl,
	stripBotMention,
	within,
	worryAbout,
} from '../../src/lib/safety/policy.ts';
import {
	alertButtonId,
	OPEN_ALERT,
	parseAlertButton,
	renderAlert,
	renderAlertStatus,
	renderAuthorOffer,
	renderCheckInReply,
	renderCrisisCommandReply,
	renderDmsClosed,
} from '../../src/lib/safety/crisis-views.ts';
import { checkAlertRole, checkChannel, renderGuildSettings, renderPreferences } from '../../src/lib/settings/views.ts';
import { channelToCheck, patchFromOptions, type GuildSettingsOptions } from '../../src/lib/settings/guild-settings-options.ts';
import { resourceCountry } from '../../src/lib/settings/user-settings.ts';

const ID = '123456789012345678';
const ROLE = '223456789012345678';

describe('policy', () => {
	test('a member worried about a message: at least concern, third party, never lowered', () => {
		const calm = worryAbout(screen('see you at the match'));
		assert.equal(calm.level, 'concern');
		assert.deepEqual(calm.categories, ['third_party']);
		assert.equal(calm.thirdParty, true);
		const serious = worryAbout(screen('I have the pills right here and I am going to take them all tonight'));
		assert.equal(serious.level, 'imminent');
		assert.ok(serious.categories.includes('third_party') && serious.categories.includes('time_bound_intent'));
		assert.deepEqual(atLeast(screen('hello'), 'concern', ['help_seeking', 'help_seeking']).categories, ['help_seeking']);
	});

	test('alert deduplication: the first alerts, the same or lower level is a duplicate, a higher one alerts', () => {
		assert.equal(alertDecision([], 'concern'), 'alert');
		assert.equal(alertDecision(['high'], 'high'), 'duplicate');
		assert.equal(alertDecision(['high', 'concern'], 'concern'), 'duplicate');
		assert.equal(alertDecision(['concern'], 'high'), 'alert');
		assert.equal(alertDecision(['high'], 'imminent'), 'alert');
		assert.equal(alertDecision(['imminent'], 'high'), 'duplicate');
		assert.equal(alertDecision(['garbage'], 'concern'), 'alert', 'unknown stored levels are ignored');
	});

	test('who may answer an alert: sees the channel and (Manage Server, Manage Messages or the alert role)', () => {
		const perms = (...bits: bigint[]) => new PermissionsBitField(bits.reduce((a, b) => a | b, 0n));
		const V = PermissionFlagsBits.ViewChannel;
		assert.equal(canRespondToAlert(perms(V, PermissionFlagsBits.ManageGuild), [], null), true);
		assert.equal(canRespondToAlert(perms(V, PermissionFlagsBits.ManageMessages), [], null), true);
		assert.equal(canRespondToAlert(perms(V), [ROLE], ROLE), true);
		assert.equal(canRespondToAlert(perms(V), [ROLE], null), false, 'a role only counts when it is the alert role');
		assert.equal(canRespondToAlert(perms(V), [], ROLE), false, 'seeing the channel is not enough');
		assert.equal(canRespondToAlert(perms(PermissionFlagsBits.ManageGuild), [ROLE], ROLE), false, 'cannot see the channel');
		assert.equal(canRespondToAlert(perms(PermissionFlagsBits.Administrator), [], null), true);
		assert.equal(canRespondToAlert(null, [ROLE], ROLE), false);
	});

	test('what is kept: nothing without alerts; with alerts a short, one-line excerpt', () => {
		assert.equal(eventDetails('I want to die', false), null);
		assert.equal(eventDetails('   ', true), null);
		assert.equal(eventDetails(null, true), null);
		assert.equal(eventDetails('I want\n\nto die', true), 'I want to die');
		const long = eventDetails('word '.repeat(200), true)!;
		assert.equal(long.length, DETAILS_MAX_CHARS);
		assert.ok(long.endsWith('…'));
	});

	test('small helpers', () => {
		assert.equal(stripBotMention(`<@${ID}> hello <@!${ID}>  there`, ID), 'hello there');
		assert.equal(stripBotMention(`<@${ID}>`, ID), '');
		assert.equal(jumpUrl('1', '2', '3'), 'https://discord.com/channels/1/2/3');
		assert.equal(alertsConfigured({ alertsEnabled: true, alertChannelId: null }), false);
		assert.equal(alertsConfigured({ alertsEnabled: true, alertChannelId: ID }), true);
		assert.equal(resourceCountry({ country: 'GB' }, { country: 'US' }), 'GB');
		assert.equal(resourceCountry({ country: null }, { country: 'US' }), 'US');
		assert.equal(resourceCountry({ country: null }, undefined), null);
	});

	test('within: the value, or the fallback on failure or timeout, and no timer left behind', async () => {
		assert.equal(await within(Promise.resolve(1), 1_000, 0), 1);
		const reasons: string[] = [];
		assert.equal(await within(Promise.reject(new Error('x')), 1_000, 0, (reason) => reasons.push(reason)), 0);
		assert.equal(await within(new Promise<number>(() => undefined), 10, 0, (reason) => reasons.push(reason)), 0);
		assert.deepEqual(reasons, ['error', 'timeout']);
		// A late rejection after the timeout is swallowed (no unhandled rejection).
		let reject!: (e: Error) => void;
		assert.equal(await within(new Promise<number>((_, r) => (reject = r)), 5, 7), 7);
		reject(new Error('late'));
	});
});

describe('views', () => {
	test('alert buttons round-trip, and nothing else parses', () => {
		assert.deepEqual(parseAlertButton(alertButtonId('ack', 42)), { action: 'ack', eventId: 42 });
		assert.deepEqual(parseAlertButton(alertButtonId('resolve', 7)), { action: 'resolve', eventId: 7 });
		for (const bad of ['crisis-alert:ack:', 'crisis-alert:delete:1', 'crisis-alert:ack:1:2', 'fbm:view:1', 'crisis-alert:ack:-1'])
			assert.equal(parseAlertButton(bad), null, bad);
	});

	test('an alert: level, link, how it came up; the role ping only when set; no one named', () => {
		const url = jumpUrl('1', '2', '3');
		const alert = renderAlert({ eventId: 9, level: 'high', trigger: 'context_menu', jumpUrl: url, roleId: null });
		assert.ok(alert.content.includes(url));
		assert.match(alert.content, /\*\*High\*\*/);
		assert.match(alert.content, /Haven does not say who/);
		assert.doesNotMatch(alert.content, /<@/);
		assert.deepEqual(
			alertBody({ eventId: 9, guildId: '1', userId: ID, level: 'high', trigger: 'mention', jumpUrl: url, channelId: '5', roleId: null })
				.allowed_mentions,
			{ parse: [] },
		);
		const pinged = alertBody({
			eventId: 9,
			guildId: '1',
			userId: ID,
			level: 'imminent',
			trigger: 'mention',
			jumpUrl: url,
			channelId: '5',
			roleId: ROLE,
		});
		assert.ok(pinged.content.startsWith(`<@&${ROLE}>`));
		assert.deepEqual(pinged.allowed_mentions, { parse: [], roles: [ROLE] });
		assert.match(pinged.content, /emergency services/);
		assert.ok(!pinged.content.includes(ID), 'the person is not named');
	});

	test('alert status: open, acknowledged, resolved', () => {
		const open = renderAlertStatus(1, OPEN_ALERT);
		assert.match(open.embeds[0]!.description!, /Open/);
		assert.deepEqual(
			open.components[0]!.components.map((b) => (b as { disabled?: boolean }).disabled),
			[false, false],
		);
		const at = new Date('2026-11-20T10:00:00Z');
		const acked = renderAlertStatus(1, { ...OPEN_ALERT, acknowledgedBy: ID, acknowledgedAt: at });
		assert.match(acked.embeds[0]!.description!, new RegExp(`Acknowledged\\*\\* by <@${ID}> <t:${at.getTime() / 1000}:R>`));
		assert.deepEqual(
			acked.components[0]!.components.map((b) => (b as { disabled?: boolean }).disabled),
			[true, false],
		);
		const resolved = renderAlertStatus(1, { acknowledgedBy: ID, acknowledgedAt: at, resolvedBy: ROLE, resolvedAt: at });
		assert.match(resolved.embeds[0]!.description!, /Resolved/);
		assert.deepEqual(
			resolved.components[0]!.components.map((b) => (b as { disabled?: boolean }).disabled),
			[true, true],
		);
	});

	test('replies fit in one Discord message for every country; the check-in reply keeps its privacy note', () => {
		const imminent = screen('I have the pills right here and I am going to take them all tonight');
		for (const { code } of listCountries()) {
			const reply = renderCheckInReply(worryAbout(imminent), code, true);
			assert.ok(reply.length <= 2_000, code);
			assert.match(reply, /Nobody is told that you used this/);
			assert.match(reply, /immediate danger/);
			for (const part of renderAuthorOffer(code)) assert.ok(part.length <= 2_000 && part.length > 0, code);
			assert.ok(renderCrisisCommandReply(null, code).length <= 2_000);
			assert.ok(renderCrisisCommandReply(imminent, code).length <= 2_000);
		}
	});

	test('/crisis: resources only without text or with calm text; fitted with a crisis', () => {
		assert.match(renderCrisisCommandReply(null, 'US'), /988/);
		assert.match(renderCrisisCommandReply(screen('what lines are there?'), 'US'), /Crisis support in/);
		assert.match(renderCrisisCommandReply(screen('I want to die'), 'US'), /glad you told me/);
		assert.match(renderCrisisCommandReply(screen('my friend says she wants to kill herself'), 'US'), /looking out for them/);
	});

	test('the closed-DMs fallback points to /crisis and pings only the author', () => {
		const text = renderDmsClosed(ID);
		assert.ok(text.startsWith(`<@${ID}>`));
		assert.match(text, /`\/crisis`/);
		assert.doesNotMatch(text, /suicid|kill|die/i);
	});
});

describe('settings', () => {
	test('defaults: alerts off, no channel, offer off, worldwide, features on', () => {
		assert.deepEqual(DEFAULT_GUILD_SETTINGS, {
			alertsEnabled: false,
			alertChannelId: null,
			alertRoleId: null,
			alertEscalateMinutes: null,
			country: null,
			offerResourcesToAuthor: false,
			checkinChannelId: null,
			features: { aiMentions: true, games: true, ghostLetters: true },
		});
	});

	test('stored values are read field by field: a bad one falls back alone', () => {
		const parsed = parseGuildSettings({
			alertsEnabled: 'yes',
			alertChannelId: ID,
			alertRoleId: 'not-an-id',
			country: 'uk',
			features: { games: false, aiMentions: 3 },
			extra: 1,
		});
		assert.equal(parsed.alertsEnabled, false);
		assert.equal(parsed.alertChannelId, ID);
		assert.equal(parsed.alertRoleId, null);
		assert.equal(parsed.country, 'GB', 'aliases are normalised');
		assert.deepEqual(parsed.features, { aiMentions: true, games: false, ghostLetters: true });
		assert.equal('extra' in parsed, false);
		for (const junk of [null, 'text', 42, [], { features: 'x' }, { country: 'ZZ' }]) assert.doesNotThrow(() => parseGuildSettings(junk));
		assert.equal(parseGuildSettings({ country: 'ZZ' }).country, null);
	});

	test('patches merge features, keep the rest, refuse bad values', () => {
		const next = applyGuildSettingsPatch(DEFAULT_GUILD_SETTINGS, { alertsEnabled: true, alertChannelId: ID, features: { games: false } });
		assert.equal(next.alertsEnabled, true);
		assert.equal(next.alertChannelId, ID);
		assert.deepEqual(next.features, { aiMentions: true, games: false, ghostLetters: true });
		const again = applyGuildSettingsPatch(next, { features: { ghostLetters: false }, alertRoleId: null });
		assert.deepEqual(again.features, { aiMentions: true, games: false, ghostLetters: false });
		assert.equal(again.alertChannelId, ID);
		assert.throws(() => applyGuildSettingsPatch(next, { country: 'ZZ' }), RangeError);
		assert.throws(() => applyGuildSettingsPatch(next, { alertChannelId: 'general' }), RangeError);
		assert.equal(applyGuildSettingsPatch(next, { country: 'us' }).country, 'US');
	});

	test('channel checks: refuse what Haven cannot post in, warn about public alert channels', () => {
		const all = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.EmbedLinks;
		assert.match(checkChannel({ isTextChannel: false, botPermissions: all, everyoneCanView: false, purpose: 'alerts' }).problem!, /text channel/);
		assert.match(
			checkChannel({ isTextChannel: true, botPermissions: PermissionFlagsBits.ViewChannel, everyoneCanView: false, purpose: 'alerts' })
				.problem!,
			/Send Messages, Embed Links/,
		);
		assert.deepEqual(checkChannel({ isTextChannel: true, botPermissions: all, everyoneCanView: false, purpose: 'alerts' }), { warnings: [] });
		assert.equal(checkChannel({ isTextChannel: true, botPermissions: all, everyoneCanView: true, purpose: 'alerts' }).warnings.length, 1);
		assert.deepEqual(
			checkChannel({
				isTextChannel: true,
				botPermissions: PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages,
				everyoneCanView: true,
				purpose: 'checkins',
			}),
			{ warnings: [] },
		);
		assert.ok(checkAlertRole({ isEveryone: true, managed: false, mentionable: true, botCanMentionAll: true }).problem);
		assert.ok(checkAlertRole({ isEveryone: false, managed: true, mentionable: true, botCanMentionAll: true }).problem);
		assert.equal(checkAlertRole({ isEveryone: false, managed: false, mentionable: false, botCanMentionAll: false }).warnings.length, 1);
		assert.deepEqual(checkAlertRole({ isEveryone: false, managed: false, mentionable: true, botCanMentionAll: false }), { warnings: [] });
	});

	test('/guildsettings options to a patch: refusals, warnings, and the channel that must be checked first', () => {
		const all = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.EmbedLinks;
		const privateChannel = { isTextChannel: true, botPermissions: all, everyoneCanView: false };
		const okRole = { isEveryone: false, managed: false, mentionable: true, botCanMentionAll: false };
		const alerts = (over: Partial<Extract<GuildSettingsOptions, { sub: 'alerts' }>> = {}): GuildSettingsOptions => ({
			sub: 'alerts',
			enabled: true,
			channelId: null,
			roleId: null,
			noRole: false,
			...over,
		});
		const none = { currentAlertChannelId: null };

		// Turning alerts on needs a channel: the one given, else the saved one (which is checked again).
		assert.deepEqual(patchFromOptions(alerts(), none), { problem: 'Choose a channel for the alerts (the `channel` option).' });
		assert.deepEqual(channelToCheck(alerts(), ID), { id: ID, purpose: 'alerts' });
		assert.deepEqual(patchFromOptions(alerts(), { currentAlertChannelId: ID, channel: privateChannel }), {
			patch: { alertsEnabled: true },
			warnings: [],
		});
		assert.match((patchFromOptions(alerts(), { currentAlertChannelId: ID }) as { problem: string }).problem, /text channel/);
		// Turning them off checks nothing and keeps the channel; a new channel is checked even then.
		assert.equal(channelToCheck(alerts({ enabled: false }), ID), null);
		assert.deepEqual(patchFromOptions(alerts({ enabled: false, noRole: true }), { currentAlertChannelId: ID }), {
			patch: { alertRoleId: null, alertsEnabled: false },
			warnings: [],
		});
		assert.deepEqual(channelToCheck(alerts({ enabled: false, channelId: ROLE }), ID), { id: ROLE, purpose: 'alerts' });
		const publicChannel = patchFromOptions(alerts({ channelId: ID, roleId: ROLE }), {
			...none,
			channel: { ...privateChannel, everyoneCanView: true },
			role: okRole,
		});
		assert.deepEqual((publicChannel as { patch: unknown }).patch, { alertRoleId: ROLE, alertsEnabled: true, alertChannelId: ID });
		assert.match((publicChannel as { warnings: string[] }).warnings.join(), /everyone in the server can see that channel/);
		assert.deepEqual(patchFromOptions(alerts({ channelId: ID, roleId: ROLE }), { ...none, channel: privateChannel, role: null }), {
			problem: 'That role was not found in this server.',
		});
		assert.match(
			(
				patchFromOptions(alerts({ channelId: ID, roleId: ROLE }), {
					...none,
					channel: privateChannel,
					role: { ...okRole, isEveryone: true },
				}) as {
					problem: string;
				}
			).problem,
			/@everyone can't be the alert role/,
		);

		assert.deepEqual(patchFromOptions({ sub: 'country', country: INTERNATIONAL }, none), { patch: { country: null }, warnings: [] });
		assert.deepEqual(patchFromOptions({ sub: 'country', country: 'DE' }, none), { patch: { country: 'DE' }, warnings: [] });
		assert.deepEqual(patchFromOptions({ sub: 'country', country: 'ZZ' }, none), { problem: 'That value is not valid.' });
		assert.deepEqual(patchFromOptions({ sub: 'author-offer', enabled: true }, none), { patch: { offerResourcesToAuthor: true }, warnings: [] });
		assert.deepEqual(patchFromOptions({ sub: 'checkin-channel', channelId: null }, none), { patch: { checkinChannelId: null }, warnings: [] });
		assert.deepEqual(channelToCheck({ sub: 'checkin-channel', channelId: ID }, null), { id: ID, purpose: 'checkins' });
		assert.deepEqual(
			patchFromOptions({ sub: 'checkin-channel', channelId: ID }, { ...none, channel: { ...privateChannel, everyoneCanView: true } }),
			{ patch: { checkinChannelId: ID }, warnings: [] },
		);
		assert.deepEqual(patchFromOptions({ sub: 'feature', feature: 'games', enabled: false }, none), {
			patch: { features: { games: false } },
			warnings: [],
		});
		assert.deepEqual(patchFromOptions({ sub: 'feature', feature: 'nope', enabled: false }, none), { problem: 'Unknown feature.' });
		assert.deepEqual(patchFromOptions({ sub: 'unknown' }, none), { problem: 'Unknown setting.' });
	});

	test('settings views', () => {
		const view = renderGuildSettings({ ...DEFAULT_GUILD_SETTINGS, alertsEnabled: true, alertChannelId: ID, alertRoleId: ROLE, country: 'DE' }, [
			'Saved.',
		]);
		assert.equal(view.content, 'Saved.');
		const text = JSON.stringify(view.embeds);
		assert.ok(text.includes(`<#${ID}>`) && text.includes(`<@&${ROLE}>`) && text.includes('Germany (DE)'));
		assert.match(JSON.stringify(renderPreferences({ country: null, screeningOptOut: true }).embeds), /\/crisis` always works/);
	});
});

describe('companion', () => {
	function fakeAi(behaviour: (turns: ChatTurn[], opts: CompleteOptions) => Promise<string>): Ai & { calls: CompleteOptions[] } {
		const calls: CompleteOptions[] = [];
		return {
			configured: true,
			calls,
			complete: (turns, opts = {}) => {
				calls.push(opts);
				return behaviour(turns, opts);
			},
			moderate: async () => null,
		};
	}
	const input = { userId: ID, channelId: ID, guildId: null, text: 'rough day' };

	const KEY = Buffer.alloc(32, 7);

	test('a sanitised AI reply; careful when asked; a keyed id, never the raw one', async () => {
		const ai = fakeAi(async () => 'Call 555-123-4567 or ping <@123456789012345678>');
		const turn = await companionTurn({ ...input, careful: true }, { ai, identifierKey: KEY });
		assert.equal(turn.fromAi, true);
		assert.ok(!turn.reply.includes('555') && !turn.reply.includes('<@'));
		assert.equal(ai.calls[0]!.careful, true);
		assert.equal(ai.calls[0]!.user, safetyIdentifier(ID, KEY));
		assert.ok(!ai.calls[0]!.user!.includes(ID));
		assert.ok(CAREFUL_ADDENDUM.length > 0);
	});

	test('the AI sees one identifier per person and installation key', () => {
		assert.equal(aiSafetyIdentifier(ID, KEY), safetyIdentifier(ID, KEY));
		assert.equal(aiSafetyIdentifier(ID, KEY), aiSafetyIdentifier(ID, Buffer.alloc(32, 7)));
		assert.notEqual(aiSafetyIdentifier(ID, KEY), aiSafetyIdentifier('223456789012345678', KEY));
		assert.notEqual(aiSafetyIdentifier(ID, KEY), aiSafetyIdentifier(ID, Buffer.alloc(32, 8)));
		assert.match(aiSafetyIdentifier(ID, KEY), /^[0-9a-f]{32}$/);
	});

	test('AI failures give the fixed fallbacks; an empty mention gets a hint without asking the AI', async () => {
		for (const kind of ['not_configured', 'timeout', 'rate_limited', 'failed'] as const) {
			const turn = await companionTurn(input, { ai: fakeAi(async () => Promise.reject(new AiError(kind))), identifierKey: KEY });
			assert.deepEqual(turn, { reply: fallbackFor(kind), fromAi: false });
		}
		const ai = fakeAi(async () => 'hi');
		assert.deepEqual(await companionTurn({ ...input, text: '   ' }, { ai, identifierKey: KEY }), { reply: EMPTY_MENTION_REPLY, fromAi: false });
		assert.equal(ai.calls.length, 0);
		await assert.rejects(companionTurn(input, { ai: fakeAi(async () => Promise.reject(new TypeError('bug'))), identifierKey: KEY }), TypeError);
	});
});
