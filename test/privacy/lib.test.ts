// The privacy, retention and diagnostics logic without Discord or a database: the user-id and server-id columns
// derived from the ORM metadata (and the policy covering every one of them), the retention rules, the fault ring,
// permission checks, the delete-confirmation ids and the views (which must never carry content).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MikroORM } from '@mikro-orm/postgresql';
import { PermissionFlagsBits } from 'discord.js';
import { parseConfig } from '../../src/lib/core/config.ts';
import { entities } from '../../src/lib/db/entities.ts';
import { collectDefinitions, cooldownSeconds } from '../../src/lib/discord/definitions.ts';
import {
	FaultRing,
	GUILD_PERMISSIONS,
	missingPermissions,
	renderGuildContext,
	renderGuildDebug,
} from '../../src/lib/operations/guild-diagnostics.ts';
import { guildColumns, unclassifiedColumns, unclassifiedGuildColumns, userColumns, USER_DATA_POLICY } from '../../src/lib/privacy/user-data.ts';
import { deleteButtonId, DELETE_CONFIRM_MS, parseDeleteButton, renderDeleteConfirm, renderPrivacyInfo } from '../../src/lib/privacy/views.ts';
import { DEFAULT_RETENTION, retentionRules, retentionSettings, retentionTable } from '../../src/lib/privacy/retention.ts';

/** The model's metadata, discovered without connecting (the constructor discovers; only `connect` opens a connection). */
function metadata() {
	const orm = new MikroORM({ entities, dbName: 'metadata_only' });
	return orm.getMetadata();
}

const USER = '123456789012345678';

describe('columns that can hold a user id, from the ORM metadata', () => {
	test('every one has a deletion and export rule (a new entity with a user-id column fails here until it gets one)', () => {
		const { missing, stale } = unclassifiedColumns(metadata());
		assert.deepEqual(
			missing,
			[],
			`these columns can hold a user id but have no entry in USER_DATA_POLICY (src/lib/privacy/user-data.ts): ${missing.join(', ')}. ` +
				'Decide what /privacy delete does with them (delete the rows, or set the id to null) and how /privacy export shows them.',
		);
		assert.deepEqual(stale, [], `USER_DATA_POLICY names columns that no longer exist: ${stale.join(', ')}`);
	});

	test('every server-id column has a rule for purging a server Haven left', () => {
		const { missing, stale } = unclassifiedGuildColumns(metadata());
		assert.deepEqual(
			missing,
			[],
			`server-id columns without an entry in GUILD_DATA_POLICY (src/lib/privacy/user-data.ts): ${missing.join(', ')}`,
		);
		assert.deepEqual(stale, []);
	});

	test('finds the known person columns and leaves server, channel and message ids out', () => {
		const found = userColumns(metadata()).map((c) => `${c.table}.${c.column}`);
		for (const expected of [
			'users.id',
			'mood_check_ins.user_id',
			'ghost_letters.user_id',
			'feedback.user_id',
			'feedback.reviewer_id',
			'memory_turns.user_id',
			'conversations.user_id',
			'crisis_events.user_id',
			'crisis_events.acknowledged_by',
			'crisis_events.resolved_by',
		]) {
			assert.ok(found.includes(expected), `${expected} is a user-id column`);
		}
		for (const not of [
			'guilds.id',
			'crisis_events.guild_id',
			'crisis_events.alert_message_id',
			'memory_turns.channel_id',
			'conversations.guild_id',
		]) {
			assert.ok(!found.includes(not), `${not} is not a user-id column`);
		}
		const guild = guildColumns(metadata()).map((c) => `${c.table}.${c.column}`);
		for (const expected of ['guilds.id', 'crisis_events.guild_id', 'conversations.guild_id', 'mood_check_ins.guild_id'])
			assert.ok(guild.includes(expected), expected);
	});

	test('the policy keeps counts anonymous and deletes what is personal', () => {
		assert.equal(USER_DATA_POLICY['Conversation.userId']!.delete, 'nullify');
		assert.deepEqual(USER_DATA_POLICY['CrisisEvent.userId']!.alsoClear, ['details']);
		assert.equal(USER_DATA_POLICY['CrisisEvent.acknowledgedBy']!.export, 'count', "a moderator's export does not show other people's events");
		for (const key of ['MoodCheckIn.userId', 'GhostLetter.userId', 'Feedback.userId', 'MemoryTurn.userId', 'UserProfile.id'])
			assert.equal(USER_DATA_POLICY[key]!.delete, 'rows', key);
	});
});

