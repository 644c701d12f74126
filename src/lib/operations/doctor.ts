import OpenAI from 'openai';
import { migrationsList } from '../../../migrations/index.ts';
import { ConfigError, configWarnings, parseConfig, productionRefusals, type Config } from '../core/config.ts';
import { FieldCipher } from '../db/field-cipher.ts';
import { encryptedColumns, openDatabase, type Database } from '../db/index.ts';

/**
 * `haven doctor`: is this deployment ready? Each check gives one verdict:
 * - ok: works;
 * - warn: works, but something is off or reduced (said how);
 * - fail: something a production deploy needs is missing or failing;
 * - skipped: not configured (and not needed), or not checkable because an earlier check failed.
 * The checks only read: nothing is written to the database, Discord, the AI provider or the status endpoint.
 * Details never contain a secret or a provider's error message (which may echo one); status codes and error codes only.
 */

export type Verdict = 'ok' | 'warn' | 'fail' | 'skipped';
export type CheckName = 'configuration' | 'database' | 'migrations' | 'encryption' | 'discord' | 'ai' | 'status';

export interface CheckResult {
	name: CheckName;
	verdict: Verdict;
	detail: string;
}

export interface DoctorReport {
	production: boolean;
	checks: CheckResult[];
	/** True when no check failed. */
	ok: boolean;
}

export interface DoctorOptions {
	/** Judge as NODE_ENV=production would, whatever NODE_ENV says. */
	production?: boolean;
	/** Deadline of each network check. */
	timeoutMs?: number;
}

const result = (name: CheckName, verdict: Verdict, detail: string): CheckResult => ({ name, verdict, detail });

export async function runDoctor(env: Record<string, string | undefined>, options: DoctorOptions = {}): Promise<DoctorReport> {
	const timeoutMs = options.timeoutMs ?? 10_000;
	const checks: CheckResult[] = [];
	const skipRest = (reason: string) => {
		for (const name of ['database', 'migrations', 'encryption', 'discord', 'ai', 'status'] as const) {
			if (!checks.some((check) => check.name === name)) checks.push(result(name, 'skipped', reason));
		}
	};

	let config: Config;
	try {
		config = parseConfig(options.production ? { ...env, NODE_ENV: 'production' } : env);
	} catch (error) {
		if (!(error instanceof ConfigError)) throw error;
		checks.push(result('configuration', 'fail', `invalid: ${error.problems.join('; ')}`));
		skipRest('the configuration is invalid');
		return finish(Boolean(options.production) || env.NODE_ENV?.trim() === 'production', checks);
	}
	checks.push(configurationCheck(config));

	let db: Database | undefined;
	try {
		db = await openDatabase(config, { info: () => undefined, warn: () => undefined });
	} catch (error) {
		const where = config.database.url ? 'DATABASE_URL' : `the embedded PostgreSQL in ${config.database.dataDir}`;
		checks.push(result('database', 'fail', `cannot reach ${where}: ${firstLine(error)}`));
	}
	try {
		const reached = db ? await databaseCheck(db, config) : undefined;
		if (reached) checks.push(reached);
		if (db && reached?.verdict !== 'fail') {
			const migrations = await migrationsCheck(db);
			checks.push(migrations);
			checks.push(
				migrations.verdict === 'fail' ? result('encryption', 'skipped', 'the schema is not migrated') : await encryptionCheck(db, config),
			);
		} else {
			checks.push(result('migrations', 'skipped', 'the database is unreachable'));
			checks.push(result('encryption', 'skipped', 'the database is unreachable'));
		}
	} finally {
		await db?.close();
	}
	const [discord, ai, status] = await Promise.all([discordCheck(config, timeoutMs), aiCheck(config, timeoutMs), statusCheck(config, timeoutMs)]);
	checks.push(discord, ai, status);
	return finish(config.production, checks);
}

function finish(production: boolean, checks: CheckResult[]): DoctorReport {
	return { production, checks, ok: checks.every((check) => check.verdict !== 'fail') };
}

function firstLine(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.split('\n', 1)[0] || (error instanceof Error ? error.name : 'unknown error');
}

