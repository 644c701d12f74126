/**
 * Evaluation of the screen against a labelled corpus (test/crisis/corpus.jsonl), shared by scripts/eval-crisis.ts and
 * the test suite so both apply the same rule:
 *   - a positive (expected level above none) is caught when the screen says anything but none; a positive whose
 *     expected level is high or imminent (explicit intent) is caught only at high or above;
 *   - a negative (expected none) is a false positive when the screen says anything but none;
 *   - the corpus passes when explicit-intent recall >= 0.98 and the false-positive rate <= 0.05.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { screen } from './screen.ts';
import { isCrisisLevel, levelRank, type Assessment, type CrisisLevel } from './types.ts';

export interface CorpusEntry {
	text: string;
	expected: CrisisLevel;
	group: string;
	lang: string;
	/** The kind of message of the newer corpus files (`passive`, `preparation`, `neg_recovery`...); absent in the first. */
	kind?: string;
}

export interface GroupStats {
	group: string;
	positives: number;
	caught: number;
	negatives: number;
	falsePositives: number;
	/** Screened at exactly the expected level. */
	exact: number;
}

export interface Miss {
	text: string;
	group: string;
	expected: CrisisLevel;
	got: CrisisLevel;
	evidence: string[];
}

export interface EvalReport {
	total: number;
	groups: GroupStats[];
	languages: GroupStats[];
	positives: number;
	caught: number;
	explicit: { total: number; caught: number; recall: number };
	imminent: { total: number; exact: number };
	negatives: number;
	falsePositives: number;
	fpRate: number;
	exactRate: number;
	misses: Miss[];
	pass: boolean;
}

export const THRESHOLDS = Object.freeze({ explicitRecall: 0.98, fpRate: 0.05 });

export const DEFAULT_CORPUS = new URL('../../../test/crisis/corpus.jsonl', import.meta.url);

export function parseCorpus(jsonl: string): CorpusEntry[] {
	const entries: CorpusEntry[] = [];
	jsonl.split('\n').forEach((line, index) => {
		if (!line.trim()) return;
		const row = JSON.parse(line) as Partial<CorpusEntry>;
		const group = row.group ?? row.kind;
		if (typeof row.text !== 'string' || !isCrisisLevel(row.expected) || typeof group !== 'string') {
			throw new Error(`corpus line ${index + 1}: needs "text", "expected" (a level) and "group" or "kind"`);
		}
		const entry: CorpusEntry = { text: row.text, expected: row.expected, group, lang: typeof row.lang === 'string' ? row.lang : 'en' };
		if (typeof row.kind === 'string') entry.kind = row.kind;
		entries.push(entry);
	});
	return entries;
}

export function loadCorpus(path: string | URL = DEFAULT_CORPUS): CorpusEntry[] {
	return parseCorpus(readFileSync(path, 'utf8'));
}

/** Training messages written after the first corpus, one file per writer and voice. */
export const TRAINING_DIR = new URL('../../../test/crisis/train/', import.meta.url);
/** Held-out batches: written blind, scored once (their figures are in the crisis README), then trained on. */
export const HELD_OUT_DIR = new URL('../../../test/crisis/heldout/', import.meta.url);
/**
 * Minimal pairs: each crisis message followed by one in the same words without current risk. Measured, never trained
 * on: in cross-validation they cost the model recall on ordinary messages without lowering its false positives.
 */
export const PAIRS_DIR = new URL('../../../test/crisis/pairs/', import.meta.url);

function jsonlFiles(dir: URL): URL[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	return names
		.filter((name) => name.endsWith('.jsonl'))
		.sort()
		.map((name) => new URL(name, dir));
}

/** Every labelled file the model learns from: the first corpus, the training files and (once scored) held-out batches. */
export function corpusFiles({ heldOutToo }: { heldOutToo: boolean }): URL[] {
	return [DEFAULT_CORPUS, ...jsonlFiles(TRAINING_DIR), ...(heldOutToo ? jsonlFiles(HELD_OUT_DIR) : [])];
}

export function heldOutFiles(): URL[] {
	return jsonlFiles(HELD_OUT_DIR);
}

