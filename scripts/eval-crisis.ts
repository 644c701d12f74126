/**
 * Evaluates the crisis screen.
 *   node scripts/eval-crisis.ts [--misses] [--json] [corpus.jsonl]
 *
 * First the guarded corpus (test/crisis/corpus.jsonl): per-group recall, false-positive rate, explicit-intent recall;
 * exits 1 when explicit-intent recall < 0.98 or the false-positive rate > 0.05 (rule in src/lib/crisis/eval.ts).
 * Then, by kind of message, every training file together and every held-out batch on its own, each marked with
 * whether the shipped model was trained on it (a batch's honest figure is the one recorded in the crisis README
 * when it was scored once, before it was trained on), then the minimal pairs (never trained on).
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
	corpusFiles,
	evaluate,
	formatKindReport,
	formatReport,
	heldOutFiles,
	pairFiles,
	kindReport,
	loadCorpus,
	loadCorpusFiles,
} from '../src/lib/crisis/eval.ts';
import { loadModel } from '../src/lib/crisis/model.ts';

const args = process.argv.slice(2);
const path = args.find((a) => !a.startsWith('--'));
const report = evaluate(loadCorpus(path));
if (args.includes('--json')) {
	console.log(JSON.stringify(report, null, 2));
} else {
	console.log(formatReport(report, { misses: args.includes('--misses') }));
	if (!path) {
		const root = fileURLToPath(new URL('..', import.meta.url));
		const trainedOn = new Set(loadModel().trainedOn);
		const name = (file: URL) => relative(root, fileURLToPath(file));
		const training = corpusFiles({ heldOutToo: false }).slice(1);
		console.log(
			'\n' + formatKindReport(`Training files (${training.length}; the model was trained on them)`, kindReport(loadCorpusFiles(training))),
		);
		for (const file of heldOutFiles()) {
			const status = trainedOn.has(name(file)) ? 'trained on since it was scored' : 'held out: not trained on';
			console.log('\n' + formatKindReport(`${name(file)} (${status})`, kindReport(loadCorpus(file))));
		}
		for (const file of pairFiles())
			console.log('\n' + formatKindReport(`${name(file)} (minimal pairs: never trained on)`, kindReport(loadCorpus(file))));
	}
}
process.exitCode = report.pass ? 0 : 1;
