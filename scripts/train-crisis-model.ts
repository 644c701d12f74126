/**
 * Trains the crisis screen's model (src/lib/crisis/model.ts) on the labelled corpus and writes src/lib/crisis/model.json.
 *   node scripts/train-crisis-model.ts [--cv] [--dry-run]
 *
 * The risk threshold is chosen on the held-out batches (test/crisis/heldout), each scored by a model trained on
 * everything but that batch: they were written blind from the same brief as the goal's messages, with its hard
 * negatives, so they are what the threshold should be fitted to. (The training files' negatives are harder on purpose,
 * long heavy vents and minimal pairs among them, and a threshold fitted to them sat at its cap.)
 *
 * --cv       5-fold cross-validation first: per-kind recall and false positives of the rules alone and of rules plus
 *            model on messages each fold never saw; the high threshold is chosen on it.
 * --errors   with --cv: list the messages the cross-validated screen gets wrong (training data only, never held out).
 * --sweep    print recall and false positives over the held-out batches at a range of risk thresholds.
 * --dry-run  train and report, but do not write model.json.
 *
 * Deterministic: the same corpus gives the same file (seeded shuffles, no clock).
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFiles, heldOutFiles, loadCorpusFiles, type CorpusEntry } from '../src/lib/crisis/eval.ts';
import {
	encodeModel,
	featureSets,
	HEADS,
	headScore,
	linearScore,
	MODEL_PATH,
	concernVetoed,
	sigmoid,
	tooFewWordsForModel,
	type CrisisModel,
	type Head,
} from '../src/lib/crisis/model.ts';
import { modelInput } from '../src/lib/crisis/screen.ts';
import { mulberry32 } from './seeded-random.ts';

const BITS = 18;
const WINDOW = 2;
/**
 * See `windowPenalty` in model.ts. 0.5 was measured: in cross-validation it raised the model's recall at 3% false
 * positives from 0.754 to 0.777 and cut false positives on long heavy vents (t20, t21) by about 40% at the same
 * threshold; 1.0 cut them further but cost recall on every held-out batch.
 */
const WINDOW_PENALTY = 0.5;
const EPOCHS = 12;
const LEARNING_RATE = 0.4;
const L2 = 2e-6;
/** A feature seen in fewer training messages carries no weight (it would only memorise one message). */
const MIN_COUNT = 2;
/**
 * The false positives the model may add to the rules' own, as a share of the held-out batches' negatives, each batch
 * scored by a model that never saw it. Only the model's share is budgeted: the rules were corrected on those same
 * batches, so their false positives there understate a fresh batch's (the rules flagged 5-6% of the last fresh
 * negatives against 2-3% of the batches they were corrected on), and a budget for both together would hand what the
 * corrections won to the model. A 1% share is what the shipped threshold added before (0.843 on H1-H22).
 */
const TARGET_MODEL_FP = 0.01;

/**
 * Scored the same way as the held-out batches (left out of its model) and reported beside them, not fitted on: what
 * people write into Haven's own journal, letters, gratitude list, safety plan and check-in notes, all of which are
 * screened. Long and personal by nature, it shows what the threshold costs there.
 */
const WRITING_FEATURES = [new URL('../test/crisis/train/t23-writing.jsonl', import.meta.url)];

const args = new Set(process.argv.slice(2));
const root = fileURLToPath(new URL('..', import.meta.url));

interface Example {
	entry: CorpusEntry;
	/** Whole message first, then its windows. */
	sets: Uint32Array[];
	risk: boolean;
	high: boolean;
	third: boolean;
	rulesAtRisk: boolean;
	rulesLevel: string;
	/** Fewer words than the model reads (the screen leaves such a message to the rules). */
	short: boolean;
}

function isThirdParty(entry: CorpusEntry): boolean {
	return entry.group === 'third_party' || entry.kind === 'third_party';
}

function prepare(entries: CorpusEntry[]): Example[] {
	return entries.map((entry) => {
		const { rules, words, features } = modelInput(entry.text);
		return {
			entry,
			sets: featureSets(words, features, BITS, WINDOW),
			risk: entry.expected !== 'none',
			high: entry.expected === 'high' || entry.expected === 'imminent',
			third: isThirdParty(entry),
			rulesAtRisk: rules.level !== 'none',
			rulesLevel: rules.level,
			short: tooFewWordsForModel(words),
		};
	});
}

