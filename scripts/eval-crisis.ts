/**
 * Evaluates the crisis screen on test/crisis/corpus.jsonl: per-group recall, false-positive rate, explicit-intent recall.
 * Exits 1 when explicit-intent recall < 0.98 or the false-positive rate > 0.05 (rule in src/lib/crisis/eval.ts).
 *   node scripts/eval-crisis.ts [--misses] [--json] [corpus.jsonl]
 */
import { evaluate, formatReport, loadCorpus } from '../src/lib/crisis/eval.ts';

const args = process.argv.slice(2);
const path = args.find((a) => !a.startsWith('--'));
const report = evaluate(loadCorpus(path));
if (args.includes('--json')) {
	console.log(JSON.stringify(report, null, 2));
} else {
	console.log(formatReport(report, { misses: args.includes('--misses') }));
}
process.exitCode = report.pass ? 0 : 1;
