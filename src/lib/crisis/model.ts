/**
 * The learned half of the crisis screen: logistic regression over hashed word and character n-grams of the
 * normalised text, plus what the rule screen found (its level, categories and guards), trained by
 * `scripts/train-crisis-model.ts` on the labelled corpus and shipped as `model.json`. Pure and deterministic: the same
 * text always gives the same scores; no network.
 *
 * Three heads, each a probability:
 *   risk   the message is about a possible crisis of the writer or of someone else (any level above none)
 *   high   it is at least `high` (explicit ideation, current self-harm, preparation, a plan)
 *   third  of a message at risk, that the person at risk is someone else
 *
 * Why n-grams: people describe a crisis in their own words far more often than with a listed phrase. Word n-grams
 * learn the acts and situations ("letters for my family", "gave away my cat"); character n-grams carry the same
 * knowledge across spellings, inflections and the five other languages ("matarme", "ammazzarmi", "umbringen").
 * A message is scored whole and in windows of two sentences, and the highest score counts, so one sentence of crisis
 * inside a long vent is not diluted by the rest.
 */
import { readFileSync } from 'node:fs';
import { skeleton, type Token } from './normalize.ts';
import type { Assessment } from './types.ts';

export const MODEL_FORMAT = 'haven-crisis-model';
export const HEADS = ['risk', 'high', 'third'] as const;
export type Head = (typeof HEADS)[number];

export interface ModelHead {
	bias: number;
	/** Score at or above which the head counts as yes. */
	threshold: number;
	weights: Float32Array;
}

export interface CrisisModel {
	bits: number;
	/** Sentences per scored window. */
	window: number;
	/**
	 * The risk head's best score is lowered by this times the natural log of the number of scored sets (the message and
	 * its windows): the highest of many windows is high by chance, so a long heavy vent would otherwise be flagged
	 * far more often than a short message of the same tone.
	 */
	windowPenalty: number;
	heads: Record<Head, ModelHead>;
	/** Corpus files the model was trained on (paths relative to the repository). */
	trainedOn: string[];
}

export type Scores = Record<Head, number>;

// ---- Features -----------------------------------------------------------------------------------------------------

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function mix(hash: number, code: number): number {
	return Math.imul(hash ^ code, FNV_PRIME) >>> 0;
}

function hashString(hash: number, text: string): number {
	for (let i = 0; i < text.length; i++) hash = mix(hash, text.charCodeAt(i));
	return hash;
}

const SEED = {
	word: hashString(FNV_OFFSET, 'w'),
	pair: hashString(FNV_OFFSET, 'p'),
	chars: hashString(FNV_OFFSET, 'c'),
	rule: hashString(FNV_OFFSET, 'r'),
	concept: hashString(FNV_OFFSET, 'k'),
	cluster: hashString(FNV_OFFSET, 'g'),
	clusterPair: hashString(FNV_OFFSET, 'gg'),
};
const SPACE = 0x20;
const BOUNDARY = 0x3c; // "<": word start and end inside character n-grams
const CHAR_GRAMS = [3, 4, 5] as const;
/** Longer "words" are noise (a URL, a key mash) and would add hundreds of character n-grams. */
const MAX_WORD_FOR_CHARS = 24;

export interface Word {
	text: string;
	sentence: number;
	/** One bit per word class of concepts.json the word belongs to. */
	concepts: number;
	/** The word's cluster in clusters.json (words that mean alike), or -1 for a word it does not hold. */
	cluster: number;
}

type ConceptFile = Record<string, Record<string, string[]> | string>;

/** concepts.json as lookups: whole words, and word beginnings (entries ending in *). */
function compileConcepts(file: ConceptFile): { names: string[]; words: Map<string, number>; prefixes: Map<string, number> } {
	const names = Object.keys(file).filter((name) => !name.startsWith('_'));
	const words = new Map<string, number>();
	const prefixes = new Map<string, number>();
	names.forEach((name, bit) => {
		for (const list of Object.values(file[name] as Record<string, string[]>)) {
			for (const entry of list) {
				const target = entry.endsWith('*') ? prefixes : words;
				const key = entry.endsWith('*') ? entry.slice(0, -1) : entry;
				target.set(key, (target.get(key) ?? 0) | (1 << bit));
			}
		}
	});
	return { names, words, prefixes };
}