/** Training rows of one head: a positive counts whole; every window of a negative is a negative too. */
function rowsFor(head: Head, examples: Example[]): { set: Uint32Array; label: number }[] {
	const rows: { set: Uint32Array; label: number }[] = [];
	for (const example of examples) {
		if (head === 'third') {
			if (example.risk) rows.push({ set: example.sets[0]!, label: example.third ? 1 : 0 });
			continue;
		}
		const label = example[head] ? 1 : 0;
		if (label) rows.push({ set: example.sets[0]!, label });
		else for (const set of example.sets) rows.push({ set, label });
	}
	return rows;
}

function trainHead(head: Head, examples: Example[], allowed: Uint8Array): { weights: Float32Array; bias: number } {
	const size = 1 << BITS;
	const weights = new Float32Array(size);
	const squared = new Float32Array(size);
	let bias = 0;
	let biasSquared = 0;
	const rows = rowsFor(head, examples).map((row) => ({ ...row, set: row.set.filter((i) => allowed[i]) }));
	const positives = rows.filter((row) => row.label === 1).length;
	// Balanced classes: each side weighs as much in total.
	const weightOf = (label: number) =>
		label ? rows.length / (2 * Math.max(1, positives)) : rows.length / (2 * Math.max(1, rows.length - positives));
	const random = mulberry32(head.length * 7919 + examples.length);
	const order = rows.map((_, i) => i);
	for (let epoch = 0; epoch < EPOCHS; epoch++) {
		for (let i = order.length - 1; i > 0; i--) {
			const j = Math.floor(random() * (i + 1));
			[order[i], order[j]] = [order[j]!, order[i]!];
		}
		for (const r of order) {
			const { set, label } = rows[r]!;
			const scale = set.length > 0 ? 1 / Math.sqrt(set.length) : 0;
			const gradient = (sigmoid(linearScore(weights, bias, set)) - label) * weightOf(label);
			for (let k = 0; k < set.length; k++) {
				const i = set[k]!;
				const g = gradient * scale + L2 * weights[i]!;
				squared[i]! += g * g;
				weights[i]! -= (LEARNING_RATE * g) / Math.sqrt(squared[i]! + 1e-8);
			}
			biasSquared += gradient * gradient;
			bias -= (LEARNING_RATE * gradient) / Math.sqrt(biasSquared + 1e-8);
		}
	}
	return { weights, bias };
}

function allowedFeatures(examples: Example[]): Uint8Array {
	const counts = new Uint16Array(1 << BITS);
	for (const example of examples) for (const i of example.sets[0]!) counts[i] = Math.min(65535, counts[i]! + 1);
	return counts.map((count) => (count >= MIN_COUNT ? 1 : 0)) as unknown as Uint8Array;
}

function train(examples: Example[]): CrisisModel {
	const allowed = allowedFeatures(examples);
	const heads = {} as CrisisModel['heads'];
	for (const head of HEADS) heads[head] = { ...trainHead(head, examples, allowed), threshold: 0.5 };
	return { bits: BITS, window: WINDOW, windowPenalty: WINDOW_PENALTY, heads, trainedOn: [] };
}

/** The rules' level stands: as `screen` reads it, a short message is the rules' alone. */
function standsByRules({ example, risk }: { example: Example; risk: number }): boolean {
	return example.rulesAtRisk && (example.short || !concernVetoed(example.rulesLevel, risk));
}

function score(model: CrisisModel, head: Head, example: Example): number {
	return example.short ? 0 : headScore(model, head, example.sets);
}

interface Scored {
	example: Example;
	risk: number;
	high: number;
}

/** Lowest risk threshold at which the model adds at most TARGET_MODEL_FP false positives on messages it never saw. */
function chooseThreshold(scored: Scored[]): number {
	const negatives = scored.filter((s) => !s.example.risk);
	const candidates = negatives
		.filter((s) => !standsByRules(s))
		.map((s) => s.risk)
		.sort((a, b) => b - a);
	const budget = Math.floor(TARGET_MODEL_FP * negatives.length);
	return Math.min(0.95, Math.max(0.2, (candidates[budget] ?? 0) + 1e-6));
}

