// Telling a database outage from a bug, the throttled outage log, and the connect timeout against a server that
// accepts connections but never answers (a hung PostgreSQL): the query fails in about CONNECT_TIMEOUT_MS, not never.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions, POOL_TIMEOUTS } from '../../src/lib/db/index.ts';
import { isDatabaseUnavailable, outageReporter, unavailableReason } from '../../src/lib/db/outage.ts';

const coded = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`failure ${code}`), { code, ...extra });

describe('isDatabaseUnavailable', () => {
	test('socket errors, connection SQLSTATEs, shutdown/startup and timeouts are outages', () => {
		for (const error of [
			coded('ECONNREFUSED'),
			coded('ECONNRESET'),
			coded('ETIMEDOUT'),
			coded('EHOSTUNREACH'),
			coded('ENOENT', { syscall: 'connect' }),
			coded('08006'),
			coded('08001'),
			coded('57P01'),
			coded('57P03'),
			coded('53300'),
			coded('57014'),
			new Error('Connection terminated unexpectedly'),
			new Error('Connection terminated due to connection timeout'),
			new Error('timeout exceeded when trying to connect'),
			new Error('Client has encountered a connection error and is not queryable'),
			new Error('wrapped', { cause: coded('ECONNREFUSED') }),
			Object.assign(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], 'connect failed')),
		]) {
			assert.equal(isDatabaseUnavailable(error), true, `${(error as Error).message} ${(error as { code?: string }).code ?? ''}`);
		}
	});

	test('bugs, constraint violations, bad SQL and other files missing are not', () => {
		for (const error of [
			new Error('boom'),
			coded('23505'),
			coded('42P01'),
			coded('42601'),
			coded('08P01'),
			coded('ENOENT', { syscall: 'open' }),
			new TypeError('x is undefined'),
			'a string',
			null,
			undefined,
		]) {
			assert.equal(isDatabaseUnavailable(error), false, String((error as Error | undefined)?.message ?? error));
		}
	});

	test('the reason names the code, never the message', () => {
		assert.equal(unavailableReason(coded('ECONNREFUSED')), 'ECONNREFUSED');
		assert.equal(unavailableReason(new Error('insert into feedback values (my secret)', { cause: coded('57P01') })), '57P01');
		assert.equal(unavailableReason(new Error('Connection terminated unexpectedly')), 'Error');
	});
});

test('the outage log says it once per interval, with how many it held back', () => {
	let now = 0;
	const lines: string[] = [];
	const note = outageReporter(10_000, () => now);
	for (let i = 0; i < 50; i++) note('an HTTP request', coded('ECONNREFUSED'), (line) => lines.push(line));
	now = 10_000;
	note('an HTTP request', coded('ECONNREFUSED'), (line) => lines.push(line));
	assert.deepEqual(lines, [
		'The database is unavailable (ECONNREFUSED): an HTTP request was answered "try again shortly"',
		'The database is unavailable (ECONNREFUSED): an HTTP request was answered "try again shortly" (and 49 more since the last note)',
	]);
});

test('a server that accepts but never answers: queries fail after the connect timeout, classified as an outage', async () => {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((socket) => void sockets.add(socket));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	const orm = await MikroORM.init({ ...ormOptions({ clientUrl: `postgresql://postgres@127.0.0.1:${port}/haven` }), ensureDatabase: false });
	try {
		const started = performance.now();
		const error = await orm.em
			.getConnection()
			.execute('select 1')
			.then(
				() => undefined,
				(failure: unknown) => failure,
			);
		const seconds = (performance.now() - started) / 1000;
		assert.ok(error, 'the query failed');
		assert.equal(isDatabaseUnavailable(error), true, String(error));
		assert.ok(seconds >= POOL_TIMEOUTS.connectTimeoutMs / 1000 - 0.5, `not before the timeout (${seconds} s)`);
		assert.ok(seconds < POOL_TIMEOUTS.connectTimeoutMs / 1000 + 10, `bounded (${seconds} s)`);
	} finally {
		await orm.close(true);
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => server.close(resolve));
	}
});
