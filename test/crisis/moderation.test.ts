import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { levelRank, mergeModeration, screen, type Assessment, type CrisisLevel } from '../../src/lib/crisis/screen.ts';

const base = (level: CrisisLevel, extra: Partial<Assessment> = {}): Assessment => ({
	level,
	categories: [],
	thirdParty: false,
	language: [],
	evidence: [],
	...extra,
});
const scores = (selfHarm: number, selfHarmIntent: number, selfHarmInstructions = 0) => ({ selfHarm, selfHarmIntent, selfHarmInstructions });

describe('mergeModeration', () => {
	test('never lowers the level', () => {
		fc.assert(
			fc.property(
				fc.constantFrom<CrisisLevel>('none', 'concern', 'high', 'imminent'),
				fc.double({ min: -1, max: 2, noNaN: false }),
				fc.double({ min: -1, max: 2, noNaN: false }),
				fc.double({ min: -1, max: 2, noNaN: false }),
				fc.boolean(),
				(level, a, b, c, thirdParty) => {
					const merged = mergeModeration(base(level, { thirdParty, categories: thirdParty ? ['third_party'] : [] }), scores(a, b, c));
					assert.ok(levelRank(merged.level) >= levelRank(level));
					assert.notEqual(merged.level === 'imminent' && level !== 'imminent', true, 'moderation alone never makes it imminent');
				},
			),
		);
	});

	test('a failed moderation call changes nothing', () => {
		const a = screen('I want to die');
		assert.equal(mergeModeration(a, null), a);
	});

	test('cannot hide an explicit signal', () => {
		const a = screen('I want to kill myself tonight');
		assert.equal(mergeModeration(a, scores(0, 0, 0)).level, 'imminent');
	});

	test('raises on high scores', () => {
		assert.equal(mergeModeration(base('none'), scores(0.2, 0.95)).level, 'high');
		assert.equal(mergeModeration(base('none'), scores(0.5, 0.1)).level, 'concern');
		assert.equal(mergeModeration(base('concern'), scores(0.95, 0.1)).level, 'high');
		assert.equal(mergeModeration(base('none'), scores(0.01, 0.01, 0.01)).level, 'none');
		assert.ok(mergeModeration(base('none'), scores(0.2, 0.95)).evidence.includes('moderation:high'));
	});

	test('keeps worry about someone else at concern', () => {
		const a = screen('my friend says she wants to kill herself');
		assert.equal(mergeModeration(a, scores(0.9, 0.95)).level, 'concern');
	});
});
