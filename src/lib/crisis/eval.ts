/**
 * Evaluation of the screen against a labelled corpus (test/crisis/corpus.jsonl), shared by scripts/eval-crisis.ts and
 * the test suite so both apply the same rule:
 *   - a positive (expected level above none) is caught when the screen says anything but none; a positive whose
 *     expected level is high or imminent (explicit intent) is caught only at high or above;
 *   - a negative (expected none) is a false positive when the screen says anything but none;
 *   - the corpus passes when explicit-intent recall >= 0.98 and the false-positive rate <= 0.05.
 */
import { readFileSync } from 'node:fs';
import { screen } from './screen.ts';
import { isCrisisLevel, levelRank, type Assessment, type CrisisLevel } from './types.ts';

export interface CorpusEntry {
	text: string;
	expected: CrisisLevel;
	group: string;
	lang: string;
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
		if (typeof row.text !== 'string' || !isCrisisLevel(row.expected) || typeof row.group !== 'string') {
			throw new Error(`corpus line ${index + 1}: needs "text", "expected" (a level) and "group"`);
		}
		entries.push({ text: row.text, expected: row.expected, group: row.group, lang: typeof row.lang === 'string' ? row.lang : 'en' });
	});
	return entries;
}

export function loadCorpus(path: string | URL = DEFAULT_CORPUS): CorpusEntry[] {
	return parseCorpus(readFileSync(path, 'utf8'));
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
