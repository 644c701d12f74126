import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { screen } from '../../src/lib/crisis/screen.ts';
import { ADVERSARIAL } from './adversarial.ts';

// The screen is meant to take around a millisecond or less on these inputs. The assertion leaves room for slow
// machines and the figures are printed, so a regression shows long before it fails. It checks the fastest of several
// runs after warming up the JIT: CI runs suites in parallel on two cores, and there the median and the maximum mostly
// measure how long the process waited for a core (both are printed); a real regression (say a quadratic step) raises
// every run, the fastest included.
const LIMIT_MS = 5;
const RUNS = 7;

describe('adversarial 4,000-character inputs', () => {
	it(`each screens in under ${LIMIT_MS} ms (fastest of ${RUNS} runs)`, () => {
		const inputs = Object.entries(ADVERSARIAL);
		for (let round = 0; round < 5; round++) for (const [, text] of inputs) screen(text);
		const rows = inputs.map(([name, text]) => {
			assert.ok(text.length >= 4000, name);
			const times: number[] = [];
			for (let i = 0; i < RUNS; i++) {
				const start = performance.now();
				screen(text);
				times.push(performance.now() - start);
			}
			times.sort((a, b) => a - b);
			return { name, min: times[0]!, median: times[RUNS >> 1]!, max: times[RUNS - 1]! };
		});
		rows.sort((a, b) => b.median - a.median);
		const ms = (n: number): string => `${n.toFixed(3).padStart(7)} ms`;
		console.log(`  ${'input'.padEnd(24)}       min     median        max\n${rows.map((r) => `  ${r.name.padEnd(24)} ${ms(r.min)} ${ms(r.median)} ${ms(r.max)}`).join('\n')}`);
		for (const r of rows) assert.ok(r.min < LIMIT_MS, `${r.name}: ${r.min.toFixed(3)} ms at best`);
	});

	it('still finds the crisis hidden at the end of a long adversarial message', () => {
		for (const [name, text] of Object.entries(ADVERSARIAL)) {
			const a = screen(`${text}\nI am going to kill myself tonight`);
			assert.equal(a.level, 'imminent', name);
		}
	});
});
