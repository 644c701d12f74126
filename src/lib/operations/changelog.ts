import { readFile } from 'node:fs/promises';
import { CHANGELOG_PAGE_CHARS, type ChangelogSource } from '../discord/info-views.ts';
import { paginate } from '../discord/text.ts';

/** The patch-notes file (PATCHNOTES_PATH) for `/changelog`, read on each use so edits show without a restart. */

/** Files past this are cut: 25 pages of an embed is more than anyone pages through in Discord. */
export const CHANGELOG_MAX_BYTES = 100_000;

export async function readChangelog(path: string | undefined): Promise<ChangelogSource> {
	if (!path) return { ok: false, reason: 'unset' };
	let text: string;
	try {
		text = (await readFile(path, 'utf8')).slice(0, CHANGELOG_MAX_BYTES);
	} catch (error) {
		const code = (error as { code?: string }).code;
		return { ok: false, reason: code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable', path };
	}
	const pages = paginate(text, CHANGELOG_PAGE_CHARS);
	return pages.length ? { ok: true, pages, path } : { ok: false, reason: 'empty', path };
}
