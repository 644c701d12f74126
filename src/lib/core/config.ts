import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { parseEncryptionKey } from '../db/field-cipher.ts';
import { parseShardCount, parseShardIds, shardSettingProblems } from '../fleet/shard-config.ts';

/** The only module that reads the environment. Everything else receives a `Config`. */

export const DEFAULT_WEBSITE_URL = 'https://haven.example.com';
export const DEFAULT_SOURCE_URL = 'https://github.com/haven-wellbeing/haven';
export const DEFAULT_SALT = 'haven-default-salt-v1';
export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';
export const DEFAULT_DISCORD_API_URL = 'https://discord.com/api';
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

const SNOWFLAKE = /^\d{17,20}$/;
/** Bearer tokens shorter than this are warned about, and refused in production. */
export const MIN_TOKEN_LENGTH = 32;
/** HTTP server defaults: a client that trickles headers or a body is cut off within 30 s. */
export const DEFAULT_HTTP_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_HTTP_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_HTTP_MAX_CONNECTIONS = 1_024;
const OFF_VALUES = new Set(['', '0', 'false', 'no', 'off']);

export type TrustProxy = false | { hops: number } | { addresses: string[] };

export class ConfigError extends Error {
	readonly problems: string[];
	constructor(problems: string[]) {
		super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
		this.name = 'ConfigError';
		this.problems = problems;
	}
}

const optionalText = z
	.string()
	.optional()
	.transform((value) => (value?.trim() ? value.trim() : undefined));

const flag = z
	.string()
	.optional()
	.transform((value) => value !== undefined && !OFF_VALUES.has(value.trim().toLowerCase()));

const url = (name: string) => optionalText.refine((value) => value === undefined || isHttpUrl(value), { message: `${name} must be an http(s) URL` });

const snowflake = (name: string) =>
	optionalText.refine((value) => value === undefined || SNOWFLAKE.test(value), {
		message: `${name} must be a Discord ID (17 to 20 digits)`,
	});

