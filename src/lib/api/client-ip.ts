import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../core/config.ts';

/** `::ffff:1.2.3.4` is the IPv4 client 1.2.3.4 on a dual-stack socket. */
export function normalizeIp(address: string): string {
	const trimmed = address.trim();
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
	return mapped ? mapped[1]! : trimmed.toLowerCase();
}

/**
 * One `X-Forwarded-For` entry as an address: proxies may add the client's port, `10.9.9.9:443` or
 * `[2001:db8::1]:443` (IPv6 in brackets, with or without a port), which is dropped. A bare IPv6 address is kept whole.
 */
export function forwardedAddress(entry: string): string {
	const trimmed = entry.trim();
	const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(trimmed);
	if (bracketed) return normalizeIp(bracketed[1]!);
	const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(trimmed);
	return normalizeIp(v4WithPort ? v4WithPort[1]! : trimmed);
}

/** Matches addresses against TRUST_PROXY's list (single addresses or CIDR ranges, IPv4 or IPv6). */
export function trustedProxies(addresses: readonly string[]): (address: string) => boolean {
	const list = new BlockList();
	for (const entry of addresses) {
		const [address = '', prefix] = entry.split('/');
		const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
		if (prefix === undefined) list.addAddress(normalizeIp(address), type);
		else list.addSubnet(normalizeIp(address), Number(prefix), type);
	}
	return (address) => {
		const family = isIP(address);
		return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
	};
}

export type ProxyTrust = false | { hops: number } | { trusted: (address: string) => boolean };

export function proxyTrust(config: TrustProxy): ProxyTrust {
	if (config === false) return false;
	if ('hops' in config) return config.hops > 0 ? config : false;
	return { trusted: trustedProxies(config.addresses) };
}

/**
 * The client's address. Without TRUST_PROXY it is the socket's peer, whatever `X-Forwarded-For` says. With
 * `{ hops: n }` it is the address the n-th proxy from us saw (n entries from the right of the chain
 * `X-Forwarded-For..., socket`); with a list it is the right-most address of that chain that is not a trusted proxy.
 * Entries the client wrote itself sit left of those and are never reached. Entries may carry a port
 * (`forwardedAddress`). An entry that is not an IP address stops the walk at the last proxy before it (so garbage
 * never becomes a rate-limit key).
 */
export function clientIp(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trust: ProxyTrust): string {
	const peer = normalizeIp(socketAddress ?? '');
	if (!trust || forwardedFor === undefined) return peer;
	const forwarded = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map(forwardedAddress).filter(Boolean);
	const chain = [...forwarded, peer];
	let index = chain.length - 1;
	if ('hops' in trust) {
		for (let hop = 0; hop < trust.hops && index > 0; hop++) {
			if (isIP(chain[index - 1]!) === 0) break;
			index--;
		}
	} else {
		while (index > 0 && trust.trusted(chain[index]!) && isIP(chain[index - 1]!) !== 0) index--;
	}
	return chain[index]!;
}

/**
 * The rate-limit key of an address: IPv4 as is, IPv6 by its /64 network, since one client usually holds a whole
 * /64 and could otherwise take a fresh address for every request.
 */
export function rateLimitKey(address: string): string {
	if (isIP(address) !== 6) return address;
	const [head = '', tail = ''] = address.split('::');
	const left = head ? head.split(':') : [];
	const right = tail ? tail.split(':') : [];
	// A dotted IPv4 tail (`64:ff9b::1.2.3.4`) stands for two groups.
	const size = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
	const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - size(left) - size(right))).fill('0'), ...right] : left;
	return `${groups
		.slice(0, 4)
		.map((group) => (Number.parseInt(group, 16) || 0).toString(16))
		.join(':')}::/64`;
}