export function pairFiles(): URL[] {
	return jsonlFiles(PAIRS_DIR);
}

export function loadCorpusFiles(files: readonly URL[]): CorpusEntry[] {
	return files.flatMap((file) => loadCorpus(file));
}

export function isExplicit(expected: CrisisLevel): boolean {
	return levelRank(expected) >= levelRank('high');
}

/** The rule above: whether a screened level counts for an entry (caught for a positive, clean for a negative). */
export function isCorrect(expected: CrisisLevel, got: CrisisLevel): boolean {
	if (expected === 'none') return got === 'none';
	return levelRank(got) >= (isExplicit(expected) ? levelRank('high') : levelRank('concern'));
}

function tally(map: Map<string, GroupStats>, key: string, entry: CorpusEntry, got: CrisisLevel): void {
	let stats = map.get(key);
	if (!stats) map.set(key, (stats = { group: key, positives: 0, caught: 0, negatives: 0, falsePositives: 0, exact: 0 }));
	const ok = isCorrect(entry.expected, got);
	if (entry.expected === 'none') {
		stats.negatives++;
		if (!ok) stats.falsePositives++;
	} else {
		stats.positives++;
		if (ok) stats.caught++;
	}
	if (got === entry.expected) stats.exact++;
}

export function evaluate(entries: readonly CorpusEntry[], screenFn: (text: string) => Assessment = screen): EvalReport {
	const groups = new Map<string, GroupStats>();
	const languages = new Map<string, GroupStats>();
	const misses: Miss[] = [];
	let caught = 0;
	let positives = 0;
	let explicitTotal = 0;
	let explicitCaught = 0;
	let imminentTotal = 0;
	let imminentExact = 0;
	let negatives = 0;
	let falsePositives = 0;
	let exact = 0;
	for (const entry of entries) {
		const assessment = screenFn(entry.text);
		const got = assessment.level;
		const ok = isCorrect(entry.expected, got);
		tally(groups, entry.group, entry, got);
		tally(languages, entry.lang, entry, got);
		if (got === entry.expected) exact++;
		if (entry.expected === 'none') {
			negatives++;
			if (!ok) falsePositives++;
		} else {
			positives++;
			if (ok) caught++;
			if (isExplicit(entry.expected)) {
				explicitTotal++;
				if (ok) explicitCaught++;
			}
			if (entry.expected === 'imminent') {
				imminentTotal++;
				if (got === 'imminent') imminentExact++;
			}
		}
		if (!ok) misses.push({ text: entry.text, group: entry.group, expected: entry.expected, got, evidence: assessment.evidence });
	}
	const recall = explicitTotal ? explicitCaught / explicitTotal : 1;
	const fpRate = negatives ? falsePositives / negatives : 0;
	return {
		total: entries.length,
		groups: [...groups.values()],
		languages: [...languages.values()].sort((a, b) => a.group.localeCompare(b.group)),
		positives,
		caught,
		explicit: { total: explicitTotal, caught: explicitCaught, recall },
		imminent: { total: imminentTotal, exact: imminentExact },
		negatives,
		falsePositives,
		fpRate,
		exactRate: entries.length ? exact / entries.length : 1,
		misses,
		pass: recall >= THRESHOLDS.explicitRecall && fpRate <= THRESHOLDS.fpRate,
	};
}

const pct = (n: number, d: number): string => (d ? `${((100 * n) / d).toFixed(1)}%` : '-');

