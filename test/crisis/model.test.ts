import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { corpusFiles, heldOutFiles, kindReport, loadCorpusFiles } from '../../src/lib/crisis/eval.ts';
import { decodeModel, encodeModel, featureSets, HEADS, loadModel, scoreSets, scoreWords, tooFewWordsForModel } from '../../src/lib/crisis/model.ts';
import { modelInput, screen, screenRules, withModel } from '../../src/lib/crisis/screen.ts';
import { levelRank } from '../../src/lib/crisis/types.ts';

const model = loadModel();

describe('crisis model', () => {
	test('the shipped file decodes, and encoding it again gives the same weights', () => {
		assert.ok(model.trainedOn.includes('test/crisis/corpus.jsonl'));
		const again = decodeModel(encodeModel(model));
		for (const head of HEADS) {
			assert.equal(again.heads[head].bias, model.heads[head].bias);
			let worst = 0;
			for (let i = 0; i < model.heads[head].weights.length; i++)
				worst = Math.max(worst, Math.abs(again.heads[head].weights[i]! - model.heads[head].weights[i]!));
			assert.ok(worst < 1e-6, `${head}: weights differ by ${worst}`);
		}
		assert.throws(() => decodeModel({ ...encodeModel(model), format: 'other' } as never), /haven-crisis-model/);
	});

	test('the fast scorer gives exactly the scores of the per-window feature sets it stands for', () => {
		const entries = loadCorpusFiles(corpusFiles({ heldOutToo: true })).filter((_, i) => i % 7 === 0);
		for (const { text } of entries) {
			const input = modelInput(text);
			const rules = input.features;
			const words = input.words;
			const slow = scoreSets(model, featureSets(words, rules, model.bits, model.window));
			const fast = scoreWords(model, words, rules);
			for (const head of HEADS) assert.ok(Math.abs(slow[head] - fast[head]) < 1e-9, `${head} differs for a corpus message`);
		}
	});

	test('the model raises (never to imminent) and never lowers high or imminent; someone else in danger is raised as far as the high head says', () => {
		const heads = model.heads;
		const rulesHigh = screenRules('I want to kill myself');
		assert.equal(withModel(rulesHigh, { risk: 0, high: 0, third: 0 }, { heads }).level, 'high');
		const nothing = screenRules('the garden looks lovely');
		assert.equal(withModel(nothing, { risk: 0.1, high: 0.1, third: 0 }, { heads }).level, 'none');
		const raised = withModel(nothing, { risk: 1, high: 1, third: 0 }, { heads });
		assert.equal(raised.level, 'high');
		assert.ok(raised.evidence.includes('model:high'));
		const concern = withModel(nothing, { risk: 1, high: 0, third: 0 }, { heads });
		assert.equal(concern.level, 'concern');
		assert.deepEqual(concern.categories, ['indirect_ideation']);
		const other = withModel(nothing, { risk: 1, high: 1, third: 1 }, { heads });
		assert.equal(other.level, 'high');
		assert.equal(other.thirdParty, true);
		assert.deepEqual(other.categories, ['third_party']);
		const worry = withModel(nothing, { risk: 1, high: 0, third: 1 }, { heads });
		assert.equal(worry.level, 'concern');
		assert.equal(worry.thirdParty, true);
		const imminent = screenRules('I have the pills right here and I am going to take them all tonight');
		assert.equal(withModel(imminent, { risk: 1, high: 1, third: 0 }, { heads }).level, 'imminent');
		assert.equal(withModel(imminent, { risk: 0, high: 0, third: 0 }, { heads }).level, 'imminent');
	});

	test('the model lowers only a concern it is nearly sure is no crisis, and the screen reads hyperbole that way', () => {
		const heads = model.heads;
		const concern = screenRules('kill me now, my in-laws are staying for three weeks');
		assert.equal(concern.level, 'concern');
		assert.equal(withModel(concern, { risk: 0.01, high: 0, third: 0 }, { heads }).level, 'none');
		assert.ok(withModel(concern, { risk: 0.01, high: 0, third: 0 }, { heads }).evidence.includes('model:none'));
		assert.equal(withModel(concern, { risk: 0.5, high: 0, third: 0 }, { heads }).level, 'concern');
		assert.equal(screen('kill me now, my in-laws are staying for three weeks').level, 'none');
		assert.equal(screen('honestly i just hope i dont wake up tomorrow').level, 'concern');
	});

	test('a word the corpus never had is read by its cluster: words that mean alike share one', () => {
		const corpusWords = new Set(
			loadCorpusFiles(corpusFiles({ heldOutToo: true })).flatMap((entry) => modelInput(entry.text).words.map((w) => w.text)),
		);
		const cluster = (word: string) => modelInput(word).words[0]!.cluster;
		assert.ok(
			!corpusWords.has('tuberculosis') && !corpusWords.has('handguns') && corpusWords.has('infection'),
			'the test words still fit the corpus',
		);
		assert.ok(cluster('infection') >= 0);
		assert.equal(cluster('tuberculosis'), cluster('infection'));
		assert.equal(cluster('handguns'), cluster('gun'));
		assert.notEqual(cluster('tuberculosis'), cluster('gun'));
		assert.equal(cluster('qwzxv'), -1, 'a word no cluster holds');
	});

	test('the same text always screens the same, and evidence holds ids, never words', () => {
		const text = 'wrote letters for my mum and my sister and put them in the drawer, they will find them';
		const first = screen(text);
		assert.deepEqual(screen(text), first);
		for (const item of first.evidence) assert.doesNotMatch(item, /letters|drawer|sister/);
	});

	test('every kind of message is found on the labelled files it learned from, and negatives stay rare', () => {
		const report = kindReport(loadCorpusFiles([...corpusFiles({ heldOutToo: false }).slice(1), ...heldOutFiles()]));
		const found = Object.fromEntries(report.rows.filter((r) => r.positives > 0).map((r) => [r.kind, r.found / r.positives]));
		for (const kind of ['explicit', 'passive', 'preparation', 'self_harm', 'slang', 'third_party']) {
			assert.ok(found[kind]! >= 0.75, `${kind}: ${found[kind]}`);
		}
		assert.ok(report.otherLanguages.found / report.otherLanguages.positives >= 0.8);
		assert.ok(report.negatives.falsePositives / report.negatives.negatives <= 0.07);
	});

	test('passive ideation and current self-harm reach at least concern; a past story and a game do not', () => {
		for (const text of [
			'honestly i just hope i dont wake up tomorrow',
			'everyone would be better off if i was gone',
			'cut again last night, my arm is a mess and i cant stop',
			'i burned myself with a lighter again tonight',
		]) {
			assert.ok(levelRank(screen(text).level) >= levelRank('concern'), 'a crisis message reached no level');
		}
		for (const text of ['died to the final boss like 20 times lol', 'this homework is killing me']) assert.equal(screen(text).level, 'none');
	});

	test('a message of fewer than three different words is left to the rules, however long', () => {
		// Two words repeated 27 times once scored above the threshold: the model's evidence there is one or two features.
		const junk = '\u0001na'.repeat(27) + '\u0001n';
		assert.ok(modelInput(junk).words.length > 20);
		assert.equal(tooFewWordsForModel(modelInput(junk).words), true);
		assert.equal(tooFewWordsForModel(modelInput('i want out').words), false);
		assert.equal(screen(junk).level, 'none');
		assert.equal(screen('kms kms kms kms').level, screenRules('kms kms kms kms').level);
	});
});