const CONCEPTS = compileConcepts(JSON.parse(readFileSync(new URL('./concepts.json', import.meta.url), 'utf8')) as ConceptFile);
const CONCEPT_NAMES = CONCEPTS.names;
const conceptCache = new Map<string, number>();
const CONCEPT_CACHE_LIMIT = 50_000;

export const CLUSTERS_FORMAT = 'haven-word-clusters';
export const CLUSTERS_PATH = new URL('./clusters.json', import.meta.url);

/** clusters.json: one string per cluster, its words separated by spaces (built by scripts/build-word-clusters.ts). */
export interface ClustersFile {
	format: typeof CLUSTERS_FORMAT;
	version: 1;
	source: string;
	clusters: string[];
}

function loadClusters(): Map<string, number> {
	const file = JSON.parse(readFileSync(CLUSTERS_PATH, 'utf8')) as ClustersFile;
	if (file?.format !== CLUSTERS_FORMAT || file.version !== 1) throw new Error(`not a ${CLUSTERS_FORMAT} file (version 1)`);
	const clusters = new Map<string, number>();
	file.clusters.forEach((words, id) => {
		for (const word of words.split(' ')) if (word) clusters.set(word, id);
	});
	return clusters;
}

/** Read on the first message the model reads, not at import: the rules alone never need it. */
let clusters: Map<string, number> | undefined;

export function conceptsOf(word: string): number {
	const cached = conceptCache.get(word);
	if (cached !== undefined) return cached;
	let mask = CONCEPTS.words.get(word) ?? 0;
	for (let length = Math.min(word.length, 14); length >= 2; length--) mask |= CONCEPTS.prefixes.get(word.slice(0, length)) ?? 0;
	if (conceptCache.size >= CONCEPT_CACHE_LIMIT) conceptCache.clear();
	conceptCache.set(word, mask);
	return mask;
}

/**
 * The words the model reads, from the rule screen's own tokens (leet decoded), elongation collapsed ("sooo" = "so"),
 * with their sentence and classes. A message longer than MODEL_MAX_WORDS is read as its first and last halves.
 */
export function modelWords(tokens: readonly Token[]): Word[] {
	const half = MODEL_MAX_WORDS / 2;
	const kept = tokens.length > MODEL_MAX_WORDS ? [...tokens.slice(0, half), ...tokens.slice(-half)] : tokens;
	const clusterOf = (clusters ??= loadClusters());
	return kept.map((token) => {
		const word = skeleton(token.word);
		return { text: word, sentence: token.sent, concepts: conceptsOf(word), cluster: clusterOf.get(word) ?? -1 };
	});
}

/**
 * Composition: each sentence's word classes alone, in pairs, and as one set ("self + wish + death", "other + preparation
 * + time", "past + harm"), so that new wording of a known combination scores like the wording the corpus had.
 */
function pushConceptFeatures(out: number[], mask: number): void {
	if (mask === 0) return;
	out.push(mix(SEED.concept, mask));
	for (let a = 0; a < CONCEPT_NAMES.length; a++) {
		if (!(mask & (1 << a))) continue;
		out.push(mix(mix(SEED.concept, 0xffff), a));
		for (let b = a + 1; b < CONCEPT_NAMES.length; b++) if (mask & (1 << b)) out.push(mix(mix(mix(SEED.concept, 0xfffe), a), b));
	}
}

function pushWordFeatures(out: number[], words: readonly Word[], from: number, to: number): void {
	let sentenceConcepts = 0;
	for (let i = from; i < to; i++) {
		sentenceConcepts |= words[i]!.concepts;
		if (i + 1 === to || words[i + 1]!.sentence !== words[i]!.sentence) {
			pushConceptFeatures(out, sentenceConcepts);
			sentenceConcepts = 0;
		}
		const word = words[i]!.text;
		const unigram = hashString(SEED.word, word);
		out.push(unigram);
		if (i + 1 < to && words[i + 1]!.sentence === words[i]!.sentence)
			out.push(hashString(mix(hashString(SEED.pair, word), SPACE), words[i + 1]!.text));
		pushClusterFeatures(out, words, i, to);
		for (const hash of charGrams(word)) out.push(hash);
	}
}

/**
 * A word's cluster, and its cluster beside the next word's: "hope this infection wins" reads like "hope this cancer
 * wins" although only one of them was in the corpus.
 */
function pushClusterFeatures(out: number[], words: readonly Word[], i: number, to: number): void {
	const cluster = words[i]!.cluster;
	if (cluster < 0) return;
	out.push(mix(SEED.cluster, cluster));
	const next = i + 1 < to && words[i + 1]!.sentence === words[i]!.sentence ? words[i + 1]!.cluster : -1;
	if (next >= 0) out.push(mix(mix(SEED.clusterPair, cluster), next));
}

