/**
 * Sustained mixed load on a real `haven serve` (a child process, bot and API), everything on loopback:
 *   node bench/load.ts        (with DATABASE_URL: a scratch database on that server; without: the embedded PostgreSQL)
 *
 * For BENCH_SECONDS (default 180), at once:
 * - public GETs (/v1/stats, /v1/status, /v1/testimonials, /healthz, /openapi.json) from BENCH_CONNECTIONS (default 32)
 *   keep-alive connections, each request from one of BENCH_IPS (default 20000) simulated client addresses through a
 *   trusted proxy (TRUST_PROXY=1, X-Forwarded-For), at the default per-address limits: nobody should be refused;
 * - POST /v1/chat at BENCH_CHAT_RPS (default 8/s) and POST /v1/feedback at BENCH_FEEDBACK_RPS (default 2/s), paced,
 *   from rotating addresses (within the per-address chat and feedback limits); the fake OpenAI answers after
 *   BENCH_AI_MS (default 80 ms);
 * - slash commands (/about, /ping, /stats) and DMs to the companion on the fake Discord, BENCH_INTERACTIONS (default 4)
 *   at a time, a new user each time (so cooldowns never answer instead).
 * It prints throughput, p50/p99 latency and answers by status per kind, the server's resident memory sampled every
 * 10 s (start, end, and the trend), and a few of its own /metrics. It stops by itself, then SIGTERMs the server and
 * checks it exits 0. Not a test: the numbers depend on the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, rmSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseMetrics, total } from '../test/reliability/support.ts';
import { dropDatabase, freePort, testEnv } from '../test/support/env.ts';
import { snowflakeAt, startFakeDiscord, type FakeDiscord } from '../test/support/fake-discord.ts';
import { startFakeOpenAi } from '../test/support/fake-openai.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 180);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const IPS = Number(process.env.BENCH_IPS ?? 20_000);
const CHAT_RPS = Number(process.env.BENCH_CHAT_RPS ?? 8);
const FEEDBACK_RPS = Number(process.env.BENCH_FEEDBACK_RPS ?? 2);
const AI_MS = Number(process.env.BENCH_AI_MS ?? 80);
const INTERACTIONS = Number(process.env.BENCH_INTERACTIONS ?? 4);
const TOKEN = 'bench-load-token-0123456789';
const CLI = new URL('../bin/haven.js', import.meta.url).pathname;

const GETS: [string, number][] = [
	['/v1/stats', 30],
	['/v1/status', 25],
	['/v1/testimonials', 20],
	['/healthz', 20],
	['/openapi.json', 5],
];

interface Kind {
	times: number[];
	statuses: Map<string, number>;
}
const kinds = new Map<string, Kind>();
function record(kind: string, status: string, ms: number): void {
	let entry = kinds.get(kind);
	if (!entry) kinds.set(kind, (entry = { times: [], statuses: new Map() }));
	entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
	if (status.startsWith('2') || status === 'answered') entry.times.push(ms);
}

const percentile = (sorted: number[], p: number) =>
	sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

/** 10.x.y.z for a client number: a stable address per simulated client. */
const ipOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** The status, or the client-side error code (e.g. ECONNRESET when a kept-alive socket closes as it is reused). */
function request(
	agent: http.Agent,
	base: string,
	method: string,
	path: string,
	ip: string,
	body?: unknown,
): Promise<{ status: number | string; ms: number }> {
	const data = body === undefined ? undefined : JSON.stringify(body);
	const headers: Record<string, string> = { 'x-forwarded-for': ip };
	if (data !== undefined)
		Object.assign(headers, {
			authorization: `Bearer ${TOKEN}`,
			'content-type': 'application/json',
			'content-length': String(Buffer.byteLength(data)),
		});
	const started = performance.now();
	return new Promise((resolve) => {
		const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
			res.resume();
			res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
			res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'error', ms: performance.now() - started }));
		});
		req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
		req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'error', ms: performance.now() - started }));
		req.end(data);
	});
}

async function serverMetrics(base: string): Promise<ReturnType<typeof parseMetrics>> {
	const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '192.0.2.1' } });
	return parseMetrics(await response.text());
}

