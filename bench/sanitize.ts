import { sanitizeReply } from '../src/lib/ai/sanitize.ts';

/**
 * `sanitizeReply` on hostile model output: 100,000 characters of digit runs with phone separators and a "call" with no
 * number after it, the shape that makes a backtracking pattern quadratic. Target: under 500 ms, the fastest of a few
 * runs (a linear pass takes a few ms; a quadratic one takes seconds). Run: node bench/sanitize.ts
 */

const TARGET_MS = 500;
const RUNS = 10;
const hostile = '1 '.repeat(20_000) + 'x' + '1-'.repeat(20_000) + 'call ' + 'a'.repeat(20_000);

sanitizeReply(hostile, 100_000); // warm-up
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
	const started = performance.now();
	sanitizeReply(hostile, 100_000);
	times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const best = times[0]!;
console.log(
	`sanitizeReply, ${hostile.length.toLocaleString('en')} hostile characters: best ${best.toFixed(2)} ms, median ${times[RUNS >> 1]!.toFixed(2)} ms ` +
		`(${RUNS} runs); ${(best / TARGET_MS).toFixed(3)}x its target of ${TARGET_MS} ms${best >= TARGET_MS ? ' OVER TARGET' : ''}`,
);
