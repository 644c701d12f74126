import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEVELS, levelRank, screen } from '../../src/lib/crisis/screen.ts';
import { ADVERSARIAL } from './adversarial.ts';

// What the screen does with hostile 4,000-character inputs. How long it takes (a target of 1 ms for the fastest run
// of each, 0.25 ms a message on the corpus) is measured by bench/screen.ts, not here: on a shared machine a wall-clock
// assertion measures the wait for a core as much as the screen.

/** Inputs with no crisis words in any reading: noise must not raise an alarm. */
const NOISE = ['one letter repeated', 'one symbol repeated', 'exclamation marks', 'common word', 'random words', 'emoji', 'punctuation'];
/** Inputs that repeat an explicit statement of intent: repetition must not hide it. */
const EXPLICIT = ['full phrases', 'phrases with sentences', 'means and times', 'long intent run-on'];

describe('adversarial 4,000-character inputs', () => {
	test('each screens to a level without throwing', () => {
		for (const [name, text] of Object.entries(ADVERSARIAL)) {
			assert.ok(text.length >= 4000, name);
			const assessment = screen(text);
			assert.ok(LEVELS.includes(assessment.level), `${name}: ${assessment.level}`);
		}
	});

	test('noise screens to none; a repeated statement of intent to high or more', () => {
		for (const name of NOISE) assert.equal(screen(ADVERSARIAL[name]!).level, 'none', name);
		for (const name of EXPLICIT) assert.ok(levelRank(screen(ADVERSARIAL[name]!).level) >= levelRank('high'), name);
	});

	test('still finds the crisis hidden at the end of a long adversarial message', () => {
		for (const [name, text] of Object.entries(ADVERSARIAL)) {
			const a = screen(`${text}\nI am going to kill myself tonight`);
			assert.equal(a.level, 'imminent', name);
		}
	});
});