describe('retention policy', () => {
	test('defaults, configurable through the environment', () => {
		assert.deepEqual(retentionSettings(parseConfig({})), DEFAULT_RETENTION);
		const config = parseConfig({
			MEMORY_TTL_HOURS: '6',
			CRISIS_DETAILS_RETENTION_DAYS: '14',
			GUILD_PURGE_GRACE_DAYS: '0',
			PURGE_INTERVAL_MS: '0',
		});
		assert.equal(config.retention.memoryTtlHours, 6);
		assert.equal(config.retention.crisisDetailsDays, 14);
		assert.equal(config.retention.guildGraceDays, 0);
		assert.equal(config.retention.purgeIntervalMs, 0);
		assert.equal(parseConfig({}).retention.purgeIntervalMs, 3_600_000);
		assert.throws(() => parseConfig({ MEMORY_TTL_HOURS: '0' }), /MEMORY_TTL_HOURS must be a whole number from 1 to 720/);
	});

	test('cut-offs follow the settings and the injected time', () => {
		const now = new Date('2026-11-21T12:00:00Z');
		const rules = Object.fromEntries(retentionRules(DEFAULT_RETENTION).map((rule) => [rule.key, rule]));
		assert.deepEqual(rules.memory_turns!.where(now).params, [now]);
		assert.deepEqual(rules['crisis_events.details']!.where(now).params, [new Date('2026-10-22T12:00:00Z')]);
		assert.equal(rules['crisis_events.details']!.action, 'anonymise');
		assert.deepEqual(rules.mood_check_ins!.where(now).params, [new Date('2025-11-21T12:00:00Z')]);
		assert.deepEqual(rules.ghost_letters!.where(now).params, [new Date('2026-08-23T12:00:00Z')]);
		const table = retentionTable(DEFAULT_RETENTION).map((row) => `${row.data}: ${row.kept}`);
		assert.ok(table.includes('Conversation memory: 24 hours (last 6 turns per channel)'));
		assert.ok(table.some((line) => /after Haven leaves: 7 days/.test(line)));
	});
});

describe('command definitions', () => {
	test('/privacy keeps the info cooldown; the admin commands need Manage Server with a 10 s cooldown', async () => {
		const byName = new Map((await collectDefinitions()).map((d) => [d.name, d]));
		assert.equal(cooldownSeconds(byName.get('privacy')!), 5);
		assert.deepEqual(
			byName.get('privacy')!.options!.map((o) => o.name),
			['info', 'export', 'delete', 'memory'],
		);
		for (const name of ['guildcontext', 'guilddebug']) {
			assert.equal(byName.get(name)!.access, 'guildAdmin', name);
			assert.equal(cooldownSeconds(byName.get(name)!), 10, name);
		}
	});
});

