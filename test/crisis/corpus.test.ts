import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluate, formatReport, isCorrect, loadCorpus, THRESHOLDS } from '../../src/lib/crisis/eval.ts';

const corpus = loadCorpus();

describe('evaluation corpus', () => {
	test('is large and covers every group and language, positives and negatives', () => {
		assert.ok(corpus.length >= 300, `${corpus.length} messages`);
		const groups = new Set(corpus.map((e) => e.group));
		for (const g of [
			'explicit',
			'indirect',
			'self_harm',
			'plan',
			'third_party',
			'algospeak',
			'multilingual',
			'idiom',
			'tech',
			'gaming',
			'fiction_news',
			'recovery',
			'helping',
			'sadness',
			'grief',
		]) {
			assert.ok(groups.has(g), `group ${g}`);
		}
		for (const lang of ['en', 'es', 'fr', 'de', 'pt', 'it']) {
			assert.ok(
				corpus.some((e) => e.lang === lang && e.expected !== 'none'),
				`${lang} positives`,
			);
			assert.ok(
				corpus.some((e) => e.lang === lang && e.expected === 'none'),
				`${lang} negatives`,
			);
		}
		assert.equal(new Set(corpus.map((e) => e.text)).size, corpus.length, 'no duplicate messages');
	});

	test('meets the thresholds', () => {
		const report = evaluate(corpus);
		console.log(formatReport(report, { misses: true }));
		assert.ok(report.explicit.recall >= THRESHOLDS.explicitRecall, `explicit-intent recall ${report.explicit.recall}`);
		assert.ok(report.fpRate <= THRESHOLDS.fpRate, `false-positive rate ${report.fpRate}`);
		assert.equal(report.pass, true);
	});

	test('applies the rule: explicit positives need high, others any level, negatives none', () => {
		assert.equal(isCorrect('high', 'concern'), false);
		assert.equal(isCorrect('imminent', 'high'), true);
		assert.equal(isCorrect('concern', 'concern'), true);
		assert.equal(isCorrect('concern', 'none'), false);
		assert.equal(isCorrect('none', 'concern'), false);
		const report = evaluate(
			[
				{ text: 'a', expected: 'high', group: 'g', lang: 'en' },
				{ text: 'b', expected: 'none', group: 'g', lang: 'en' },
			],
			(t) => ({ level: t === 'a' ? 'concern' : 'high', categories: [], thirdParty: false, language: [], evidence: [] }),
		);
		assert.equal(report.explicit.recall, 0);
		assert.equal(report.fpRate, 1);
		assert.equal(report.pass, false);
	});
});
