/** Small text helpers for rendering within Discord's limits. Pure. */

/** Discord's limits that rendering must respect. */
export const LIMITS = { content: 2_000, embedDescription: 4_096, embedTitle: 256, embeds: 10, fieldValue: 1_024 } as const;

/** Splits text into pages of at most `max` characters, at line ends when possible, never losing a character. */
export function paginate(text: string, max: number): string[] {
	const pages: string[] = [];
	let current = '';
	const push = () => {
		if (current.trim()) pages.push(current.replace(/\n+$/, ''));
		current = '';
	};
	for (const rawLine of text.replace(/\r\n?/g, '\n').split('\n')) {
		let line = rawLine;
		while (line.length > max) {
			push();
			// Cut a long line at the last space that fits, else hard.
			const cut = line.lastIndexOf(' ', max);
			const at = cut > max / 2 ? cut : max;
			pages.push(line.slice(0, at));
			line = line.slice(at).replace(/^ /, '');
		}
		const next = current ? `${current}\n${line}` : line;
		if (next.length > max) {
			push();
			current = line;
		} else {
			current = next;
		}
	}
	push();
	return pages;
}

/** Groups lines into blocks of at most `max` characters (a line longer than `max` is cut). */
export function chunkLines(lines: readonly string[], max: number): string[] {
	const chunks: string[] = [];
	let current = '';
	for (const raw of lines) {
		const line = raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
		if (current && current.length + 1 + line.length > max) {
			chunks.push(current);
			current = line;
		} else {
			current = current ? `${current}\n${line}` : line;
		}
	}
	if (current) chunks.push(current);
	return chunks;
}

/** One line, at most `max` characters, whitespace collapsed. */
export function excerpt(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

export function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${count === 1 ? one : many}`;
}

/** 93784 -> "1d 2h 3m"; under a minute -> "42s". */
export function formatDuration(totalSeconds: number): string {
	const seconds = Math.max(0, Math.floor(totalSeconds));
	if (seconds < 60) return `${seconds}s`;
	const days = Math.floor(seconds / 86_400);
	const hours = Math.floor((seconds % 86_400) / 3_600);
	const minutes = Math.floor((seconds % 3_600) / 60);
	return [days ? `${days}d` : '', hours ? `${hours}h` : '', minutes ? `${minutes}m` : ''].filter(Boolean).join(' ') || '0m';
}

/** Discord's relative/dated timestamp markup from an ISO string. */
export function discordTime(iso: string, style: 'R' | 'd' | 'f' = 'f'): string {
	return `<t:${Math.floor(new Date(iso).getTime() / 1000)}:${style}>`;
}
