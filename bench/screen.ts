/**
 * Crisis screen benchmark: throughput on a realistic mix (the evaluation corpus, repeated) and the times on the
 * adversarial 4,000-character inputs of the test suite, each with its ratio to its target.
 *   node bench/screen.ts [seconds per measurement, default 2]
 * On a shared machine the averages mostly measure how long the process waited for a core: the best pass over the mix
 * and the minimum per input are the figures to compare between versions (the load average is printed with them), and
 * the ones the targets apply to.
 *
 * Targets. A message takes tens of microseconds: the best pass over the mix should stay under 0.25 ms a message. The
 * worst adversarial input takes about 0.4 ms on a slow core: the fastest run of each should stay under 1 ms. With
 * three processes sharing two slow cores the worst fastest run was 0.66 ms (the cores' caches are shared too), so 1 ms
 * holds there and is crossed by what matters, the screen no longer being well under a millisecond (a quadratic step,
 * a search repeated per phrase that used to be remembered, raises every run, the fastest included).
 */
import { loadavg } from 'node:os';
import { loadCorpus } from '../src/lib/crisis/eval.ts';
import { loadLexicons, screen } from '../src/lib/crisis/screen.ts';
import { ADVERSARIAL } from '../test/crisis/adversarial.ts';

const MIX_TARGET_MS = 0.25;
const ADVERSARIAL_TARGET_MS = 1;

const seconds = Number(process.argv[2] ?? 2) || 2;
/** `0.42x target`, and `OVER TARGET` past it. */
const ratio = (ms: number, target: number): string => `${(ms / target).toFixed(2)}x target${ms >= target ? ' OVER TARGET' : ''}`;
const load = (): string =>
	loadavg()
		.map((n) => n.toFixed(2))
		.join(' ');
console.log(`load average: ${load()} (1, 5, 15 min)`);

const compileStart = performance.now();
const { languages, phrases } = loadLexicons();
console.log(`lexicons: ${languages.join(', ')} (${phrases} patterns), compiled in ${(performance.now() - compileStart).toFixed(1)} ms`);

// A loop the JIT cannot remove, as a yardstick for how fast this machine is right now.
let sink = 0;
const calibrationStart = performance.now();
for (let i = 0; i < 1e7; i++) sink = (sink * 31 + i) | 0;
console.log(`calibration: 10M integer steps in ${(performance.now() - calibrationStart).toFixed(1)} ms (machine speed reference)`);

const texts = loadCorpus().map((e) => e.text);
const chars = texts.reduce((n, t) => n + t.length, 0);
for (let round = 0; round < 20; round++) for (const t of texts) screen(t);
let messages = 0;
let bestPass = Infinity;
const start = performance.now();
while (performance.now() - start < seconds * 1000) {
	const t0 = performance.now();
	for (const t of texts) screen(t);
	bestPass = Math.min(bestPass, performance.now() - t0);
	messages += texts.length;
}
const elapsed = (performance.now() - start) / 1000;
console.log(
	`realistic mix: ${texts.length} corpus messages (mean ${Math.round(chars / texts.length)} chars), ` +
		`${Math.round(messages / elapsed).toLocaleString('en')} messages/s, ${((elapsed / messages) * 1e6).toFixed(1)} µs/message ` +
		`(best pass ${((bestPass / texts.length) * 1000).toFixed(1)} µs/message, ${Math.round((texts.length / bestPass) * 1000).toLocaleString('en')} messages/s)`,
);
console.log(`  best pass against its target of ${MIX_TARGET_MS * 1000} µs/message: ${ratio(bestPass / texts.length, MIX_TARGET_MS)}`);

const rows: { name: string; min: number; median: number; max: number }[] = [];
const inputs = Object.entries(ADVERSARIAL);
for (let round = 0; round < 5; round++) for (const [, text] of inputs) screen(text);
for (const [name, text] of inputs) {
	const times: number[] = [];
	const until = performance.now() + (seconds * 1000) / inputs.length;
	while (performance.now() < until || times.length < 5) {
		const t0 = performance.now();
		screen(text);
		times.push(performance.now() - t0);
	}
	times.sort((a, b) => a - b);
	rows.push({ name, min: times[0]!, median: times[times.length >> 1]!, max: times.at(-1)! });
}
rows.sort((a, b) => b.median - a.median);
const ms = (n: number): string => `${n.toFixed(3).padStart(7)} ms`;
console.log(
	`adversarial 4,000-character inputs (target: min under ${ADVERSARIAL_TARGET_MS} ms):\n  ${'input'.padEnd(26)}       min     median        max  min/target`,
);
for (const r of rows) console.log(`  ${r.name.padEnd(26)} ${ms(r.min)} ${ms(r.median)} ${ms(r.max)}  ${ratio(r.min, ADVERSARIAL_TARGET_MS)}`);
const worstMin = rows.reduce((a, b) => (b.min > a.min ? b : a));
console.log(
	`worst min ${worstMin.min.toFixed(3)} ms (${worstMin.name}); worst median ${rows[0]!.median.toFixed(3)} ms (${rows[0]!.name}); ` +
		`worst single run ${Math.max(...rows.map((r) => r.max)).toFixed(3)} ms`,
);
console.log(`  worst min against its target of ${ADVERSARIAL_TARGET_MS} ms: ${ratio(worstMin.min, ADVERSARIAL_TARGET_MS)}`);
console.log(`load average: ${load()}`);
if (sink === 42) console.log('');