function report(title: string, scored: Scored[], threshold: number, highThreshold: number): void {
	const kinds = new Map<string, { n: number; rules: number; both: number; high: number; highN: number }>();
	let negatives = 0;
	let rulesFp = 0;
	let bothFp = 0;
	for (const { example, risk, high } of scored) {
		const flagged = standsByRules({ example, risk }) || risk >= threshold;
		if (!example.risk) {
			negatives++;
			if (example.rulesAtRisk) rulesFp++;
			if (flagged) bothFp++;
			continue;
		}
		const kind =
			example.entry.lang !== 'en'
				? `${example.entry.kind ?? example.entry.group} (${example.entry.lang})`
				: (example.entry.kind ?? example.entry.group);
		for (const key of [example.entry.kind ?? example.entry.group, example.entry.lang === 'en' ? 'english' : 'other languages', 'ALL']) {
			const row = kinds.get(key) ?? { n: 0, rules: 0, both: 0, high: 0, highN: 0 };
			row.n++;
			if (example.rulesAtRisk) row.rules++;
			if (flagged) row.both++;
			if (example.high) {
				row.highN++;
				if (high >= highThreshold && flagged) row.high++;
			}
			kinds.set(key, row);
		}
		void kind;
	}
	console.log(`\n${title} (risk threshold ${threshold.toFixed(3)}, high threshold ${highThreshold.toFixed(3)})`);
	console.log('kind'.padEnd(20), 'n'.padStart(5), 'rules'.padStart(7), '+model'.padStart(7), 'high@high'.padStart(10));
	for (const [kind, row] of [...kinds].sort()) {
		console.log(
			kind.padEnd(20),
			String(row.n).padStart(5),
			(row.rules / row.n).toFixed(3).padStart(7),
			(row.both / row.n).toFixed(3).padStart(7),
			(row.highN ? (row.high / row.highN).toFixed(3) : '-').padStart(10),
		);
	}
	console.log(
		`false positives: rules ${rulesFp}/${negatives} (${(rulesFp / negatives).toFixed(3)}), rules+model ${bothFp}/${negatives} (${(bothFp / negatives).toFixed(3)})`,
	);
}

/** High threshold: the lowest whose cross-validated rate of sub-high positives and negatives called high stays small. */
function chooseHighThreshold(scored: Scored[]): number {
	const below = scored
		.filter((s) => !s.example.high)
		.map((s) => s.high)
		.sort((a, b) => b - a);
	return Math.min(0.95, Math.max(0.5, (below[Math.floor(0.04 * below.length)] ?? 0) + 1e-6));
}

const files = corpusFiles({ heldOutToo: true });
const started = performance.now();
const byFile = new Map(files.map((file) => [file.href, prepare(loadCorpusFiles([file]))]));
const examples = [...byFile.values()].flat();
console.log(`corpus: ${examples.length} messages from ${files.length} files; features in ${((performance.now() - started) / 1000).toFixed(1)} s`);