export function formatReport(r: EvalReport, options: { misses?: boolean } = {}): string {
	const lines: string[] = [];
	const row = (label: string, s: GroupStats): string => {
		const parts = [label.padEnd(22)];
		parts.push(s.positives ? `recall ${pct(s.caught, s.positives).padStart(6)} (${s.caught}/${s.positives})` : ''.padEnd(24));
		parts.push(s.negatives ? `false positives ${pct(s.falsePositives, s.negatives).padStart(6)} (${s.falsePositives}/${s.negatives})` : '');
		return parts.join('  ').trimEnd();
	};
	lines.push(`Crisis screen evaluation: ${r.total} messages (${r.positives} positive, ${r.negatives} negative)`, '', 'By group:');
	for (const g of r.groups) lines.push(`  ${row(g.group, g)}`);
	lines.push('', 'By language:');
	for (const g of r.languages) lines.push(`  ${row(g.group, g)}`);
	lines.push(
		'',
		`Recall, all positives:          ${pct(r.caught, r.positives)} (${r.caught}/${r.positives})`,
		`Explicit-intent recall (>=high): ${pct(r.explicit.caught, r.explicit.total)} (${r.explicit.caught}/${r.explicit.total})  threshold ${THRESHOLDS.explicitRecall * 100}%`,
		`False-positive rate:            ${pct(r.falsePositives, r.negatives)} (${r.falsePositives}/${r.negatives})  threshold ${THRESHOLDS.fpRate * 100}%`,
		`Imminent screened as imminent:  ${pct(r.imminent.exact, r.imminent.total)} (${r.imminent.exact}/${r.imminent.total})`,
		`Exact level agreement:          ${(100 * r.exactRate).toFixed(1)}%`,
	);
	if (options.misses && r.misses.length) {
		lines.push('', 'Misses:');
		for (const m of r.misses)
			lines.push(`  [${m.group}] expected ${m.expected}, got ${m.got}: ${JSON.stringify(m.text)} ${m.evidence.join(' ')}`);
	}
	lines.push('', r.pass ? 'PASS' : 'FAIL');
	return lines.join('\n');
}

/**
 * The figures by kind of message, as the held-out batches are reported: a positive is found when the screen says
 * anything but none; `atHigh` counts positives labelled high or imminent that the screen put at high or above.
 */
export interface KindRow {
	kind: string;
	positives: number;
	found: number;
	atHighOf: number;
	atHigh: number;
	negatives: number;
	falsePositives: number;
}

export interface KindReport {
	rows: KindRow[];
	all: KindRow;
	otherLanguages: KindRow;
	negatives: KindRow;
}

export function kindReport(entries: readonly CorpusEntry[], screenFn: (text: string) => Assessment = screen): KindReport {
	const rows = new Map<string, KindRow>();
	const blank = (kind: string): KindRow => ({ kind, positives: 0, found: 0, atHighOf: 0, atHigh: 0, negatives: 0, falsePositives: 0 });
	const all = blank('all positives');
	const otherLanguages = blank('other languages');
	const negatives = blank('all negatives');
	for (const entry of entries) {
		const got = levelRank(screenFn(entry.text).level);
		const kind = entry.kind ?? entry.group;
		const row = rows.get(kind) ?? blank(kind);
		rows.set(kind, row);
		if (entry.expected === 'none') {
			for (const r of [row, negatives]) {
				r.negatives++;
				if (got > 0) r.falsePositives++;
			}
			continue;
		}
		for (const r of entry.lang === 'en' ? [row, all] : [row, all, otherLanguages]) {
			r.positives++;
			if (got > 0) r.found++;
			if (isExplicit(entry.expected)) {
				r.atHighOf++;
				if (got >= levelRank('high')) r.atHigh++;
			}
		}
	}
	return { rows: [...rows.values()].sort((a, b) => a.kind.localeCompare(b.kind)), all, otherLanguages, negatives };
}

export function formatKindReport(title: string, report: KindReport): string {
	const ratio = (n: number, d: number) => (d ? `${(n / d).toFixed(2)} (${n}/${d})` : '-');
	const lines = [title, `  ${'kind'.padEnd(18)} ${'found'.padEnd(16)} ${'high at >= high'.padEnd(16)} false positives`];
	const line = (r: KindRow) =>
		`  ${r.kind.padEnd(18)} ${(r.positives ? ratio(r.found, r.positives) : '').padEnd(16)} ${(r.atHighOf ? ratio(r.atHigh, r.atHighOf) : '').padEnd(16)} ${r.negatives ? ratio(r.falsePositives, r.negatives) : ''}`;
	for (const r of report.rows) lines.push(line(r));
	lines.push(line(report.otherLanguages), line(report.all), line(report.negatives));
	return lines.join('\n');
}
