/**
 * A fleet of 1, 2 and 3 `haven serve` instances on the fake Discord (test/support/fake-discord.ts), on loopback:
 *   node bench/fleet.ts      (DATABASE_URL = a PostgreSQL server to create a scratch database on; REDIS_URL = the
 *                             shared store, optional)
 *
 * The same bot each time: BENCH_SHARDS shards (default 6) over BENCH_GUILDS servers (default 600), split evenly
 * between the instances (SHARD_COUNT and SHARD_IDS). For BENCH_SECONDS (default 10, after a warm-up), BENCH_CONCURRENCY
 * /ping interactions (default 16) are kept in flight, each in a random server (so on every shard) from a new user, and
 * each counted when the fake receives its callback. Printed per fleet size: interactions per second and its ratio to
 * one instance, and resident memory (process_resident_memory_bytes from each instance's /metrics, after the run) per
 * instance and per shard, with the per-shard ratio to one instance. All processes share this machine's cores, so the
 * throughput ratios say how the fleet shares the work, not how it scales across machines.
 */
import { chmodSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { snowflakeAt, startFakeDiscord, type FakeDiscord } from '../test/support/fake-discord.ts';
import { dropDatabase, testEnv } from '../test/support/env.ts';
import { killChildren, scrape, serveHaven, total, type HavenProcess } from '../test/reliability/support.ts';

const SHARDS = Number(process.env.BENCH_SHARDS ?? 6);
const GUILDS = Number(process.env.BENCH_GUILDS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARMUP_MS = 2_000;
const TOKEN = `bench-fleet-${randomBytes(16).toString('hex')}`;

interface Row {
	instances: number;
	perSecond: number;
	rssMb: number[];
}

/** SHARD_IDS for instance `index` of `count`: contiguous, as even as can be. */
function shardIds(index: number, count: number): string {
	const from = Math.floor((index * SHARDS) / count);
	const to = Math.floor(((index + 1) * SHARDS) / count) - 1;
	return from === to ? String(from) : `${from}-${to}`;
}

let nextUser = 1;

async function load(fake: FakeDiscord, durationMs: number): Promise<number> {
	const guilds = fake.guilds.ids;
	let done = 0;
	const until = performance.now() + durationMs;
	const worker = async () => {
		while (performance.now() < until) {
			const guildId = guilds[Math.floor(Math.random() * guilds.length)]!;
			const callback = await fake
				.sendSlashCommand({ name: 'ping', guildId, userId: snowflakeAt(1_520_000_000_000, nextUser++) })
				.callback(10_000);
			if (callback.status !== 200 && callback.status !== 204) throw new Error(`callback answered ${callback.status}`);
			done++;
		}
	};
	const started = performance.now();
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
	return done / ((performance.now() - started) / 1000);
}

async function fleetOf(count: number): Promise<Row> {
	const fake = await startFakeDiscord({ guilds: GUILDS, shardCount: SHARDS });
	const env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		API_TOKEN: TOKEN,
		REDIS_URL: process.env.REDIS_URL,
		REDIS_KEY_PREFIX: `haven-bench-${randomBytes(4).toString('hex')}:`,
		SHARD_COUNT: String(SHARDS),
		HAVEN_VERSION: 'bench',
		SOURCE_URL: 'https://example.invalid/not-github', // no repository: the release check makes no request
		PURGE_INTERVAL_MS: '0',
		LOG_LEVEL: 'info', // serveHaven reads the port from the startup line
	});
	if (env.DATA_DIR) chmodSync(env.DATA_DIR, 0o711);
	const instances: (HavenProcess & { url: string })[] = [];
	try {
		// One at a time: the first creates the database; each claims its own shards.
		for (let i = 0; i < count; i++) instances.push(await serveHaven({ ...env, SHARD_IDS: shardIds(i, count) }));
		await Promise.all(Array.from({ length: SHARDS }, (_, id) => fake.waitForShard(id, 60_000)));
		await load(fake, WARMUP_MS);
		fake.clearRequests();
		const perSecond = await load(fake, SECONDS * 1000);
		const rssMb = await Promise.all(
			instances.map(async (haven) => total(await scrape(haven.url, TOKEN), 'process_resident_memory_bytes') / 1024 / 1024),
		);
		return { instances: count, perSecond, rssMb };
	} finally {
		for (const haven of instances) haven.child.kill('SIGTERM');
		await Promise.all(instances.map((haven) => haven.exited));
		await fake.close();
		await dropDatabase(env.DATABASE_URL);
		if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
	}
}

console.log(`Node ${process.version}; ${SHARDS} shards, ${GUILDS} servers, ${CONCURRENCY} /ping in flight for ${SECONDS} s per fleet size`);
const rows: Row[] = [];
try {
	for (const count of [1, 2, 3]) rows.push(await fleetOf(count));
} finally {
	killChildren();
}
const [one] = rows;
const perShard = (row: Row) => row.rssMb.reduce((a, b) => a + b, 0) / SHARDS;
console.log(
	`\n  ${'instances'.padEnd(10)} ${'interactions/s'.padStart(15)} ${'vs 1'.padStart(6)}   ${'RSS per instance (MB)'.padEnd(24)} ${'RSS per shard'.padStart(14)} ${'vs 1'.padStart(6)}`,
);
for (const row of rows) {
	console.log(
		`  ${String(row.instances).padEnd(10)} ${row.perSecond.toFixed(0).padStart(15)} ${(row.perSecond / one!.perSecond).toFixed(2).padStart(6)}   ` +
			`${row.rssMb
				.map((mb) => mb.toFixed(0))
				.join(' / ')
				.padEnd(24)} ${`${perShard(row).toFixed(1)} MB`.padStart(14)} ${(perShard(row) / perShard(one!)).toFixed(2).padStart(6)}`,
	);
}