const charGramCache = new Map<string, readonly number[]>();

/** The character n-grams of a word, hashed; words repeat, so each is worked out once (a bounded cache). */
function charGrams(word: string): readonly number[] {
	const cached = charGramCache.get(word);
	if (cached) return cached;
	const grams: number[] = [];
	if (word.length <= MAX_WORD_FOR_CHARS) {
		const padded = word.length + 2;
		const codeAt = (k: number): number => (k === 0 || k === padded - 1 ? BOUNDARY : word.charCodeAt(k - 1));
		for (const n of CHAR_GRAMS) {
			for (let start = 0; start + n <= padded; start++) {
				let hash = mix(SEED.chars, n);
				for (let k = start; k < start + n; k++) hash = mix(hash, codeAt(k));
				grams.push(hash);
			}
		}
	}
	if (charGramCache.size >= CONCEPT_CACHE_LIMIT) charGramCache.clear();
	charGramCache.set(word, grams);
	return grams;
}

/** What the rule screen found, as features: its level, categories, and each phrase or guard (ids only). */
export function ruleFeatures(assessment: Assessment | null): number[] {
	if (!assessment) return [];
	const out = [hashString(SEED.rule, `level:${assessment.level}`)];
	for (const category of assessment.categories) out.push(hashString(SEED.rule, `category:${category}`));
	if (assessment.thirdParty) out.push(hashString(SEED.rule, 'third-party'));
	for (const item of assessment.evidence) {
		out.push(hashString(SEED.rule, `evidence:${item}`));
		for (const guard of item.split(/[!~]/).slice(1)) out.push(hashString(SEED.rule, `guard:${guard}`));
	}
	return out;
}

/**
 * The feature sets to score: the whole message, then (for messages of more than `window` sentences) each run of
 * `window` sentences. Each set is sorted indices without repeats.
 */
/** Each sentence's features with the rule features, as sorted indices without repeats. */
function sentenceSets(words: readonly Word[], rules: readonly number[], bits: number): Uint32Array[] {
	const mask = (1 << bits) - 1;
	const sets: Uint32Array[] = [];
	for (let from = 0; from < words.length;) {
		let to = from + 1;
		while (to < words.length && words[to]!.sentence === words[from]!.sentence) to++;
		const part: number[] = [];
		pushWordFeatures(part, words, from, to);
		for (const hash of rules) part.push(hash);
		sets.push(uniqueSorted(part, mask));
		from = to;
	}
	if (sets.length === 0 && rules.length > 0) sets.push(uniqueSorted([...rules], mask));
	return sets;
}

function union(sets: readonly Uint32Array[]): Uint32Array {
	if (sets.length === 1) return sets[0]!;
	const all = new Uint32Array(sets.reduce((n, set) => n + set.length, 0));
	let n = 0;
	for (const set of sets) {
		all.set(set, n);
		n += set.length;
	}
	all.sort();
	let unique = 0;
	for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[unique++] = all[i]!;
	return all.subarray(0, unique);
}

function uniqueSorted(raw: readonly number[], mask: number): Uint32Array {
	const set = new Uint32Array(raw.length);
	for (let i = 0; i < raw.length; i++) set[i] = raw[i]! & mask;
	set.sort();
	let unique = 0;
	for (let i = 0; i < set.length; i++) if (i === 0 || set[i] !== set[i - 1]) set[unique++] = set[i]!;
	return set.subarray(0, unique);
}

/**
 * The same scores as `scoreSets(featureSets(...))`, without building each window: a window's sum is its sentences'
 * sums less what they share, so a long message costs one pass over its sentences.
 */