function configurationCheck(config: Config): CheckResult {
	const refusals = productionRefusals(config).slice(0, -1);
	if (refusals.length) return result('configuration', 'fail', `production needs: ${refusals.join('; ')}`);
	const notes: string[] = [];
	if (config.production && config.allowInsecure) {
		if (!config.encryption.key) notes.push('ENCRYPTION_KEY is not set (allowed by HAVEN_ALLOW_INSECURE)');
		if (!config.database.url) notes.push('DATABASE_URL is not set: the embedded PostgreSQL (allowed by HAVEN_ALLOW_INSECURE)');
	} else if (!config.production) {
		if (!config.encryption.key) notes.push('ENCRYPTION_KEY is not set (production refuses to start without it)');
		if (!config.database.url) notes.push('DATABASE_URL is not set: the embedded PostgreSQL (production refuses to start without it)');
	}
	// The service's own startup notes, but for the key (said above) and the optional services (their own checks).
	for (const warning of configWarnings(config)) {
		if (/^(ENCRYPTION_KEY is not set|TOKEN or CLIENT_ID|OPENAI_API_KEY)/.test(warning)) continue;
		notes.push(warning.replace(/\.$/, ''));
	}
	const mode = config.production ? 'production' : 'development (NODE_ENV is not production)';
	return notes.length ? result('configuration', 'warn', `${mode}; ${notes.join('; ')}`) : result('configuration', 'ok', mode);
}

async function databaseCheck(db: Database, config: Config): Promise<CheckResult> {
	let row: { server_version: string } | undefined;
	try {
		[row] = await db.orm.em.getConnection().execute<{ server_version: string }[]>('show server_version');
	} catch (error) {
		return result('database', 'fail', `cannot reach ${config.database.url ? 'DATABASE_URL' : 'the embedded PostgreSQL'}: ${firstLine(error)}`);
	}
	const version = `PostgreSQL ${row?.server_version ?? 'unknown'}`;
	if (!config.database.url) return result('database', 'warn', `${db.describe}, ${version} (for trying Haven and development)`);
	return result('database', 'ok', `${db.describe}, ${version}`);
}

async function migrationsCheck(db: Database): Promise<CheckResult> {
	const connection = db.orm.em.getConnection();
	const [{ present }] = await connection.execute<{ present: boolean }[]>(`select to_regclass('haven_migrations') is not null as present`);
	const applied = present ? (await connection.execute<{ name: string }[]>('select name from haven_migrations')).map((row) => row.name) : [];
	const known = migrationsList.map((migration) => migration.name);
	const pending = known.filter((name) => !applied.includes(name));
	const unknown = applied.filter((name) => !known.includes(name));
	if (pending.length) {
		return result('migrations', 'fail', `${pending.length} of ${known.length} pending (${pending.join(', ')}): run \`haven migrate\``);
	}
	if (unknown.length) {
		return result(
			'migrations',
			'warn',
			`up to date, and ${unknown.length} applied migration(s) this version does not know (a newer Haven ran here?)`,
		);
	}
	return result('migrations', 'ok', `up to date (${known.length} applied)`);
}

async function encryptionCheck(db: Database, config: Config): Promise<CheckResult> {
	const connection = db.orm.em.getConnection();
	const cipher = new FieldCipher(config.encryption.key, config.encryption.salts);
	let sampled = 0;
	let clear = 0;
	for (const { table, column, id, owner } of encryptedColumns(db.orm)) {
		const [sample] = await connection.execute<{ id: number; owner: string | null; value: string }[]>(
			`select "${id}" as id, ${owner ? `"${owner}"` : 'null'} as owner, "${column}" as value from "${table}"
			 where "${column}" is not null and "${column}" not like 'hv0:%' order by "${id}" desc limit 1`,
		);
		if (sample) {
			try {
				cipher.open(sample.value, { table, column, id: sample.id, owner: sample.owner });
				sampled++;
			} catch (error) {
				return result(
					'encryption',
					'fail',
					`${table}.${column} row ${sample.id} does not decrypt with ENCRYPTION_KEY and ENCRYPTION_SALT_LIST (${firstLine(error).replace(/^Cannot decrypt [^:]+: /, '')})`,
				);
			}
		}
		if (config.encryption.key) {
			const [{ present }] = await connection.execute<{ present: boolean }[]>(
				`select exists (select 1 from "${table}" where "${column}" like 'hv0:%') as present`,
			);
			if (present) clear++;
		}
	}
	if (!config.encryption.key) {
		return result('encryption', 'warn', 'ENCRYPTION_KEY is not set: sensitive fields are stored in the clear');
	}
	const salts = `${config.encryption.salts.length} salt(s)`;
	if (clear) return result('encryption', 'warn', `${clear} column(s) hold values stored in the clear: run \`haven rotate-salt\` to encrypt them`);
	if (!sampled) return result('encryption', 'ok', `key set, ${salts}; no encrypted rows yet`);
	return result('encryption', 'ok', `a sample value of each of ${sampled} encrypted column(s) decrypts with the current key and ${salts}`);
}

