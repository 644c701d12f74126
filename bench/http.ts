/**
 * HTTP throughput of Haven next to a bare `node:http` server answering the same JSON, in one run:
 *   node bench/http.ts      (with DATABASE_URL: a scratch database on that server; without: the embedded PostgreSQL)
 * Haven (API-only, rate limits raised, default STATS_CACHE_MS) and two bare servers run as child processes on
 * loopback; autocannon drives them in turn from this process. The bare servers answer the same bodies: one with
 * only Content-Type/Length, one with exactly the headers Haven sends (CORS, security, RateLimit-*), since parsing
 * those costs the client as much as building them costs the server. /v1/stats is measured with ten rows and again
 * with a million rows in each counted table (and in guilds).
 * The machine may be shared and noisy: the servers compared are measured in interleaved rounds and each figure is the
 * median over the rounds. Besides requests/s and p99, each server's own CPU time per request is read from /proc
 * (Linux): it depends much less on what else runs on the machine, and on whether autocannon is the bottleneck. BENCH_ROUNDS (default 3) x BENCH_SECONDS (default 5) per figure, BENCH_CONNECTIONS
 * (default 32), BENCH_ROWS (default 1000000).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import autocannon from 'autocannon';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/lib/db/embedded.ts';
import { dropDatabase, freePort, freshDatabaseUrl } from '../test/support/env.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ROOT = new URL('../', import.meta.url);
const COUNTED = { users: 'users', conversations: 'conversations', mood_check_ins: 'moodCheckIns', crisis_events: 'crisisEvents' } as const;

/** The bare server: answers every path with the body (and headers) given for it, nothing else. */
const BARE = `
const http = require('node:http');
const answers = JSON.parse(process.env.ANSWERS);
http.createServer((req, res) => {
	const { body, headers } = answers[req.url] ?? answers['/healthz'];
	res.writeHead(200, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function waitFor(url: string, child: ChildProcess): Promise<void> {
	for (let i = 0; i < 600; i++) {
		if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}`);
		if (
			await fetch(url).then(
				(r) => r.ok,
				() => false,
			)
		)
			return;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`${url} did not come up`);
}

async function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill('SIGTERM');
	await exited;
}

/** What Haven answers on a path: body and headers, minus those every server sets per response. */
async function answerOf(url: string) {
	const response = await fetch(url);
	const headers = Object.fromEntries(
		[...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'content-type'].includes(name)),
	);
	return { body: await response.text(), headers };
}

function startBare(port: number, answers: Record<string, { body: string; headers: Record<string, string> }>): ChildProcess {
	return spawn(process.execPath, ['-e', BARE], { env: { PORT: String(port), ANSWERS: JSON.stringify(answers) }, stdio: 'inherit' });
}

interface Row {
	label: string;
	rps: number;
	p99: number;
	/** Server CPU time (user + system) per request, in microseconds; NaN where /proc is not available. */
	cpuUs: number;
}