describe('delete confirmation', () => {
	test('ids carry the person and the expiry, and nothing else parses', () => {
		const id = deleteButtonId({ action: 'confirm', userId: USER, expiresAt: 1_800_000_000_000 });
		assert.ok(id.length <= 100, 'fits a custom_id');
		assert.deepEqual(parseDeleteButton(id), { action: 'confirm', userId: USER, expiresAt: 1_800_000_000_000 });
		for (const bad of ['privacy-delete:confirm:123:1', 'privacy-delete:drop:123456789012345678:1', 'feedback:list:1', `${id}:x`])
			assert.equal(parseDeleteButton(bad), null, bad);
		const view = renderDeleteConfirm(USER, new Date(1_000_000));
		const buttons = view.components![0]!.components as { custom_id: string }[];
		assert.deepEqual(
			buttons.map((b) => parseDeleteButton(b.custom_id)?.expiresAt),
			[1_000_000 + DELETE_CONFIRM_MS, 1_000_000 + DELETE_CONFIRM_MS],
		);
	});

	test('the info view keeps the links and says what is kept for how long', () => {
		const urls = {
			website: 'https://h.test',
			docs: 'https://h.test/docs',
			support: 'https://h.test/support',
			invite: 'https://h.test/invite',
			source: 'https://src.test',
		};
		const view = renderPrivacyInfo(urls, DEFAULT_RETENTION, false);
		const text = JSON.stringify(view);
		assert.match(text, /encrypted at rest/);
		assert.match(text, /Conversation memory: 24 hours/);
		assert.match(text, /conversation memory is \*\*off\*\* for you/);
		assert.match(text, /https:\/\/h\.test\/support/);
	});
});

describe('diagnostics', () => {
	test('the fault ring keeps the newest few per server, forgets old ones and bounds the servers', () => {
		const ring = new FaultRing(3, 2, 60_000);
		const at = (ms: number) => new Date(1_000_000 + ms);
		for (let i = 0; i < 5; i++) ring.add('g1', { where: `/c${i}`, errorId: `id${i}`, errorName: 'Error', at: at(i) });
		assert.deepEqual(
			ring.recent('g1', at(10)).map((f) => f.where),
			['/c4', '/c3', '/c2'],
		);
		assert.deepEqual(
			ring.recent('g1', at(60_003)).map((f) => f.where),
			['/c4', '/c3'],
			'older than a minute dropped',
		);
		ring.add('g2', { where: '/x', errorId: 'a', errorName: 'Error', at: at(0) });
		ring.add('g3', { where: '/y', errorId: 'b', errorName: 'Error', at: at(0) });
		assert.deepEqual(ring.recent('g1', at(10)), [], 'the least recently faulted server is forgotten');
		assert.equal(ring.recent('g3', at(10)).length, 1);
	});

	test('missing permissions, Administrator counting as all', () => {
		const have = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;
		assert.deepEqual(missingPermissions(have, GUILD_PERMISSIONS), ['Send Messages in Threads', 'Embed Links', 'Read Message History']);
		assert.deepEqual(missingPermissions(PermissionFlagsBits.Administrator, GUILD_PERMISSIONS), []);
	});

	test('views show counts, ids and error ids only', () => {
		const context = JSON.stringify(
			renderGuildContext({
				settingsView: { embeds: [{ title: 'Haven settings', fields: [{ name: 'Crisis alerts', value: 'Off' }] }] },
				record: { joinedAt: new Date('2026-01-01T00:00:00Z'), leftAt: null, hasSettings: true },
				counts: [{ table: 'crisis_events', label: 'Crisis events', total: 3, recent: 1 }],
				missing: ['Embed Links'],
				graceDays: 7,
			}),
		);
		assert.match(context, /Crisis events: \*\*3\*\* \(1 in the last 30 days\)/);
		assert.match(context, /Embed Links/);
		assert.match(context, /deleted 7 days after Haven is removed/);
		const debug = JSON.stringify(
			renderGuildDebug({
				guildId: '1',
				shard: { id: 0, state: 'ready', latencyMs: null, guilds: 2, lastReady: null, resumes: 0 },
				channels: [{ label: 'Check-in channel', channelId: '22222222222222222', found: true, missing: ['Send Messages'] }],
				alertRole: null,
				faults: [{ where: '/boom', errorId: 'deadbeef', errorName: 'TypeError', at: new Date() }],
				versions: { Haven: 'v1' },
				uptimeSeconds: 5,
			}),
		);
		assert.match(debug, /Shard \*\*0\*\*: ready/);
		assert.match(debug, /not measured yet/);
		assert.match(debug, /<#22222222222222222> \*\*missing\*\* Send Messages/);
		assert.match(debug, /\/boom: TypeError, error id `deadbeef`/);
	});
});