export function scoreWords(model: CrisisModel, words: readonly Word[], rules: readonly number[]): Scores {
	const sentences = sentenceSets(words, rules, model.bits);
	const whole = union(sentences);
	const scores = { risk: 0, high: 0, third: 0 } as Scores;
	// The message and, beyond two sentences, each window of two: as many scored sets as sentences.
	const windowed = model.window === 2 && sentences.length > 2;
	for (const head of HEADS) {
		const { weights, bias } = model.heads[head];
		let best = linearScore(weights, bias, whole);
		if (windowed) {
			const sums = sentences.map((set) => {
				let sum = 0;
				for (let i = 0; i < set.length; i++) sum += weights[set[i]!]!;
				return sum;
			});
			for (let s = 0; s + 1 < sentences.length; s++) {
				const a = sentences[s]!;
				const b = sentences[s + 1]!;
				let shared = 0;
				let sharedSum = 0;
				for (let i = 0, j = 0; i < a.length && j < b.length;) {
					if (a[i]! < b[j]!) i++;
					else if (a[i]! > b[j]!) j++;
					else {
						shared++;
						sharedSum += weights[a[i]!]!;
						i++;
						j++;
					}
				}
				const size = a.length + b.length - shared;
				if (size > 0) best = Math.max(best, bias + (sums[s]! + sums[s + 1]! - sharedSum) / Math.sqrt(size));
			}
		}
		scores[head] = sigmoid(penalised(model, head, best, windowed ? sentences.length : 1));
	}
	return scores;
}

export function featureSets(words: readonly Word[], rules: readonly number[], bits: number, window: number): Uint32Array[] {
	const mask = (1 << bits) - 1;
	const finish = (raw: number[]): Uint32Array => {
		const set = new Uint32Array(raw.length + rules.length);
		let n = 0;
		for (const hash of raw) set[n++] = hash & mask;
		for (const hash of rules) set[n++] = hash & mask;
		set.sort();
		let unique = 0;
		for (let i = 0; i < set.length; i++) if (i === 0 || set[i] !== set[i - 1]) set[unique++] = set[i]!;
		return set.subarray(0, unique);
	};
	// Every feature belongs to one sentence, so a window is the union of its sentences' features: computed once.
	const sentences: number[][] = [];
	for (let from = 0; from < words.length;) {
		let to = from + 1;
		while (to < words.length && words[to]!.sentence === words[from]!.sentence) to++;
		const part: number[] = [];
		pushWordFeatures(part, words, from, to);
		sentences.push(part);
		from = to;
	}
	const sets = [finish(sentences.flat())];
	if (window > 0 && sentences.length > window) {
		for (let s = 0; s + window <= sentences.length; s++) sets.push(finish(sentences.slice(s, s + window).flat()));
	}
	return sets;
}

// ---- Scoring ------------------------------------------------------------------------------------------------------

/** The raw score of one feature set: features are scaled by 1/sqrt(count) so long and short texts compare. */
export function linearScore(weights: Float32Array, bias: number, features: Uint32Array): number {
	let sum = 0;
	for (let i = 0; i < features.length; i++) sum += weights[features[i]!]!;
	return bias + (features.length > 0 ? sum / Math.sqrt(features.length) : 0);
}

export function sigmoid(z: number): number {
	return 1 / (1 + Math.exp(-z));
}

/** A head's best raw score over `count` scored sets, less the risk head's window penalty (see `windowPenalty`). */
function penalised(model: CrisisModel, head: Head, best: number, count: number): number {
	return head === 'risk' ? best - model.windowPenalty * Math.log(count) : best;
}

/** One head's probability: the highest over the message and its windows (less the risk head's window penalty). */
export function headScore(model: CrisisModel, head: Head, sets: readonly Uint32Array[]): number {
	const { weights, bias } = model.heads[head];
	let best = -Infinity;
	for (const set of sets) best = Math.max(best, linearScore(weights, bias, set));
	return sigmoid(penalised(model, head, best, sets.length));
}

/** Each head's probability. */
export function scoreSets(model: CrisisModel, sets: readonly Uint32Array[]): Scores {
	const scores = { risk: 0, high: 0, third: 0 } as Scores;
	for (const head of HEADS) scores[head] = headScore(model, head, sets);
	return scores;
}

/**
 * The model reads at most this many words: the first and the last half of a longer message (the rules read it all).
 * It keeps the worst case of a 4,000-character message within the screen's time budget.
 */
export const MODEL_MAX_WORDS = 160;

/**
 * The model reads messages of at least this many different words. On one or two its evidence is a single feature or
 * two ("oxygen" scored as a crisis because it stands in "taking up space and oxygen"; "na na na … n" repeated 27 times
 * once scored above the threshold), and no labelled message that short is found by the model alone: the rules read
 * them.
 */
export const MODEL_MIN_WORDS = 3;

/** Too few different words for the model: the rules alone read the message. */
export function tooFewWordsForModel(words: readonly Word[]): boolean {
	if (words.length < MODEL_MIN_WORDS) return true;
	const seen = new Set<string>();
	for (const word of words) {
		seen.add(word.text);
		if (seen.size >= MODEL_MIN_WORDS) return false;
	}
	return true;
}