/** CPU time a process has used so far, in ms (Linux /proc; 10 ms ticks). */
function cpuMs(pid: number): number {
	if (!existsSync(`/proc/${pid}/stat`)) return Number.NaN;
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Measures each target once per round, rounds interleaved; medians per target. */
async function compare(targets: [label: string, url: string, server: ChildProcess][]): Promise<Row[]> {
	const samples = targets.map(() => ({ rps: [] as number[], p99: [] as number[], cpuUs: [] as number[] }));
	for (const [, url] of targets) await autocannon({ url, connections: CONNECTIONS, duration: 2 }); // warm-up
	for (let round = 0; round < ROUNDS; round++) {
		for (const [index, [label, url, server]] of targets.entries()) {
			const cpuBefore = cpuMs(server.pid!);
			const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
			samples[index]!.cpuUs.push(((cpuMs(server.pid!) - cpuBefore) * 1000) / result.requests.total);
			if (result.errors || result.timeouts || result.non2xx)
				throw new Error(`${label}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
			samples[index]!.rps.push(result.requests.average);
			samples[index]!.p99.push(result.latency.p99);
		}
	}
	return targets.map(([label], index) => {
		const row = { label, rps: median(samples[index]!.rps), p99: median(samples[index]!.p99), cpuUs: median(samples[index]!.cpuUs) };
		const spread = samples[index]!.rps.map((rps) => rps.toFixed(0)).join(' / ');
		console.log(
			`  ${label.padEnd(46)} ${row.rps.toFixed(0).padStart(7)} req/s   p99 ${String(row.p99).padStart(3)} ms   server CPU ${row.cpuUs.toFixed(0).padStart(3)} µs/req   (rounds: ${spread})`,
		);
		return row;
	});
}

const ratio = (haven: Row, bare: Row) =>
	`${(haven.rps / bare.rps).toFixed(2)} req/s, ${(bare.cpuUs / haven.cpuUs).toFixed(2)} CPU  (${haven.label.replace(/\s+/g, ' ')} vs ${bare.label.replace(/\s+/g, ' ')})`;

let embedded: EmbeddedPostgres | undefined;
let dataDir: string | undefined;
let databaseUrl: string;
if (process.env.DATABASE_URL) {
	databaseUrl = freshDatabaseUrl()!;
} else {
	dataDir = mkdtempSync(join(tmpdir(), 'haven-bench-'));
	embedded = await startEmbeddedPostgres(dataDir, () => undefined);
	const { host, port, user, dbName } = embedded.connection;
	databaseUrl = `postgresql://${user}@${encodeURIComponent(host)}:${port}/${dbName}`;
}

const [havenPort, barePort, bareSamePort] = await Promise.all([freePort(), freePort(), freePort()]);
const children: ChildProcess[] = [];
const havenServer = spawn(process.execPath, ['src/cli/haven.ts', 'serve'], {
	cwd: ROOT,
	stdio: 'inherit',
	env: {
		PATH: process.env.PATH,
		DATABASE_URL: databaseUrl,
		HOST: '127.0.0.1',
		PORT: String(havenPort),
		LOG_LEVEL: 'error',
		ENCRYPTION_KEY: 'b'.repeat(64),
		RATE_LIMIT_PER_MINUTE: '100000000',
	},
});
children.push(havenServer);
const orm = await MikroORM.init({ clientUrl: databaseUrl, entities: [], discovery: { warnWhenNoEntities: false }, debug: false });
const sql = (query: string) => orm.em.getConnection().execute(query);

try {
	const havenUrl = `http://127.0.0.1:${havenPort}`;
	await waitFor(`${havenUrl}/healthz`, havenServer);
	await sql(`insert into users (id, created_at, updated_at) select (300000000000000000 + g)::text, now(), now() from generate_series(1, 10) g`);
	await sql(`insert into conversations (source, created_at) select 'bench', now() from generate_series(1, 10)`);
	const answers = { '/healthz': await answerOf(`${havenUrl}/healthz`), '/v1/stats': await answerOf(`${havenUrl}/v1/stats`) };
	const plain = Object.fromEntries(Object.entries(answers).map(([path, { body }]) => [path, { body, headers: {} }]));
	const bareServer = startBare(barePort, plain);
	const bareSame = startBare(bareSamePort, answers);
	children.push(bareServer, bareSame);
	const bareUrl = `http://127.0.0.1:${barePort}`;
	const sameUrl = `http://127.0.0.1:${bareSamePort}`;
	await Promise.all([waitFor(`${bareUrl}/healthz`, bareServer), waitFor(`${sameUrl}/healthz`, bareSame)]);

	console.log(
		`autocannon: ${CONNECTIONS} connections, median of ${ROUNDS} interleaved ${SECONDS} s rounds; Node ${process.version}; ${embedded ? 'embedded PostgreSQL' : 'PostgreSQL from DATABASE_URL'}`,
	);
	const lines: string[] = [];
	const [bareHealth, sameHealth, havenHealth] = await compare([
		['bare node, same body     GET /healthz', `${bareUrl}/healthz`, bareServer],
		['bare node, same response GET /healthz', `${sameUrl}/healthz`, bareSame],
		['Haven                    GET /healthz', `${havenUrl}/healthz`, havenServer],
	]);
	lines.push(ratio(havenHealth!, sameHealth!), ratio(havenHealth!, bareHealth!));
	const [bareStats, sameStats, havenSmall] = await compare([
		['bare node, same body     GET /v1/stats', `${bareUrl}/v1/stats`, bareServer],
		['bare node, same response GET /v1/stats', `${sameUrl}/v1/stats`, bareSame],
		['Haven                    GET /v1/stats (10 rows)', `${havenUrl}/v1/stats`, havenServer],
	]);
	lines.push(ratio(havenSmall!, sameStats!), ratio(havenSmall!, bareStats!));

	// A million rows per table. The per-row counter triggers are switched off for the bulk insert (one statement
	// would otherwise bump the same counter row a million times in one transaction) and the counters are raised
	// by the same amounts, which is what the triggers would have done.
	const started = Date.now();
	await orm.em.fork().transactional(async (em) => {
		const run = (query: string) => em.execute(query);
		await run(`set local session_replication_role = replica`);
		await run(
			`insert into users (id, created_at, updated_at) select (400000000000000000 + g)::text, now(), now() from generate_series(1, ${ROWS}) g`,
		);
		await run(`insert into conversations (source, created_at) select 'bench', now() from generate_series(1, ${ROWS})`);
		await run(
			`insert into mood_check_ins (user_id, mood, intensity, created_at) select '400000000000000001', 'calm', 3, now() from generate_series(1, ${ROWS})`,
		);
		await run(`insert into crisis_events (level, trigger, created_at) select 'concern', 'api', now() from generate_series(1, ${ROWS})`);
		await run(
			`insert into guilds (id, joined_at, updated_at) select (500000000000000000 + g)::text, now(), now() from generate_series(1, ${ROWS}) g`,
		);
		for (const name of Object.values(COUNTED)) {
			await run(
				`insert into stat_counters (name, value) values ('${name}', ${ROWS}) on conflict (name) do update set value = stat_counters.value + ${ROWS}`,
			);
		}
	});
	await sql('vacuum analyze');
	const counts = await sql(
		`select ${Object.keys(COUNTED)
			.map((table) => `(select count(*) from ${table}) as ${table}`)
			.join(', ')}, (select count(*) from guilds) as guilds`,
	);
	console.log(`  (inserted in ${((Date.now() - started) / 1000).toFixed(1)} s; rows now: ${JSON.stringify(counts[0])})`);
	// Past the 5 s counter cache and the 30 s guild count cache: the next reads see the new totals.
	await new Promise((resolve) => setTimeout(resolve, 31_000));
	await fetch(`${havenUrl}/v1/stats`);
	await new Promise((resolve) => setTimeout(resolve, 500));
	console.log(`  GET /v1/stats now answers ${await (await fetch(`${havenUrl}/v1/stats`)).text()}`);
	const [sameStatsAgain, havenBig] = await compare([
		['bare node, same response GET /v1/stats', `${sameUrl}/v1/stats`, bareSame],
		[`Haven                    GET /v1/stats (${(ROWS / 1e6).toString()}M rows)`, `${havenUrl}/v1/stats`, havenServer],
	]);
	lines.push(ratio(havenBig!, sameStatsAgain!), ratio(havenBig!, bareStats!), ratio(havenBig!, havenSmall!));

	console.log('\nRatios: Haven / bare in requests per second (goal >= 0.75), and bare / Haven in server CPU per request:');
	for (const line of lines) console.log(`  ${line}`);
} finally {
	await orm.close(true);
	await Promise.all(children.map(stop));
	if (embedded) await embedded.stop();
	else await dropDatabase(databaseUrl);
	if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
