import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../../', import.meta.url);

/**
 * The build stamp: HAVEN_VERSION when the build set it (the Docker image does), else `git describe` of the
 * checkout, else the package version. The same string is reported by `/v1/status` and compared with releases.
 */
export function resolveVersion(stamp: string | undefined): string {
	if (stamp) return stamp;
	try {
		return execFileSync('git', ['describe', '--tags', '--always', '--dirty'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 })
			.toString()
			.trim();
	} catch {
		const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string };
		return `v${pkg.version}`;
	}
}