/**
 * A risk score below which the model lowers the rules' `concern` (never `high` or `imminent`) to none: "kill me now, my
 * in-laws are staying for three weeks", "avant je pensais à mourir tous les jours, c'est fini". On the held-out batches,
 * each scored by a model that never saw it, every message lowered this way was a negative.
 */
export const CONCERN_VETO = 0.1;

/** Whether the model lowers the rules' level to none (see CONCERN_VETO). */
export function concernVetoed(level: string, risk: number): boolean {
	return level === 'concern' && risk < CONCERN_VETO;
}

// ---- The data file ------------------------------------------------------------------------------------------------

/**
 * `model.json`: the non-zero weights only. `index` holds the feature indices as base64 of unsigned LEB128 deltas;
 * each head's `weights` holds int16 values (base64, little-endian) that times `scale` give the weight.
 */
export interface ModelFile {
	format: typeof MODEL_FORMAT;
	version: 1;
	bits: number;
	window: number;
	/** Absent in files written before it existed: 0. */
	windowPenalty?: number;
	trainedOn: string[];
	index: string;
	heads: Record<Head, { bias: number; threshold: number; scale: number; weights: string }>;
}

export function encodeModel(model: CrisisModel, minWeight = 1e-4): ModelFile {
	const size = 1 << model.bits;
	const kept: number[] = [];
	for (let i = 0; i < size; i++) if (HEADS.some((head) => Math.abs(model.heads[head].weights[i]!) >= minWeight)) kept.push(i);
	const index: number[] = [];
	let previous = 0;
	for (const i of kept) {
		let delta = i - previous;
		previous = i;
		do {
			const byte = delta & 0x7f;
			delta >>>= 7;
			index.push(delta > 0 ? byte | 0x80 : byte);
		} while (delta > 0);
	}
	const heads = {} as ModelFile['heads'];
	for (const head of HEADS) {
		const { weights, bias, threshold } = model.heads[head];
		let largest = 0;
		for (const i of kept) largest = Math.max(largest, Math.abs(weights[i]!));
		const scale = largest > 0 ? largest / 32767 : 1;
		const quantised = new Int16Array(kept.length);
		kept.forEach((i, k) => (quantised[k] = Math.round(weights[i]! / scale)));
		heads[head] = { bias, threshold, scale, weights: Buffer.from(quantised.buffer).toString('base64') };
	}
	return {
		format: MODEL_FORMAT,
		version: 1,
		bits: model.bits,
		window: model.window,
		windowPenalty: model.windowPenalty,
		trainedOn: model.trainedOn,
		index: Buffer.from(index).toString('base64'),
		heads,
	};
}

export function decodeModel(file: ModelFile): CrisisModel {
	if (file?.format !== MODEL_FORMAT || file.version !== 1) throw new Error(`not a ${MODEL_FORMAT} file (version 1)`);
	const size = 1 << file.bits;
	const bytes = Buffer.from(file.index, 'base64');
	const kept: number[] = [];
	let position = 0;
	for (let k = 0; k < bytes.length;) {
		let delta = 0;
		let shift = 0;
		let byte: number;
		do {
			byte = bytes[k++]!;
			delta += (byte & 0x7f) * 2 ** shift;
			shift += 7;
		} while (byte & 0x80);
		position += delta;
		if (position >= size) throw new Error('model index out of range');
		kept.push(position);
	}
	const heads = {} as Record<Head, ModelHead>;
	for (const head of HEADS) {
		const spec = file.heads[head];
		const raw = Buffer.from(spec.weights, 'base64');
		if (raw.length !== kept.length * 2) throw new Error(`model head ${head}: ${raw.length / 2} weights for ${kept.length} features`);
		const weights = new Float32Array(size);
		kept.forEach((i, k) => (weights[i] = raw.readInt16LE(k * 2) * spec.scale));
		heads[head] = { bias: spec.bias, threshold: spec.threshold, weights };
	}
	return { bits: file.bits, window: file.window, windowPenalty: file.windowPenalty ?? 0, heads, trainedOn: file.trainedOn };
}

export const MODEL_PATH = new URL('./model.json', import.meta.url);

let shipped: CrisisModel | undefined;

/** The model shipped with Haven, read once. */
export function loadModel(): CrisisModel {
	shipped ??= decodeModel(JSON.parse(readFileSync(MODEL_PATH, 'utf8')) as ModelFile);
	return shipped;
}