async function main(): Promise<void> {
	const openai = await startFakeOpenAi();
	openai.mode = 'stall';
	openai.stallMs = AI_MS;
	openai.reply = 'I hear you. Thank you for telling me.';
	const fake: FakeDiscord = await startFakeDiscord({ shardCount: 2, guilds: 20, heartbeatIntervalMs: 5_000 });
	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	const env = testEnv({
		TOKEN: fake.token,
		CLIENT_ID: fake.applicationId,
		DISCORD_API_URL: fake.restUrl,
		GITHUB_API_URL: 'http://127.0.0.1:9',
		API_TOKEN: TOKEN,
		OPENAI_API_KEY: 'sk-bench',
		OPENAI_BASE_URL: openai.url,
		TRUST_PROXY: '1',
		PORT: String(port),
		PURGE_INTERVAL_MS: '0',
		LOG_LEVEL: 'warn',
	});
	if (env.DATA_DIR) chmodSync(env.DATA_DIR, 0o711);
	const server: ChildProcess = spawn(process.execPath, [CLI, 'serve'], {
		env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	const exited = once(server, 'exit');
	try {
		for (let i = 0; ; i++) {
			if (server.exitCode !== null) throw new Error('haven serve exited during startup');
			const status = await fetch(`${base}/v1/status`).then(
				(r) => (r.ok ? (r.json() as Promise<{ status: string }>) : undefined),
				() => undefined,
			);
			if (status?.status === 'ok') break;
			if (i > 600) throw new Error('haven serve did not become ready');
			await sleep(100);
		}
		console.log(
			`Haven is up (bot on 2 shards, 20 guilds; ${process.env.DATABASE_URL ? 'PostgreSQL from DATABASE_URL' : 'embedded PostgreSQL'}). Load for ${SECONDS} s.`,
		);

		const memory: { at: number; rssMb: number; heapMb: number }[] = [];
		const sampleMemory = async () => {
			const samples = await serverMetrics(base);
			memory.push({
				at: Math.round(performance.now() / 1000),
				rssMb: total(samples, 'process_resident_memory_bytes') / 2 ** 20,
				heapMb: total(samples, 'nodejs_heap_size_used_bytes') / 2 ** 20,
			});
		};
		await sampleMemory();
		const started = performance.now();
		const deadline = started + SECONDS * 1000;
		const running = () => performance.now() < deadline;
		const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS + 8 });
		const weights = GETS.reduce((sum, [, weight]) => sum + weight, 0);
		let client = 0;

		const getter = async () => {
			while (running()) {
				let pick = Math.random() * weights;
				const [path] = GETS.find(([, weight]) => (pick -= weight) < 0) ?? GETS[0]!;
				const { status, ms } = await request(agent, base, 'GET', path, ipOf(client++ % IPS));
				record(`GET ${path}`, String(status), ms);
			}
		};
		const paced = async (rps: number, send: (n: number) => Promise<{ status: number | string; ms: number }>, kind: string) => {
			const inFlight = new Set<Promise<void>>();
			for (let n = 0; running(); n++) {
				const due = started + (n * 1000) / rps;
				if (due > performance.now()) await sleep(due - performance.now());
				const p: Promise<void> = send(n).then(({ status, ms }) => void record(kind, String(status), ms));
				inFlight.add(p);
				void p.finally(() => inFlight.delete(p));
			}
			await Promise.all(inFlight);
		};
		// Rotating addresses, each used at most once a minute for these: far within 20 chats and 5 feedbacks a minute.
		const chats = paced(
			CHAT_RPS,
			(n) => request(agent, base, 'POST', '/v1/chat', ipOf(IPS + (n % 5000)), { message: `How do I get through a long week? (${n})` }),
			'POST /v1/chat',
		);
		const feedback = paced(
			FEEDBACK_RPS,
			(n) =>
				request(agent, base, 'POST', '/v1/feedback', ipOf(IPS + 5000 + (n % 5000)), {
					userId: '123456789012345678',
					message: `Haven helped me today (${n})`,
				}),
			'POST /v1/feedback',
		);

		let user = 1;
		const interactor = async () => {
			while (running()) {
				const userId = snowflakeAt(1_600_000_000_000, user++);
				const roll = Math.random();
				const startedAt = performance.now();
				try {
					if (roll < 0.25) {
						const sent = fake.sendMessage({ authorId: userId, dm: true, content: 'Long day. Just wanted to talk for a minute.' });
						const channel = fake.dmChannel(userId).id;
						if (!sent.delivered) throw new Error('not delivered');
						await fake.waitForRequest({ method: 'POST', path: `/channels/${channel}/messages` }, 10_000);
						record('DM -> companion reply', 'answered', performance.now() - startedAt);
					} else {
						const name = roll < 0.5 ? 'about' : roll < 0.75 ? 'ping' : 'stats';
						const ix = fake.sendSlashCommand({ name, userId });
						const callback = await ix.callback(10_000);
						record(`/${name} (callback)`, String(callback.status), performance.now() - startedAt);
					}
				} catch {
					record(roll < 0.25 ? 'DM -> companion reply' : 'interaction', 'no answer', performance.now() - startedAt);
				}
			}
		};
		const sampler = (async () => {
			while (running()) {
				await sleep(Math.min(10_000, Math.max(0, deadline - performance.now())));
				await sampleMemory();
				fake.clearRequests(); // the fake keeps every request; forget them between samples
			}
		})();
		const progress = setInterval(() => {
			const done = [...kinds.values()].reduce((sum, kind) => sum + [...kind.statuses.values()].reduce((a, b) => a + b, 0), 0);
			console.log(`  ${Math.round((performance.now() - started) / 1000)} s: ${done} requests and interactions so far`);
		}, 30_000);
		await Promise.all([
			...Array.from({ length: CONNECTIONS }, getter),
			chats,
			feedback,
			...Array.from({ length: INTERACTIONS }, interactor),
			sampler,
		]);
		clearInterval(progress);
		const seconds = (performance.now() - started) / 1000;
		agent.destroy();

		const final = await serverMetrics(base);
		console.log(`\n${'kind'.padEnd(26)} ${'count'.padStart(8)} ${'per s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   answers`);
		let all = 0;
		for (const [name, kind] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
			const count = [...kind.statuses.values()].reduce((a, b) => a + b, 0);
			all += count;
			const sorted = kind.times.sort((a, b) => a - b);
			const statuses = [...kind.statuses].map(([status, n]) => `${status}: ${n}`).join(', ');
			console.log(
				`${name.padEnd(26)} ${String(count).padStart(8)} ${(count / seconds).toFixed(1).padStart(8)} ${percentile(sorted, 50).toFixed(1).padStart(8)} ${percentile(sorted, 99).toFixed(1).padStart(8)}   ${statuses}`,
			);
		}
		console.log(`${'all'.padEnd(26)} ${String(all).padStart(8)} ${(all / seconds).toFixed(1).padStart(8)}`);
		const errors = [...kinds].flatMap(([name, kind]) =>
			[...kind.statuses].filter(([status]) => !/^2\d\d$|^answered$/.test(status)).map(([status, n]) => `${name} ${status}: ${n}`),
		);
		console.log(`\nNot 2xx: ${errors.length ? errors.join('; ') : 'none'}`);
		console.log(
			`Server: ${total(final, 'haven_http_rate_limited_total')} rate-limited, ${total(final, 'haven_http_requests_total', { status: '500' })} answered 500, ` +
				`${total(final, 'haven_interactions_total', { outcome: 'error' })} interaction errors, db pool max ${total(final, 'haven_db_pool_max_connections')}, ` +
				`AI calls ok ${total(final, 'haven_ai_requests_total', { outcome: 'ok' })} / failed ${total(final, 'haven_ai_requests_total') - total(final, 'haven_ai_requests_total', { outcome: 'ok' })}`,
		);
		const first = memory[0]!;
		const last = memory.at(-1)!;
		const middle = memory[Math.floor(memory.length / 2)]!;
		console.log(
			`Server memory (RSS / V8 heap used): start ${first.rssMb.toFixed(0)} / ${first.heapMb.toFixed(0)} MB, middle ${middle.rssMb.toFixed(0)} / ${middle.heapMb.toFixed(0)} MB, end ${last.rssMb.toFixed(0)} / ${last.heapMb.toFixed(0)} MB`,
		);
		console.log(`  RSS every 10 s: ${memory.map((m) => m.rssMb.toFixed(0)).join(' ')}`);
		// Second half against first half: a leak shows as a steady climb, warm-up as an early step.
		const half = memory.slice(Math.floor(memory.length / 2));
		const slope = half.length > 1 ? (half.at(-1)!.rssMb - half[0]!.rssMb) / ((half.at(-1)!.at - half[0]!.at) / 60) : 0;
		console.log(`  trend over the second half: ${slope >= 0 ? '+' : ''}${slope.toFixed(1)} MB/min`);
	} finally {
		server.kill('SIGTERM');
		const [code] = await exited;
		console.log(`\nhaven serve exited with ${code} after SIGTERM`);
		await fake.close();
		await openai.close();
		await dropDatabase(env.DATABASE_URL);
		if (env.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
	}
}

await main();