async function discordCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
	const { token, clientId, apiUrl } = config.discord;
	if (!token) return result('discord', 'skipped', 'TOKEN is not set: the HTTP API runs without the Discord bot');
	try {
		const response = await fetch(`${apiUrl}/v10/users/@me`, {
			headers: { authorization: `Bot ${token}`, 'user-agent': 'haven-doctor' },
			signal: AbortSignal.timeout(timeoutMs),
			redirect: 'error',
		});
		if (response.status === 401)
			return result('discord', 'fail', `Discord rejects TOKEN (HTTP 401 from ${apiUrl}): reset the bot token in the developer portal`);
		if (!response.ok) return result('discord', 'fail', `GET /users/@me answered HTTP ${response.status} (${apiUrl})`);
		const me = (await response.json()) as { id?: string; username?: string };
		const who = `${me.username ?? 'unknown'} (${me.id ?? '?'})`;
		if (!clientId) return result('discord', 'warn', `token works: logged in as ${who}; CLIENT_ID is not set, so the bot does not start`);
		if (me.id !== clientId) return result('discord', 'warn', `token works: logged in as ${who}, but CLIENT_ID is ${clientId}`);
		return result('discord', 'ok', `token works: logged in as ${who}`);
	} catch (error) {
		return result('discord', 'fail', `cannot reach ${apiUrl}: ${networkReason(error, timeoutMs)}`);
	}
}

async function aiCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
	const { apiKey, baseURL, model } = config.openai;
	if (!apiKey) return result('ai', 'skipped', 'OPENAI_API_KEY is not set: AI features use fixed responses');
	const where = baseURL ?? 'OpenAI';
	const client = new OpenAI({ apiKey, baseURL: baseURL || undefined, timeout: timeoutMs, maxRetries: 0, logLevel: 'off' });
	try {
		// The cheapest call that proves the key and the model: one token.
		await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'ping' }], max_completion_tokens: 1 });
		return result('ai', 'ok', `${model} answers at ${where}`);
	} catch (error) {
		if (error instanceof OpenAI.APIError && error.status !== undefined) {
			const code = error.code ? `, ${error.code}` : '';
			if (error.status === 401 || error.status === 403)
				return result('ai', 'fail', `${where} rejects OPENAI_API_KEY (HTTP ${error.status}${code})`);
			if (error.status === 404) return result('ai', 'fail', `${where} does not know the model ${model} (HTTP 404${code}): check OPENAI_MODEL`);
			if (error.status === 429) return result('ai', 'warn', `${where} accepts the key but is rate limiting or out of quota (HTTP 429${code})`);
			return result('ai', 'fail', `${model} at ${where} answered HTTP ${error.status}${code}`);
		}
		return result('ai', 'fail', `cannot reach ${where}: ${networkReason(error, timeoutMs)}`);
	}
}

async function statusCheck(config: Config, timeoutMs: number): Promise<CheckResult> {
	const { apiKey, url } = config.status;
	if (!apiKey) return result('status', 'skipped', 'SERVICE_STATUS_API_KEY is not set: no status heartbeat');
	try {
		// A GET, not a heartbeat: doctor must not report a status. Any answer but a server error proves it is reachable.
		const response = await fetch(url, { headers: { 'user-agent': 'haven-doctor' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
		await response.body?.cancel().catch(() => undefined);
		if (response.status >= 500) return result('status', 'fail', `${url} answered HTTP ${response.status}`);
		return result('status', 'ok', `${url} is reachable (HTTP ${response.status} to a GET; the key is checked by the first heartbeat)`);
	} catch (error) {
		return result('status', 'fail', `cannot reach ${url}: ${networkReason(error, timeoutMs)}`);
	}
}

function networkReason(error: unknown, timeoutMs: number): string {
	if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'APIConnectionTimeoutError'))
		return `no answer within ${timeoutMs} ms`;
	let current: unknown = error;
	for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return 'network error';
}
