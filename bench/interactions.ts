/**
 * Interaction round trips and memory of the bot, on the fake Discord (test/support/fake-discord.ts), on loopback:
 *   node bench/interactions.ts        (DATABASE_URL = a PostgreSQL server to create a scratch database on; else embedded)
 *
 * 1. Round trip INTERACTION_CREATE (gateway) -> interaction callback (REST) received by the fake, one at a time,
 *    BENCH_N times (default 1000, after 50 warm-up): a bare discord.js client that answers at once (the floor: gateway,
 *    discord.js and REST), then Haven's /ping and /stats (reads the stat counters from PostgreSQL on every use:
 *    STATS_CACHE_MS=0). A new user each time, so per-user cooldowns never answer instead. p50, p99, mean, and the
 *    ratio of p50 to the bare client's.
 * 2. Resident memory with 2,500 guilds of 50 members on 2 shards (BENCH_GUILDS, BENCH_MEMBERS): Haven (`haven serve`
 *    code, bounded caches) and a bare discord.js client with default caches, each in its own process, measured
 *    after ready and a full GC.
 */
import { spawn } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Client, Events, GatewayIntentBits, MessageFlags, Partials } from 'discord.js';
import { parseConfig } from '../src/lib/core/config.ts';
import { snowflakeAt, startFakeDiscord, type FakeDiscord } from '../test/support/fake-discord.ts';
import { dropDatabase, testEnv } from '../test/support/env.ts';

const N = Number(process.env.BENCH_N ?? 1000);
const WARMUP = 50;
const GUILDS = Number(process.env.BENCH_GUILDS ?? 2500);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 50);
const ROOT = new URL('../', import.meta.url);
const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent];

interface Memory {
	rssMb: number;
	heapUsedMb: number;
	guilds: number;
	cachedMembers: number;
	cachedUsers: number;
	readyMs: number;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

function benchEnv(fake: FakeDiscord, extra: Record<string, string> = {}): Record<string, string | undefined> {
	const env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		LOG_LEVEL: 'error',
		HAVEN_VERSION: 'bench',
		GITHUB_REPO: undefined,
		SOURCE_URL: 'https://example.invalid/not-github', // no repository: the release check makes no request
		STATS_CACHE_MS: '0',
		...extra,
	});
	if (env.DATA_DIR) chmodSync(env.DATA_DIR, 0o711); // the embedded server runs as `postgres` when we are root
	return env;
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Row {
	label: string;
	p50: number;
	p99: number;
	mean: number;
}

let nextUser = 1;

