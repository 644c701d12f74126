/**
 * The release check, so owners learn of a newer release: the running build stamp against the latest GitHub release of
 * GITHUB_REPO, at startup (logged) and by `/version`. One GET of `<GITHUB_API_URL>/repos/<repo>/releases/latest`
 * with a short timeout, GITHUB_TOKEN sent when set; answers are cached (15 min, 1 min after a failure) so `/version`
 * never spends the unauthenticated allowance of 60 requests an hour. It never throws: a failure is a result.
 */

export type VersionState = 'current' | 'outdated' | 'ahead' | 'unknown';

export interface LatestRelease {
	tag: string;
	url: string | null;
	publishedAt: string | null;
}

export interface ReleaseCheck {
	running: string;
	state: VersionState;
	latest: LatestRelease | null;
	/** Why there is no comparison: no repository configured, no release published, the request failed ... */
	problem: string | null;
	checkedAt: string;
}

interface Parsed {
	core: [number, number, number];
	prerelease: string | null;
	/** `git describe` output past a tag (`v1.2.3-4-gabc1234`) or a dirty tree: a build newer than its tag. */
	pastTag: boolean;
}

const DESCRIBE = /^v?(\d+)\.(\d+)\.(\d+)-(\d+)-g[0-9a-f]{4,40}$/i;
const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseVersion(value: string): Parsed | null {
	let text = value.trim();
	const dirty = /-dirty$/i.test(text);
	if (dirty) text = text.slice(0, -'-dirty'.length);
	const describe = DESCRIBE.exec(text);
	if (describe)
		return { core: [Number(describe[1]), Number(describe[2]), Number(describe[3])], prerelease: null, pastTag: Number(describe[4]) > 0 || dirty };
	const semver = SEMVER.exec(text);
	if (!semver) return null;
	return { core: [Number(semver[1]), Number(semver[2]), Number(semver[3])], prerelease: semver[4] ?? null, pastTag: dirty };
}

function comparePrerelease(a: string, b: string): number {
	const left = a.split('.');
	const right = b.split('.');
	for (let i = 0; i < Math.max(left.length, right.length); i++) {
		const x = left[i];
		const y = right[i];
		if (x === undefined) return -1;
		if (y === undefined) return 1;
		const nx = /^\d+$/.test(x) ? Number(x) : null;
		const ny = /^\d+$/.test(y) ? Number(y) : null;
		if (nx !== null && ny !== null && nx !== ny) return nx - ny;
		if (nx !== null && ny === null) return -1;
		if (nx === null && ny !== null) return 1;
		if (x !== y) return x < y ? -1 : 1;
	}
	return 0;
}

/** How the running build relates to the latest release tag. Builds without a version (a bare commit) are `unknown`. */
export function compareVersions(running: string, latestTag: string): VersionState {
	const a = parseVersion(running);
	const b = parseVersion(latestTag);
	if (!a || !b) return running.trim() === latestTag.trim() ? 'current' : 'unknown';
	for (let i = 0; i < 3; i++) {
		if (a.core[i]! !== b.core[i]!) return a.core[i]! < b.core[i]! ? 'outdated' : 'ahead';
	}
	if (a.prerelease !== b.prerelease) {
		if (a.prerelease === null) return 'ahead';
		if (b.prerelease === null) return 'outdated';
		const order = comparePrerelease(a.prerelease, b.prerelease);
		if (order !== 0) return order < 0 ? 'outdated' : 'ahead';
	}
	return a.pastTag ? 'ahead' : 'current';
}

export interface ReleaseCheckerOptions {
	running: string;
	/** owner/repo, or undefined when none is configured. */
	repo: string | undefined;
	apiUrl: string;
	token?: string;
	timeoutMs?: number;
	cacheMs?: number;
	failureCacheMs?: number;
	fetch?: typeof fetch;
	now?: () => number;
}

export interface ReleaseChecker {
	check(): Promise<ReleaseCheck>;
	/** The last check's result, without checking again; undefined before the first. */
	last(): ReleaseCheck | undefined;
}

export const RELEASE_TIMEOUT_MS = 3_000;

export function createReleaseChecker(options: ReleaseCheckerOptions): ReleaseChecker {
	const { running, repo, apiUrl, token, timeoutMs = RELEASE_TIMEOUT_MS, cacheMs = 15 * 60_000, failureCacheMs = 60_000, now = Date.now } = options;
	const doFetch = options.fetch ?? fetch;
	let cached: { result: ReleaseCheck; until: number } | undefined;
	let pending: Promise<ReleaseCheck> | undefined;

	const result = (state: VersionState, latest: LatestRelease | null, problem: string | null): ReleaseCheck => ({
		running,
		state,
		latest,
		problem,
		checkedAt: new Date(now()).toISOString(),
	});

	async function load(): Promise<ReleaseCheck> {
		if (!repo) return result('unknown', null, 'no repository is configured (GITHUB_REPO)');
		const url = `${apiUrl.replace(/\/+$/, '')}/repos/${repo}/releases/latest`;
		const headers: Record<string, string> = {
			accept: 'application/vnd.github+json',
			'x-github-api-version': '2022-11-28',
			'user-agent': `haven/${running}`,
		};
		if (token) headers.authorization = `Bearer ${token}`;
		try {
			const response = await doFetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
			if (response.status === 404) {
				await response.body?.cancel();
				return result('unknown', null, `${repo} has no published release`);
			}
			if (!response.ok) {
				await response.body?.cancel();
				return result('unknown', null, `GitHub answered ${response.status}`);
			}
			const body = (await response.json()) as { tag_name?: unknown; html_url?: unknown; published_at?: unknown };
			if (typeof body.tag_name !== 'string' || !body.tag_name) return result('unknown', null, 'GitHub answered without a release tag');
			const latest: LatestRelease = {
				tag: body.tag_name,
				url: typeof body.html_url === 'string' ? body.html_url : null,
				publishedAt: typeof body.published_at === 'string' ? body.published_at : null,
			};
			return result(compareVersions(running, latest.tag), latest, null);
		} catch (error) {
			const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
			return result('unknown', null, timedOut ? `GitHub did not answer within ${timeoutMs} ms` : 'GitHub could not be reached');
		}
	}

	return {
		last: () => cached?.result,
		check() {
			if (cached && now() < cached.until) return Promise.resolve(cached.result);
			return (pending ??= load().then((checked) => {
				cached = { result: checked, until: now() + (checked.latest ? cacheMs : failureCacheMs) };
				pending = undefined;
				return checked;
			}));
		},
	};
}

/** One line for the startup log. */
export function describeReleaseCheck(check: ReleaseCheck): string {
	switch (check.state) {
		case 'current':
			return `Release check: ${check.running} is the latest release`;
		case 'outdated':
			return `Release check: ${check.running} is behind the latest release ${check.latest!.tag}${check.latest!.url ? ` (${check.latest!.url})` : ''}`;
		case 'ahead':
			return `Release check: ${check.running} is newer than the latest release ${check.latest!.tag}`;
		default:
			return check.latest
				? `Release check: cannot compare ${check.running} with the latest release ${check.latest.tag}`
				: `Release check: skipped, ${check.problem ?? 'no answer'}`;
	}
}
