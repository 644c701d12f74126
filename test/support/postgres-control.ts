import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/lib/db/embedded.ts';

/**
 * A PostgreSQL of the test's own, to stop and start under a running Haven: the embedded server (real PostgreSQL 18)
 * in a temp folder, reached through its Unix socket by a DATABASE_URL. Whatever DATABASE_URL the suite runs with, the
 * machine's own server (e.g. CI's on 5432) is never touched.
 *
 * `stop` uses PostgreSQL's own shutdown signals to the postmaster (postmaster.pid): `fast` (SIGINT) ends sessions and
 * checkpoints, as `pg_ctl stop -m fast` does; `immediate` (SIGQUIT) quits at once like a crash (WAL recovery on the
 * next start). `start` brings the same cluster back on the same socket, through the same code Haven uses.
 */
export interface ControlledPostgres {
	/** postgresql://postgres@<socket dir>:5432/<dbName> */
	readonly url: string;
	readonly dataDir: string;
	readonly running: boolean;
	/** The postmaster's pid, while running. */
	pid(): number | undefined;
	stop(mode?: 'fast' | 'immediate'): Promise<void>;
	start(): Promise<void>;
	/** Stop it and delete its files. */
	close(): Promise<void>;
}

const SIGNALS = { fast: 'SIGINT', immediate: 'SIGQUIT' } as const;

export async function startControlledPostgres(dbName = 'haven'): Promise<ControlledPostgres> {
	const dataDir = mkdtempSync(join(tmpdir(), 'haven-pgctl-'));
	// As root the server runs as `postgres`, which must be able to pass through the folder (mkdtemp makes it 0700).
	chmodSync(dataDir, 0o711);
	const quiet = () => undefined;
	let server: EmbeddedPostgres | undefined = await startEmbeddedPostgres(dataDir, quiet);
	const { host, port, user } = server.connection;
	const url = `postgresql://${user}@${encodeURIComponent(host)}:${port}/${dbName}`;
	const pidFile = join(dataDir, 'postgres', 'postmaster.pid');

	const pid = () => {
		if (!existsSync(pidFile)) return undefined;
		const value = Number(readFileSync(pidFile, 'utf8').split('\n', 1)[0]);
		return Number.isInteger(value) && value > 0 && alive(value) ? value : undefined;
	};

	const control: ControlledPostgres = {
		url,
		dataDir,
		get running() {
			return server !== undefined;
		},
		pid,
		async stop(mode = 'fast') {
			const postmaster = pid();
			server = undefined;
			if (postmaster === undefined) return;
			process.kill(postmaster, SIGNALS[mode]);
			for (const deadline = Date.now() + 30_000; alive(postmaster);) {
				if (Date.now() > deadline) throw new Error(`postgres (pid ${postmaster}) did not stop`);
				await sleep(20);
			}
		},
		async start() {
			if (server) return;
			server = await startEmbeddedPostgres(dataDir, quiet);
		},
		async close() {
			const running = server;
			server = undefined;
			if (running) await running.stop();
			else if (pid() !== undefined) process.kill(pid()!, 'SIGINT');
			for (const deadline = Date.now() + 10_000; pid() !== undefined && Date.now() < deadline;) await sleep(20);
			rmSync(dataDir, { recursive: true, force: true });
		},
	};
	return control;
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}