const integer = (name: string, fallback: number, min: number, max: number) =>
	optionalText.transform((value, ctx) => {
		if (value === undefined) return fallback;
		const parsed = Number(value);
		if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
			ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}` });
			return z.NEVER;
		}
		return parsed;
	});

const fields = z.object({
	NODE_ENV: optionalText,
	TOKEN: optionalText,
	CLIENT_ID: snowflake('CLIENT_ID'),
	DATABASE_URL: optionalText.refine((value) => value === undefined || /^postgres(ql)?:\/\/.+/.test(value), {
		message: 'DATABASE_URL must be a postgres:// or postgresql:// connection string',
	}),
	DATA_DIR: optionalText,
	OPENAI_API_KEY: optionalText,
	OPENAI_BASE_URL: url('OPENAI_BASE_URL'),
	OPENAI_MODEL: optionalText,
	OPENAI_TIMEOUT_MS: integer('OPENAI_TIMEOUT_MS', 20_000, 100, 120_000),
	ENCRYPTION_KEY: optionalText.transform((value, ctx) => {
		if (value === undefined) return undefined;
		const parsed = parseEncryptionKey(value);
		if (typeof parsed === 'string') {
			ctx.addIssue({ code: 'custom', message: parsed });
			return z.NEVER;
		}
		return parsed;
	}),
	ENCRYPTION_SALT_LIST: optionalText.transform((value, ctx) => {
		if (value === undefined) return [DEFAULT_SALT];
		const salts = value.split(',').map((salt) => salt.trim());
		if (salts.some((salt) => salt.length === 0)) {
			ctx.addIssue({ code: 'custom', message: 'ENCRYPTION_SALT_LIST must not contain empty salts' });
		}
		if (new Set(salts).size !== salts.length) {
			ctx.addIssue({ code: 'custom', message: 'ENCRYPTION_SALT_LIST must not repeat a salt' });
		}
		return salts;
	}),
	PRIVATE_GUILD_ID: snowflake('PRIVATE_GUILD_ID'),
	OWNER_IDS: optionalText.transform((value, ctx) => {
		if (value === undefined) return [];
		const ids = value
			.split(',')
			.map((id) => id.trim())
			.filter(Boolean);
		if (!ids.every((id) => SNOWFLAKE.test(id))) {
			ctx.addIssue({ code: 'custom', message: 'OWNER_IDS must be a comma-separated list of Discord user IDs' });
		}
		return ids;
	}),
	HOST: optionalText,
	PORT: integer('PORT', 9420, 0, 65535),
	API_TOKEN: optionalText,
	// GET /metrics (src/lib/operations/metrics.ts): its own bearer token; API_TOKEN when unset.
	METRICS_TOKEN: optionalText,
	TRUST_PROXY: optionalText.transform((value, ctx): TrustProxy => {
		if (value === undefined || OFF_VALUES.has(value.toLowerCase())) return false;
		if (/^\d+$/.test(value)) return { hops: Number(value) };
		const addresses = value.split(',').map((address) => address.trim());
		if (addresses.every((address) => isIP(address.split('/')[0] ?? '') !== 0)) return { addresses };
		ctx.addIssue({
			code: 'custom',
			message: 'TRUST_PROXY must be off, a number of proxy hops, or a comma-separated list of proxy IP addresses',
		});
		return z.NEVER;
	}),
	CORS_ORIGIN: optionalText,
	// The HTTP server's limits against slow and numerous clients (src/lib/api/server-limits.ts).
	HTTP_HEADERS_TIMEOUT_MS: integer('HTTP_HEADERS_TIMEOUT_MS', DEFAULT_HTTP_HEADERS_TIMEOUT_MS, 100, 120_000),
	HTTP_REQUEST_TIMEOUT_MS: integer('HTTP_REQUEST_TIMEOUT_MS', DEFAULT_HTTP_REQUEST_TIMEOUT_MS, 100, 120_000),
	HTTP_KEEP_ALIVE_TIMEOUT_MS: integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_KEEP_ALIVE_TIMEOUT_MS, 100, 120_000),
	HTTP_MAX_CONNECTIONS: integer('HTTP_MAX_CONNECTIONS', DEFAULT_HTTP_MAX_CONNECTIONS, 1, 1_000_000),
	RATE_LIMIT_PER_MINUTE: integer('RATE_LIMIT_PER_MINUTE', 60, 1, 100_000_000),
	RATE_LIMIT_CHAT_PER_MINUTE: integer('RATE_LIMIT_CHAT_PER_MINUTE', 20, 1, 1_000_000),
	RATE_LIMIT_FEEDBACK_PER_MINUTE: integer('RATE_LIMIT_FEEDBACK_PER_MINUTE', 5, 1, 1_000_000),
	STATS_CACHE_MS: integer('STATS_CACHE_MS', 5_000, 0, 600_000),
	LOG_LEVEL: optionalText.pipe(
		z.enum(['debug', 'info', 'warn', 'error'], { message: 'LOG_LEVEL must be one of debug, info, warn, error' }).optional(),
	),
	// pretty: coloured lines for a terminal; json: one JSON object per line for a log collector (src/lib/core/logger.ts).
	LOG_FORMAT: optionalText.pipe(z.enum(['pretty', 'json'], { message: 'LOG_FORMAT must be pretty or json' }).optional()),
	LOG_CHANNEL_ID: snowflake('LOG_CHANNEL_ID'),
	WEBSITE_URL: url('WEBSITE_URL'),
	DOCS_URL: url('DOCS_URL'),
	SUPPORT_URL: url('SUPPORT_URL'),
	INVITE_URL: url('INVITE_URL'),
	SOURCE_URL: url('SOURCE_URL'),
	SERVICE_STATUS_API_KEY: optionalText,
	STATUS_API_URL: url('STATUS_API_URL'),
	STATUS_HEARTBEAT_INTERVAL_MS: integer('STATUS_HEARTBEAT_INTERVAL_MS', 300_000, 100, 86_400_000),
	SERVICE_BOT_API_URL: url('SERVICE_BOT_API_URL'),
	GITHUB_TOKEN: optionalText,
	GITHUB_API_URL: url('GITHUB_API_URL'),
	GITHUB_REPO: optionalText.refine((value) => value === undefined || /^[\w.-]+\/[\w.-]+$/.test(value), {
		message: 'GITHUB_REPO must look like owner/repo',
	}),
	PATCHNOTES_PATH: optionalText,
	INTEGRATION_TOKEN: optionalText,
	INTEGRATION_BASE_URL: url('INTEGRATION_BASE_URL'),
	DISCORD_API_URL: url('DISCORD_API_URL'),
	// A fleet's shared rate limits and cooldowns (src/lib/core/shared-store.ts): Valkey or Redis; unset keeps them in memory.
	REDIS_URL: optionalText.refine((value) => value === undefined || /^rediss?:\/\/.+/.test(value), {
		message: 'REDIS_URL must be a redis:// or rediss:// URL',
	}),
	REDIS_KEY_PREFIX: optionalText,
	// A fleet of instances on one database (src/lib/fleet): the fleet's shard total and this instance's shards.
	SHARD_COUNT: optionalText.transform((value, ctx) => {
		const parsed = parseShardCount(value);
		if (typeof parsed === 'string' && parsed !== 'auto') {
			ctx.addIssue({ code: 'custom', message: parsed });
			return z.NEVER;
		}
		return { value: parsed as number | 'auto', set: value !== undefined };
	}),
	SHARD_IDS: optionalText.transform((value, ctx) => {
		const parsed = parseShardIds(value);
		if (typeof parsed === 'string') {
			ctx.addIssue({ code: 'custom', message: parsed });
			return z.NEVER;
		}
		return parsed;
	}),
	FLEET_HEARTBEAT_MS: integer('FLEET_HEARTBEAT_MS', 10_000, 100, 20_000),
	SERVICE_MIGRATE_ONLY: flag,
	SERVICE_FORCE_DEPLOY: flag,
	// Lets NODE_ENV=production start without ENCRYPTION_KEY or DATABASE_URL (productionRefusals).
	HAVEN_ALLOW_INSECURE: flag,
	HAVEN_VERSION: optionalText,
	// Retention (src/lib/privacy/retention.ts): how long personal data is kept, and how often the purge job runs.
	MEMORY_TTL_HOURS: integer('MEMORY_TTL_HOURS', 24, 1, 720),
	CRISIS_DETAILS_RETENTION_DAYS: integer('CRISIS_DETAILS_RETENTION_DAYS', 30, 1, 3650),
	CHECKIN_RETENTION_DAYS: integer('CHECKIN_RETENTION_DAYS', 365, 1, 3650),
	GHOST_LETTER_RETENTION_DAYS: integer('GHOST_LETTER_RETENTION_DAYS', 90, 1, 3650),
	CONVERSATION_USER_RETENTION_DAYS: integer('CONVERSATION_USER_RETENTION_DAYS', 30, 1, 3650),
	REJECTED_FEEDBACK_RETENTION_DAYS: integer('REJECTED_FEEDBACK_RETENTION_DAYS', 90, 1, 3650),
	GUILD_PURGE_GRACE_DAYS: integer('GUILD_PURGE_GRACE_DAYS', 7, 0, 365),
	PURGE_INTERVAL_MS: integer('PURGE_INTERVAL_MS', 3_600_000, 0, 604_800_000),
});

const schema = fields.superRefine((env, ctx) => {
	for (const message of shardSettingProblems(env.SHARD_COUNT.value, env.SHARD_IDS, env.SHARD_COUNT.set)) ctx.addIssue({ code: 'custom', message });
	// A short bearer token can be guessed; production refuses to start with one (other modes warn: configWarnings).
	if (env.NODE_ENV !== 'production') return;
	for (const name of ['API_TOKEN', 'METRICS_TOKEN'] as const) {
		const value = env[name];
		if (value !== undefined && value.length < MIN_TOKEN_LENGTH) {
			ctx.addIssue({
				code: 'custom',
				message: `${name} must be at least ${MIN_TOKEN_LENGTH} characters in production (openssl rand -hex 32)`,
			});
		}
	}
});

function isHttpUrl(value: string): boolean {
	try {
		const { protocol } = new URL(value);
		return protocol === 'http:' || protocol === 'https:';
	} catch {
		return false;
	}
}

const trimSlash = (value: string) => value.replace(/\/+$/, '');

function repoFromSourceUrl(sourceUrl: string): string | undefined {
	const match = /^https?:\/\/github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(sourceUrl);
	return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * A key given as 32 characters of text rather than hex or base64 is likely a passphrase: far fewer than 256 bits of
 * chance (same shapes as parseEncryptionKey accepts).
 */
function isPassphraseKey(raw: string | undefined): boolean {
	const value = raw?.trim();
	if (!value || /^[0-9a-fA-F]{64}$/.test(value)) return false;
	return !(/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32);
}

function build(env: z.output<typeof schema>, raw: Record<string, string | undefined> = {}) {
	const websiteUrl = trimSlash(env.WEBSITE_URL ?? DEFAULT_WEBSITE_URL);
	const sourceUrl = trimSlash(env.SOURCE_URL ?? DEFAULT_SOURCE_URL);
	const discordEnabled = Boolean(env.TOKEN && env.CLIENT_ID);
	return {
		production: env.NODE_ENV === 'production',
		/** HAVEN_ALLOW_INSECURE: production starts even without ENCRYPTION_KEY or DATABASE_URL. */
		allowInsecure: env.HAVEN_ALLOW_INSECURE,
		discord: {
			enabled: discordEnabled,
			token: env.TOKEN,
			clientId: env.CLIENT_ID,
			apiUrl: trimSlash(env.DISCORD_API_URL ?? DEFAULT_DISCORD_API_URL),
			privateGuildId: env.PRIVATE_GUILD_ID,
			ownerIds: env.OWNER_IDS,
			logChannelId: env.LOG_CHANNEL_ID,
			forceDeploy: env.SERVICE_FORCE_DEPLOY,
		},
		database: {
			url: env.DATABASE_URL,
			dataDir: resolve(env.DATA_DIR ?? 'data'),
			migrateOnly: env.SERVICE_MIGRATE_ONLY,
		},
		encryption: {
			key: env.ENCRYPTION_KEY,
			salts: env.ENCRYPTION_SALT_LIST,
			/** The key was given as a 32-character string rather than hex or base64 (warned about). */
			passphrase: env.ENCRYPTION_KEY !== undefined && isPassphraseKey(raw.ENCRYPTION_KEY),
		},
		openai: {
			apiKey: env.OPENAI_API_KEY,
			baseURL: env.OPENAI_BASE_URL,
			model: env.OPENAI_MODEL ?? DEFAULT_OPENAI_MODEL,
			timeoutMs: env.OPENAI_TIMEOUT_MS,
		},
		api: {
			host: env.HOST,
			port: env.PORT,
			token: env.API_TOKEN,
			/** Bearer token of GET /metrics; falls back to `token` (API_TOKEN). */
			metricsToken: env.METRICS_TOKEN,
			trustProxy: env.TRUST_PROXY,
			corsOrigin: env.CORS_ORIGIN ?? websiteUrl,
			rateLimits: {
				perMinute: env.RATE_LIMIT_PER_MINUTE,
				chatPerMinute: env.RATE_LIMIT_CHAT_PER_MINUTE,
				feedbackPerMinute: env.RATE_LIMIT_FEEDBACK_PER_MINUTE,
			},
			statsCacheMs: env.STATS_CACHE_MS,
			/** Node's HTTP server limits (src/lib/api/server-limits.ts); headers never get longer than the whole request. */
			http: {
				headersTimeoutMs: Math.min(env.HTTP_HEADERS_TIMEOUT_MS, env.HTTP_REQUEST_TIMEOUT_MS),
				requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
				keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
				maxConnections: env.HTTP_MAX_CONNECTIONS,
			},
		},
		logLevel: env.LOG_LEVEL ?? 'info',
		logFormat: env.LOG_FORMAT ?? 'pretty',
		urls: {
			website: websiteUrl,
			docs: env.DOCS_URL ?? `${websiteUrl}/docs`,
			support: env.SUPPORT_URL ?? `${websiteUrl}/support`,
			invite: env.INVITE_URL ?? `${websiteUrl}/invite`,
			source: sourceUrl,
		},
		status: {
			apiKey: env.SERVICE_STATUS_API_KEY,
			url: env.STATUS_API_URL ?? `${websiteUrl}/api/status`,
			intervalMs: env.STATUS_HEARTBEAT_INTERVAL_MS,
			botApiUrl: env.SERVICE_BOT_API_URL,
		},
		github: {
			token: env.GITHUB_TOKEN,
			repo: env.GITHUB_REPO ?? repoFromSourceUrl(sourceUrl),
			apiUrl: trimSlash(env.GITHUB_API_URL ?? DEFAULT_GITHUB_API_URL),
		},
		/** Shards (src/lib/fleet): the fleet's total (`auto`: Discord's recommendation), this instance's (undefined: all). */
		fleet: { shardCount: env.SHARD_COUNT.value, shardIds: env.SHARD_IDS, heartbeatMs: env.FLEET_HEARTBEAT_MS },
		patchNotesPath: env.PATCHNOTES_PATH,
		/** REDIS_URL and the prefix of every key Haven writes there (REDIS_KEY_PREFIX, default `haven:`). */
		redis: { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX ?? 'haven:' },
		integration: { token: env.INTEGRATION_TOKEN, baseUrl: env.INTEGRATION_BASE_URL },
		version: env.HAVEN_VERSION,
		retention: {
			memoryTtlHours: env.MEMORY_TTL_HOURS,
			crisisDetailsDays: env.CRISIS_DETAILS_RETENTION_DAYS,
			checkInDays: env.CHECKIN_RETENTION_DAYS,
			ghostLetterDays: env.GHOST_LETTER_RETENTION_DAYS,
			conversationUserDays: env.CONVERSATION_USER_RETENTION_DAYS,
			rejectedFeedbackDays: env.REJECTED_FEEDBACK_RETENTION_DAYS,
			guildGraceDays: env.GUILD_PURGE_GRACE_DAYS,
			/** 0: no scheduled purge (run `haven purge` from cron instead). */
			purgeIntervalMs: env.PURGE_INTERVAL_MS,
		},
	};
}

export type Config = ReturnType<typeof build>;

/** Reads `.env` (when present) under the process environment, which wins. Never echoes a value in errors. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, envFile = '.env'): Record<string, string | undefined> {
	const fromFile = existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {};
	return { ...fromFile, ...env };
}

export function parseConfig(env: Record<string, string | undefined>): Config {
	const result = schema.safeParse(env);
	if (!result.success) {
		throw new ConfigError(result.error.issues.map((issue) => issue.message));
	}
	return build(result.data, env);
}

export function loadConfig(): Config {
	return parseConfig(readEnvironment());
}

/**
 * What `haven serve` refuses in production (NODE_ENV=production): running without ENCRYPTION_KEY (people's words in the
 * clear) or without DATABASE_URL (the embedded PostgreSQL is for trying Haven and development: no backups, no
 * failover). Empty outside production, and when HAVEN_ALLOW_INSECURE is set.
 */
export function productionRefusals(config: Config): string[] {
	if (!config.production || config.allowInsecure) return [];
	const problems: string[] = [];
	if (!config.encryption.key) {
		problems.push('ENCRYPTION_KEY is not set: set it to 32 random bytes (openssl rand -hex 32) so sensitive fields are encrypted');
	}
	if (!config.database.url) {
		problems.push(
			'DATABASE_URL is not set: set it to your PostgreSQL (postgresql://user:password@host:5432/haven?sslmode=require); the embedded PostgreSQL is for trying Haven and development',
		);
	}
	if (problems.length)
		problems.push(
			`NODE_ENV=production does not start without ${problems.length > 1 ? 'them' : 'it'}; to start anyway (not recommended), set HAVEN_ALLOW_INSECURE=1`,
		);
	return problems;
}

/** Startup notes an operator should see: what runs in a reduced mode and why. */
export function configWarnings(config: Config): string[] {
	const warnings: string[] = [];
	if (!config.encryption.key) {
		warnings.push(
			config.production
				? 'ENCRYPTION_KEY is not set in production: sensitive fields are stored in plain text. Set a 32-byte key and run `haven rotate-salt`.'
				: 'ENCRYPTION_KEY is not set: sensitive fields are stored in plain text (development only).',
		);
	}
	if (config.encryption.passphrase) {
		warnings.push(
			'ENCRYPTION_KEY looks like a 32-character passphrase, not 32 random bytes: use `openssl rand -hex 32` (then `haven rotate-salt` with the old key kept readable).',
		);
	}
	for (const [name, value] of [
		['API_TOKEN', config.api.token],
		['METRICS_TOKEN', config.api.metricsToken],
	] as const) {
		if (value !== undefined && value.length < MIN_TOKEN_LENGTH) {
			warnings.push(`${name} is shorter than ${MIN_TOKEN_LENGTH} characters: use a random one (openssl rand -hex 32). Production refuses it.`);
		}
	}
	if (!config.discord.enabled) warnings.push('TOKEN or CLIENT_ID is not set: running the HTTP API only, without the Discord bot.');
	if (!config.openai.apiKey) warnings.push('OPENAI_API_KEY is not set: AI features use fixed responses and POST /v1/chat answers 503.');
	if (!config.api.token) warnings.push('API_TOKEN is not set: POST /v1/chat and POST /v1/feedback refuse every request (503).');
	return warnings;
}
