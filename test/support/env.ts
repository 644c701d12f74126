import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';

/**
 * A test file's environment: its own fresh database (a new database on DATABASE_URL's server when given, as on
 * CI; otherwise the embedded PostgreSQL in a temp DATA_DIR), a random port on loopback, quiet logs.
 */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
	const dataDir = mkdtempSync(join(tmpdir(), 'haven-test-'));
	return {
		DATA_DIR: dataDir,
		DATABASE_URL: freshDatabaseUrl(),
		HOST: '127.0.0.1',
		PORT: '0',
		LOG_LEVEL: 'error',
		...overrides,
	};
}

export function freshDatabaseUrl(): string | undefined {
	const admin = process.env.DATABASE_URL;
	if (!admin) return undefined;
	const url = new URL(admin);
	url.pathname = `/haven_test_${randomBytes(6).toString('hex')}`;
	return url.toString();
}

/** Drops a database made by `freshDatabaseUrl` (no-op for the embedded server, which lives in a temp folder). */
export async function dropDatabase(databaseUrl: string | undefined): Promise<void> {
	if (!databaseUrl) return;
	const url = new URL(databaseUrl);
	const name = url.pathname.slice(1);
	url.pathname = '/postgres';
	const orm = await MikroORM.init({ clientUrl: url.toString(), entities: [], discovery: { warnWhenNoEntities: false }, debug: false });
	try {
		await orm.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
	} finally {
		await orm.close(true);
	}
}

/** A TCP port free on loopback right now (for a child process that must be told its port before it starts). */
export async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}