// Leave one held-out batch out at a time: the threshold is fitted to scores of batches the model never saw.
const batches = [...heldOutFiles(), ...WRITING_FEATURES].map((file) => file.href);
const heldOutScored: Scored[] = [];
const perBatch: { name: string; scored: Scored[] }[] = [];
for (const batch of batches) {
	const model = train([...byFile].filter(([href]) => href !== batch).flatMap(([, list]) => list));
	const scored = byFile.get(batch)!.map((example) => ({ example, risk: score(model, 'risk', example), high: score(model, 'high', example) }));
	if (!WRITING_FEATURES.some((file) => file.href === batch)) heldOutScored.push(...scored);
	perBatch.push({ name: relative(root, fileURLToPath(batch)), scored });
}
const threshold = chooseThreshold(heldOutScored);
let highThreshold = 0.5;
console.log(
	`\nrisk threshold ${threshold.toFixed(3)}, fitted on ${batches.length - WRITING_FEATURES.length} held-out batches, each left out of its model (the writing features reported, not fitted):`,
);
for (const { name, scored } of perBatch) {
	const positives = scored.filter((s) => s.example.risk);
	const negatives = scored.filter((s) => !s.example.risk);
	const flagged = (s: Scored) => standsByRules(s) || s.risk >= threshold;
	console.log(
		`  ${name.padEnd(40)} recall ${(positives.filter(flagged).length / positives.length).toFixed(3)}  false positives ${(negatives.filter(flagged).length / negatives.length).toFixed(3)}`,
	);
}
if (args.has('--sweep')) {
	const negatives = heldOutScored.filter((s) => !s.example.risk);
	const positives = heldOutScored.filter((s) => s.example.risk);
	const rulesFp = negatives.filter(standsByRules).length / negatives.length;
	for (const t of [0.65, 0.7, 0.74, 0.76, 0.78, 0.8, 0.82, 0.843, 0.86, 0.88, 0.9]) {
		const flagged = (s: Scored) => standsByRules(s) || s.risk >= t;
		const added = negatives.filter((s) => !standsByRules(s) && s.risk >= t).length;
		console.log(
			`  sweep t=${t.toFixed(3)} recall ${(positives.filter(flagged).length / positives.length).toFixed(3)} fp ${(negatives.filter(flagged).length / negatives.length).toFixed(4)} model-added fp ${(added / negatives.length).toFixed(4)} rules fp ${rulesFp.toFixed(4)}`,
		);
	}
}
if (args.has('--cv')) {
	const folds = 5;
	const scored: Scored[] = [];
	const foldOf = (example: Example) => {
		let h = 0;
		for (let i = 0; i < example.entry.text.length; i++) h = (Math.imul(h, 31) + example.entry.text.charCodeAt(i)) >>> 0;
		return h % folds;
	};
	for (let fold = 0; fold < folds; fold++) {
		const model = train(examples.filter((e) => foldOf(e) !== fold));
		for (const example of examples.filter((e) => foldOf(e) === fold))
			scored.push({ example, risk: score(model, 'risk', example), high: score(model, 'high', example) });
	}
	{
		const negScores = scored
			.filter((x) => !x.example.risk)
			.map((x) => x.risk)
			.sort((a, b) => b - a);
		for (const fp of [0.03, 0.05]) {
			const t = negScores[Math.floor(fp * negScores.length)]!;
			const pos = scored.filter((x) => x.example.risk);
			const sys = scored.filter((x) => !x.example.risk && (standsByRules(x) || x.risk > t)).length / negScores.length;
			const sysRecall = pos.filter((x) => standsByRules(x) || x.risk > t).length / pos.length;
			console.log(
				`model recall at fp ${fp}: ${(pos.filter((x) => x.risk > t).length / pos.length).toFixed(3)} (t=${t.toFixed(3)}); with rules: recall ${sysRecall.toFixed(3)} fp ${sys.toFixed(3)}`,
			);
		}
	}
	if (args.has('--errors')) {
		const t = threshold;
		for (const x of scored)
			if (x.example.risk !== (standsByRules(x) || x.risk >= t))
				console.log(
					x.example.risk ? 'MISS' : 'FP  ',
					x.risk.toFixed(2),
					x.example.entry.kind ?? x.example.entry.group,
					x.example.entry.lang,
					x.example.entry.text.slice(0, 150),
				);
	}
	if (args.has('--veto')) {
		for (const level of ['concern', 'high']) {
			for (const t of [0.05, 0.1, 0.2, 0.3]) {
				const flagged = scored.filter((x) => x.example.rulesLevel === level && x.risk < t);
				console.log(
					`rules ${level}, model < ${t}: ${flagged.filter((x) => x.example.risk).length} positives, ${flagged.filter((x) => !x.example.risk).length} negatives`,
				);
			}
		}
	}
	highThreshold = chooseHighThreshold(scored);
	report('5-fold cross-validation', scored, threshold, highThreshold);
}

const model = train(examples);
model.heads.risk.threshold = threshold;
model.heads.high.threshold = highThreshold;
model.trainedOn = files.map((file) => relative(root, fileURLToPath(file)));
if (!args.has('--cv'))
	report(
		'training fit (optimistic)',
		examples.map((example) => ({ example, risk: score(model, 'risk', example), high: score(model, 'high', example) })),
		threshold,
		highThreshold,
	);
if (!args.has('--dry-run')) {
	writeFileSync(MODEL_PATH, JSON.stringify(encodeModel(model)) + '\n');
	console.log(`\nwrote ${relative(root, fileURLToPath(MODEL_PATH))}`);
}
