import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { waitFor } from '../support/wait.ts';

/** Shared by the reliability suite: Prometheus text parsing, polling, and `haven` as a child process. */

export interface Sample {
	name: string;
	labels: Record<string, string>;
	value: number;
}

/** Parses the Prometheus text exposition format (the subset prom-client writes). */
export function parseMetrics(text: string): Sample[] {
	const samples: Sample[] = [];
	for (const line of text.split('\n')) {
		if (!line || line.startsWith('#')) continue;
		const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
		if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
		const labels: Record<string, string> = {};
		for (const [, key, raw] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
			labels[key!] = raw!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
		}
		samples.push({ name: match[1]!, labels, value: Number(match[3]) });
	}
	return samples;
}

/** The sum of the samples of `name` whose labels include `labels` (0 when none match). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
	return samples
		.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
		.reduce((sum, sample) => sum + sample.value, 0);
}

export function has(samples: Sample[], name: string, labels: Record<string, string> = {}): boolean {
	return samples.some((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

export async function scrape(baseUrl: string, token: string): Promise<Sample[]> {
	const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
	if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${await response.text()}`);
	return parseMetrics(await response.text());
}

/** Polls `check` until it returns a value other than undefined/false (`waitFor` with this suite's longer deadline). */
export function until<T>(
	check: () => Promise<T | undefined | false> | T | undefined | false,
	what: string,
	timeoutMs = 15_000,
	everyMs = 50,
): Promise<T> {
	return waitFor(check, { what, timeoutMs, everyMs });
}

// ---------------------------------------------------------------------------------------------------------------------
// `haven` as a user runs it

const CLI = new URL('../../bin/haven.js', import.meta.url).pathname;

export interface HavenProcess {
	child: ChildProcess;
	output(): string;
	exited: Promise<number | null>;
	/** Resolves with the first output line matching, or rejects when the process exits first. */
	waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

const children = new Set<ChildProcess>();

/** Kills every child still running (for `after`). */
export function killChildren(): void {
	for (const child of children) child.kill('SIGKILL');
}

export function runHaven(args: string[], env: Record<string, string | undefined>): HavenProcess {
	const child = spawn(process.execPath, [CLI, ...args], {
		env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env } as NodeJS.ProcessEnv,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	children.add(child);
	let text = '';
	const listeners = new Set<() => void>();
	const onData = (chunk: Buffer) => {
		text += chunk.toString('utf8');
		for (const listener of listeners) listener();
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	const exited = once(child, 'exit').then(([code]) => {
		children.delete(child);
		for (const listener of listeners) listener();
		return code as number | null;
	});
	return {
		child,
		output: () => text,
		exited,
		waitFor(pattern, timeoutMs = 30_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					const match = pattern.exec(text);
					if (match) finish(undefined, match);
					else if (child.exitCode !== null || child.signalCode !== null)
						finish(new Error(`haven ${args.join(' ')} exited before printing ${pattern}:\n${text}`));
				};
				const timer = setTimeout(
					() => finish(new Error(`haven ${args.join(' ')} did not print ${pattern} within ${timeoutMs} ms:\n${text}`)),
					timeoutMs,
				);
				const finish = (error?: Error, match?: RegExpExecArray) => {
					clearTimeout(timer);
					listeners.delete(check);
					if (error) reject(error);
					else resolve(match!);
				};
				listeners.add(check);
				check();
			});
		},
	};
}

/** `haven serve` until it prints its port; resolves with its base URL. */
export async function serveHaven(env: Record<string, string | undefined>): Promise<HavenProcess & { url: string }> {
	const running = runHaven(['serve'], env);
	const [, port] = await running.waitFor(/HTTP API on port (\d+)/, 60_000);
	return { ...running, url: `http://127.0.0.1:${port}` };
}
