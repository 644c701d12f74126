import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { normalizeCountry } from '../crisis/resources.ts';

/**
 * A server's settings, kept in `guilds.settings` (jsonb). One schema gives the defaults and reads stored values
 * field by field: a field that is missing or malformed falls back to its default without resetting the others, so
 * adding a setting never needs a migration. Settings are read from the database on every use, so a change made with
 * `/guildsettings` applies to the very next message or command.
 */

export const FEATURES = ['aiMentions', 'games', 'ghostLetters'] as const;
export type Feature = (typeof FEATURES)[number];

export const FEATURE_LABELS: Record<Feature, string> = {
	aiMentions: 'AI replies when Haven is mentioned',
	games: 'Games (/joke, /trivia, /wouldyourather ...)',
	ghostLetters: 'Ghost letters',
};

export const ESCALATE_MIN_MINUTES = 5;
export const ESCALATE_MAX_MINUTES = 1_440;

const SNOWFLAKE = /^\d{17,20}$/;
const snowflake = z.string().regex(SNOWFLAKE).nullable().default(null).catch(null);
const flag = (fallback: boolean) => z.boolean().default(fallback).catch(fallback);

const featuresSchema = z
	.object({ aiMentions: flag(true), games: flag(true), ghostLetters: flag(true) })
	.default({ aiMentions: true, games: true, ghostLetters: true })
	.catch({ aiMentions: true, games: true, ghostLetters: true });

export const guildSettingsSchema = z.object({
	/** Moderator alerts for possible crises (opt-in). */
	alertsEnabled: flag(false),
	/** Where alerts are posted; alerts stay off until one is set. */
	alertChannelId: snowflake,
	/** Pinged on each alert (only this role: allowed_mentions), optional. */
	alertRoleId: snowflake,
	/** A high or imminent alert nobody acknowledged within this many minutes is raised once more; null: never (default). */
	alertEscalateMinutes: z.number().int().min(ESCALATE_MIN_MINUTES).max(ESCALATE_MAX_MINUTES).nullable().default(null).catch(null),
	/** Default country for crisis resources (a code of the directory); null = the international directory. */
	country: z
		.string()
		.nullable()
		.default(null)
		.catch(null)
		.transform((value) => normalizeCountry(value)),
	/**
	 * "Check in on this message": may Haven DM the message's author some resources (never saying who asked)? Off by
	 * default: an unsolicited "someone is worried about you" message can feel like surveillance and has been used
	 * elsewhere to harass people; the member who asked gets guidance to reach out themselves, which helps more.
	 */
	offerResourcesToAuthor: flag(false),
	/** Channel where people may share their check-ins (`/checkin log share:True`: mood and intensity only). */
	checkinChannelId: snowflake,
	features: featuresSchema,
});

export type GuildSettings = z.output<typeof guildSettingsSchema>;

export interface GuildSettingsPatch {
	alertsEnabled?: boolean;
	alertChannelId?: string | null;
	alertRoleId?: string | null;
	alertEscalateMinutes?: number | null;
	country?: string | null;
	offerResourcesToAuthor?: boolean;
	checkinChannelId?: string | null;
	features?: Partial<Record<Feature, boolean>>;
}

/** Stored JSON (anything) to settings, defaults filled in. Never throws. */
export function parseGuildSettings(raw: unknown): GuildSettings {
	const result = guildSettingsSchema.safeParse(raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {});
	return result.success ? result.data : guildSettingsSchema.parse({});
}

export const DEFAULT_GUILD_SETTINGS: GuildSettings = Object.freeze(parseGuildSettings({})) as GuildSettings;

/** Applies a patch (pure). Unknown countries are refused with an error, ids are checked. */
export function applyGuildSettingsPatch(current: GuildSettings, patch: GuildSettingsPatch): GuildSettings {
	if (patch.country !== undefined && patch.country !== null && normalizeCountry(patch.country) === null) {
		throw new RangeError(`unknown country code: ${patch.country}`);
	}
	for (const key of ['alertChannelId', 'alertRoleId', 'checkinChannelId'] as const) {
		const value = patch[key];
		if (value !== undefined && value !== null && !SNOWFLAKE.test(value)) throw new RangeError(`${key} must be a Discord id`);
	}
	const { features, ...rest } = patch;
	const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
	const definedFeatures = Object.fromEntries(Object.entries(features ?? {}).filter(([, value]) => typeof value === 'boolean'));
	return parseGuildSettings({ ...current, ...defined, features: { ...current.features, ...definedFeatures } });
}

/** The server's settings (defaults for a server without a row). */
export async function getGuildSettings(em: EntityManager, guildId: string): Promise<GuildSettings> {
	const rows = await em.getConnection().execute<{ settings: unknown }[]>('select settings from guilds where id = ?', [guildId]);
	return parseGuildSettings(rows[0]?.settings);
}

/**
 * Changes some settings and returns the result. Read-modify-write under a row lock, so two admins changing different
 * settings at once both keep their change. Creates the server's row when the bot has not recorded it yet.
 */
export async function updateGuildSettings(em: EntityManager, guildId: string, patch: GuildSettingsPatch, now = new Date()): Promise<GuildSettings> {
	return em.transactional(async (tx) => {
		const connection = tx.getConnection();
		const ctx = tx.getTransactionContext();
		await connection.execute(
			`insert into guilds (id, settings, joined_at, left_at, updated_at) values (?, '{}', ?, null, ?) on conflict (id) do nothing`,
			[guildId, now, now],
			'run',
			ctx,
		);
		const rows = await connection.execute<{ settings: unknown }[]>('select settings from guilds where id = ? for update', [guildId], 'all', ctx);
		const next = applyGuildSettingsPatch(parseGuildSettings(rows[0]?.settings), patch);
		await connection.execute(
			'update guilds set settings = ?::jsonb, updated_at = ? where id = ?',
			[JSON.stringify(next), now, guildId],
			'run',
			ctx,
		);
		return next;
	});
}