/** One interaction at a time: dispatch, then wait for the fake to record its callback. */
async function roundTrips(fake: FakeDiscord, label: string, name: string): Promise<Row> {
	const times: number[] = [];
	for (let i = 0; i < WARMUP + N; i++) {
		if (i % 100 === 0) fake.clearRequests();
		const started = performance.now();
		const ix = fake.sendSlashCommand({ name, userId: snowflakeAt(1_500_000_000_000, nextUser++) });
		const callback = await ix.callback(5_000);
		if (callback.status !== 200 && callback.status !== 204) throw new Error(`${label}: callback answered ${callback.status}`);
		if (i >= WARMUP) times.push(performance.now() - started);
	}
	times.sort((a, b) => a - b);
	return { label, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

async function latency(): Promise<void> {
	const fake = await startFakeDiscord({ guilds: 1 });
	const rows: Row[] = [];
	const bare = new Client({ intents: INTENTS, partials: [Partials.Channel], rest: { api: fake.restUrl } });
	bare.on(Events.InteractionCreate, (interaction) => {
		if (interaction.isChatInputCommand()) void interaction.reply({ content: 'pong', flags: MessageFlags.Ephemeral });
	});
	const ready = once(bare, Events.ClientReady);
	await bare.login(fake.token);
	await ready;
	rows.push(await roundTrips(fake, 'bare discord.js client, immediate reply', 'ping'));
	await bare.destroy();

	const env = benchEnv(fake);
	const { startHaven } = await import('../src/index.ts');
	const haven = await startHaven(parseConfig(env));
	try {
		if (!haven.client!.isReady()) await once(haven.client!, Events.ClientReady);
		rows.push(await roundTrips(fake, 'Haven /ping', 'ping'));
		rows.push(await roundTrips(fake, 'Haven /stats (PostgreSQL read)', 'stats'));
	} finally {
		await haven.stop();
		await fake.close();
		await dropDatabase(env.DATABASE_URL);
		if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
	}
	const floor = rows[0]!;
	console.log(
		`\nInteraction round trip, INTERACTION_CREATE -> callback received (${N} sequential, after ${WARMUP} warm-up; ${process.env.DATABASE_URL ? 'PostgreSQL from DATABASE_URL' : 'embedded PostgreSQL'}):`,
	);
	console.log(`  ${'what'.padEnd(42)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'mean'.padStart(8)}   p50 vs bare`);
	for (const row of rows) {
		const f = (ms: number) => `${ms.toFixed(2)} ms`.padStart(8);
		console.log(`  ${row.label.padEnd(42)} ${f(row.p50)} ${f(row.p99)} ${f(row.mean)}   ${(row.p50 / floor.p50).toFixed(2)}x`);
	}
}

// -------------------------------------------------------------------------------------------------------------------
// Memory: each client in its own process (`--child bare|haven`), the fake Discord in this one.

async function child(kind: string): Promise<void> {
	const settings = JSON.parse(process.env.BENCH_CHILD ?? '{}') as { env: Record<string, string>; restUrl: string; token: string };
	const started = performance.now();
	let client: Client;
	let stop: () => Promise<void>;
	if (kind === 'bare') {
		client = new Client({ intents: INTENTS, partials: [Partials.Channel], rest: { api: settings.restUrl }, shards: 'auto' });
		const ready = once(client, Events.ClientReady);
		await client.login(settings.token);
		await ready;
		stop = () => client.destroy();
	} else {
		const { startHaven } = await import('../src/index.ts');
		const { container } = await import('@sapphire/framework');
		const haven = await startHaven(parseConfig(settings.env));
		client = haven.client!;
		if (!client.isReady()) await once(client, Events.ClientReady);
		await container.bot!.readied;
		stop = () => haven.stop();
	}
	const readyMs = performance.now() - started;
	await new Promise((resolve) => setTimeout(resolve, 2_000));
	for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
	const memory = process.memoryUsage();
	const result: Memory = {
		rssMb: mb(memory.rss),
		heapUsedMb: mb(memory.heapUsed),
		guilds: client.guilds.cache.size,
		cachedMembers: client.guilds.cache.reduce((sum, guild) => sum + guild.members.cache.size, 0),
		cachedUsers: client.users.cache.size,
		readyMs: Math.round(readyMs),
	};
	console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
	await stop();
}

async function measure(kind: 'bare' | 'haven', fake: FakeDiscord, env: Record<string, string | undefined>): Promise<Memory> {
	const proc = spawn(process.execPath, ['--expose-gc', 'bench/interactions.ts', '--child', kind], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { PATH: process.env.PATH, BENCH_CHILD: JSON.stringify({ env, restUrl: fake.restUrl, token: fake.token }) },
	});
	let output = '';
	proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const [code] = (await once(proc, 'exit')) as [number];
	const line = output.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
	if (code !== 0 || !line) throw new Error(`${kind} child exited with ${code}: ${output}`);
	return JSON.parse(line.slice('BENCH_RESULT '.length)) as Memory;
}

async function memory(): Promise<void> {
	const fake = await startFakeDiscord({ guilds: GUILDS, membersPerGuild: MEMBERS, shardCount: 2 });
	const env = benchEnv(fake);
	try {
		const bare = await measure('bare', fake, env);
		const haven = await measure('haven', fake, env);
		console.log(`\nResident memory with ${GUILDS} guilds x ${MEMBERS} members on 2 shards (after ready and a full GC):`);
		for (const [label, m] of [
			['bare discord.js client, default caches', bare],
			['Haven (bounded caches, API, database pool)', haven],
		] as const) {
			console.log(
				`  ${label.padEnd(44)} RSS ${String(m.rssMb).padStart(6)} MB   heap ${String(m.heapUsedMb).padStart(6)} MB   ` +
					`${m.guilds} guilds, ${m.cachedMembers} members and ${m.cachedUsers} users cached, ready in ${(m.readyMs / 1000).toFixed(1)} s`,
			);
		}
		console.log(`  RSS ratio Haven / bare: ${(haven.rssMb / bare.rssMb).toFixed(2)}`);
	} finally {
		await fake.close();
		await dropDatabase(env.DATABASE_URL);
		if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
	}
}

const childIndex = process.argv.indexOf('--child');
if (childIndex !== -1) {
	await child(process.argv[childIndex + 1] ?? 'bare');
} else {
	console.log(`Node ${process.version}`);
	await latency();
	await memory();
}
