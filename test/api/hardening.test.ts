import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { clientIp, forwardedAddress, rateLimitKey } from '../../src/lib/api/client-ip.ts';
import { sendFailure } from '../../src/lib/api/http-error.ts';
import { FixedWindowLimiter } from '../../src/lib/api/rate-limit.ts';
import { request } from './support.ts';

const root = new URL('../../', import.meta.url);

describe('X-Forwarded-For entries with ports', () => {
	test('an IPv4 address with a port, and a bracketed IPv6 address with or without one, are the address', () => {
		assert.equal(forwardedAddress('10.9.9.9:443'), '10.9.9.9');
		assert.equal(forwardedAddress(' [2001:db8::1]:443'), '2001:db8::1');
		assert.equal(forwardedAddress('[2001:DB8::1]'), '2001:db8::1');
		assert.equal(forwardedAddress('2001:db8::1'), '2001:db8::1', 'a bare IPv6 address is not cut at its last colon');
		assert.equal(forwardedAddress('[::ffff:10.1.2.3]:80'), '10.1.2.3');
	});

	test('behind a trusted proxy the client is found through ported entries, and limited per address', () => {
		const trust = { hops: 1 };
		assert.equal(clientIp('10.0.0.1', '10.9.9.9:443', trust), '10.9.9.9');
		assert.equal(clientIp('10.0.0.1', '[2001:db8::1]:443', trust), '2001:db8::1');
		assert.equal(rateLimitKey(clientIp('10.0.0.1', '[2001:db8:0:0:5::1]:443', trust)), '2001:db8:0:0::/64');
		const list = { trusted: (address: string) => address === '10.0.0.1' || address === '10.0.0.2' };
		assert.equal(clientIp('10.0.0.1', '198.51.100.7:5555, 10.0.0.2:8080', list), '198.51.100.7');
		assert.equal(clientIp('10.0.0.1', 'garbage:1, 10.0.0.2:8080', list), '10.0.0.2', 'garbage still stops the walk');
	});
});

describe('the rate limiter under made-up addresses', () => {
	test('never holds more than its bound; addresses that do not fit share one limit until windows end', () => {
		let now = 0;
		const limiter = new FixedWindowLimiter(2, 60_000, () => now, 100);
		for (let i = 0; i < 10_000; i++) limiter.take(`198.51.${i >> 8}.${i & 255}`);
		assert.ok(limiter.size <= 101, `size ${limiter.size}`);
		assert.equal(limiter.take('203.0.113.1').allowed, false, 'the overflow window is long used up');
		assert.equal(limiter.take('198.51.0.0').allowed, true, 'an address that fit keeps its own window');
		now = 60_001;
		assert.equal(limiter.take('203.0.113.1').allowed, true, 'once windows end there is room again');
		assert.ok(limiter.size <= 101);
	});
});

describe('the 500 log line', () => {
	let server: Server;
	const logged: string[] = [];
	let failure: unknown;
	before(async () => {
		server = createServer((_request, response) => sendFailure(response, failure, (line) => logged.push(line)));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	});
	after(() => new Promise((resolve) => server.close(resolve)));

	test('carries the error id, class and code, never the message', async () => {
		failure = Object.assign(new Error('duplicate key value (user_id)=(123456789012345678): note "I feel awful"'), { code: '23505' });
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const reply = await request(base, 'GET', '/');
		assert.equal(reply.status, 500);
		const id = /error id ([0-9a-f-]{36})/.exec(reply.json.error)?.[1];
		assert.ok(id);
		assert.deepEqual(logged, [`Request failed (error id ${id}): Error (code 23505)`]);

		logged.length = 0;
		failure = Object.assign(new TypeError('cannot read "secret"'), { code: 'bad code with "quotes" and spaces' });
		await request(base, 'GET', '/');
		assert.match(logged[0]!, /^Request failed \(error id [0-9a-f-]{36}\): TypeError$/, 'a code that is not a plain word is left out');
	});
});

describe('deployment files', () => {
	test('docker compose publishes Haven on loopback unless HAVEN_PUBLISH_ADDRESS says otherwise', () => {
		const compose = readFileSync(new URL('docker-compose.yml', root), 'utf8');
		const ports = [...compose.matchAll(/^\s+- '([^']*:9420)'$/gm)].map((match) => match[1]);
		assert.deepEqual(ports, ['${HAVEN_PUBLISH_ADDRESS:-127.0.0.1}:9420:9420']);
	});

	test('the Dockerfile pins every base image by digest', () => {
		const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
		const digest = /^ARG NODE_IMAGE_DIGEST=(sha256:[0-9a-f]{64})$/m.exec(dockerfile)?.[1];
		assert.ok(digest, 'ARG NODE_IMAGE_DIGEST=sha256:<64 hex>');
		const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
		assert.ok(bases.length >= 2);
		for (const base of bases) assert.equal(base, 'node:24-slim@${NODE_IMAGE_DIGEST}');
		assert.doesNotMatch(digest, /^sha256:0{64}$/, 'a real digest, not a placeholder');
	});
});
