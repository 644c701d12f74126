import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileLexicons, findMarkers, findMatches, findSignals, prepare, type CompiledLexicon } from '../../src/lib/crisis/engine.ts';
import { loadCorpus } from '../../src/lib/crisis/eval.ts';
import { LEXICONS } from '../../src/lib/crisis/lexicon/index.ts';
import { ADVERSARIAL } from './adversarial.ts';

const lexicon = (signals: unknown[], extra: Record<string, unknown> = {}) => ({
	lang: 'xx',
	classes: { ME: ['myself', 'my self'] },
	signals,
	...extra,
});
const ids = (c: ReturnType<typeof compileLexicons>, text: string) =>
	findMatches(c, prepare(c, text)).map((m) => `${m.phrase.id}@${m.start}-${m.end}`);
const withGaps = (c: ReturnType<typeof compileLexicons>, text: string) =>
	findMatches(c, prepare(c, text)).map((m) => `${m.phrase.id}@${m.start}-${m.end}[${m.gaps.join(',')}]`);

/**
 * Freezes every object and array reachable from `root`; a Map or Set also has its mutators replaced by ones that throw
 * (freezing does not reach their entries). Typed arrays cannot be frozen: the returned function tells whether they still
 * hold what they held.
 */
function deepFreeze(root: object): () => boolean {
	const seen = new Set<object>();
	const typed: [ArrayBufferView, Uint8Array][] = [];
	const bytes = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
	const lock = (target: object, methods: string[]) => {
		for (const method of methods) {
			Object.defineProperty(target, method, {
				value: () => {
					throw new TypeError(`${method} on a frozen lexicon`);
				},
			});
		}
	};
	const visit = (value: unknown): void => {
		if (typeof value !== 'object' || value === null || seen.has(value)) return;
		seen.add(value);
		if (ArrayBuffer.isView(value)) {
			typed.push([value, bytes(value).slice()]);
			return;
		}
		if (value instanceof Map) {
			for (const [key, entry] of value) {
				visit(key);
				visit(entry);
			}
			lock(value, ['set', 'delete', 'clear']);
		} else if (value instanceof Set) {
			for (const entry of value) visit(entry);
			lock(value, ['add', 'delete', 'clear']);
		}
		for (const key of Reflect.ownKeys(value)) visit((value as Record<PropertyKey, unknown>)[key]);
		Object.freeze(value);
	};
	visit(root);
	return () => typed.every(([view, copy]) => Buffer.compare(bytes(view), copy) === 0);
}

const everyMessage = (): string[] => [
	...loadCorpus().map((e) => e.text),
	...Object.values(ADVERSARIAL),
	...Object.values(ADVERSARIAL).map((text) => `${text}\nI am going to kill myself tonight`),
];
const described = (matches: ReturnType<typeof findMatches>) => matches.map((m) => `${m.phrase.id}@${m.start}-${m.end}[${m.gaps.join(',')}]`);

describe('the phrase engine', () => {
	test('matches words, alternatives, classes, optional words, gaps and prefixes', () => {
		const c = compileLexicons([
			lexicon([
				{ id: 'a', cat: 'suicidal_ideation', level: 'high', p: ['hurt @ME', 'end/finish it (all|now)?', 'want ~2 gone', 'think* about it'] },
			]),
		]);
		assert.deepEqual(ids(c, 'i hurt myself'), ['xx.a@1-3']);
		assert.deepEqual(ids(c, 'hurt my self'), ['xx.a@0-3']);
		assert.deepEqual(ids(c, 'finish it all'), ['xx.a@0-3']);
		assert.deepEqual(ids(c, 'end it'), ['xx.a@0-2']);
		assert.deepEqual(ids(c, 'want to be gone'), ['xx.a@0-4']);
		assert.deepEqual(ids(c, 'want to really be gone'), []);
		assert.deepEqual(ids(c, 'thinking about it'), ['xx.a@0-3']);
		assert.deepEqual(ids(c, 'want to. be gone'), [], 'gaps stay inside a sentence');
	});

	test('"^word" matches the word only first in its clause', () => {
		const c = compileLexicons([lexicon([{ id: 'w', cat: 'suicidal_ideation', level: 'high', p: ['^will take them'] }])]);
		assert.deepEqual(ids(c, 'have the pills, will take them'), ['xx.w@3-6']);
		assert.deepEqual(ids(c, 'will take them'), ['xx.w@0-3']);
		assert.deepEqual(ids(c, 'she will take them'), []);
		assert.throws(() => compileLexicons([lexicon([{ id: 'w', cat: 'distress', level: 'concern', p: ['^abc* x'] }])]), /"\^" and "\*"/);
	});

	test('finds the first match in lexicon order: options in order, a class of classes as its options in order', () => {
		const c = compileLexicons([
			lexicon([{ id: 'f', cat: 'distress', level: 'concern', p: ['(go|go on) ~1 home', '@OUTER ~1 x'] }], {
				classes: { ME: ['myself'], INNER: ['a', 'a b'], OUTER: ['@INNER', 'c'] },
			}),
		]);
		// "go" then a gap of one word comes before "go on" with no gap, "a" before "a b".
		assert.deepEqual(withGaps(c, 'go on home'), ['xx.f@0-3[1]']);
		assert.deepEqual(withGaps(c, 'a b x'), ['xx.f@0-3[1]']);
		assert.deepEqual(withGaps(c, 'c x'), ['xx.f@0-2[]']);
	});

	test('a failure remembered from one start does not hide a match from the next', () => {
		const c = compileLexicons([lexicon([{ id: 'f', cat: 'distress', level: 'concern', p: ['x ~1 y'] }])]);
		assert.deepEqual(withGaps(c, 'x x x y'), ['xx.f@1-4[2]', 'xx.f@2-4[]']);
	});

	test('"~~" reaches into the next sentence only; a phrase needs all its words in its sentence', () => {
		const c = compileLexicons([lexicon([{ id: 'f', cat: 'distress', level: 'concern', p: ['bye ~~2 now', 'sad ~3 today'] }])]);
		assert.deepEqual(ids(c, 'bye. now'), ['xx.f@0-2']);
		assert.deepEqual(ids(c, 'bye. ok now'), ['xx.f@0-3']);
		assert.deepEqual(ids(c, 'bye. ok. now'), []);
		assert.deepEqual(ids(c, 'sad today'), ['xx.f@0-2']);
		assert.deepEqual(ids(c, 'sad. today'), []);
	});

	test('a long message (its candidates remembered per word) finds what each of its sentences finds alone', () => {
		const c = compileLexicons([lexicon([{ id: 'f', cat: 'distress', level: 'concern', p: ['(go|go on) ~1 home', 'hurt @ME'] }])]);
		const sentence = 'go on home and hurt my self';
		const size = prepare(c, sentence).length;
		const copies = 20;
		assert.ok(size * copies > 64);
		const shifted = (by: number) => withGaps(c, sentence).map((m) => m.replace(/\d+/g, (n) => String(Number(n) + by)));
		const expected = Array.from({ length: copies }, (_, k) => shifted(k * size)).flat();
		assert.deepEqual(withGaps(c, Array.from({ length: copies }, () => sentence).join('. ')), expected);
	});

	test('rejects malformed lexicons with a clear message', () => {
		const bad = (p: string, msg: RegExp) =>
			assert.throws(() => compileLexicons([lexicon([{ id: 'b', cat: 'distress', level: 'concern', p: [p] }])]), msg);
		bad('~2 word', /may not start with a gap/);
		bad('word?', /can match nothing/);
		bad('@NOPE word', /unknown class/);
		bad('(a|b', /unbalanced/);
		bad('self-harm', /not a single word/);
		bad('ab* x', /shorter than 3/);
		assert.throws(() => compileLexicons([lexicon([{ id: 'b', cat: 'nope', level: 'concern', p: ['x'] }])]), /unknown category/);
		assert.throws(() => compileLexicons([lexicon([{ id: 'b', cat: 'distress', level: 'severe', p: ['x'] }])]), /unknown level/);
		assert.throws(() => compileLexicons([lexicon([], { markers: { nonsense: ['x'] } })]), /unknown marker kind/);
		assert.throws(() => compileLexicons([{ lang: 'english', signals: [] }]), /two-letter/);
	});

	test('a language is one more file', () => {
		const c = compileLexicons([lexicon([{ id: 'die', cat: 'suicidal_ideation', level: 'high', p: ['ngiyafuna ukufa'] }])]);
		assert.deepEqual(c.languages, ['xx']);
		assert.deepEqual(ids(c, 'NGIYAFUNA ukufa'), ['xx.die@0-2']);
	});

	test('a scan never writes to the compiled lexicon: every corpus and adversarial message screens the same with it frozen', () => {
		const messages = everyMessage();
		const open = compileLexicons(LEXICONS);
		const expected = messages.map((text) => described(findMatches(open, prepare(open, text))));
		const frozen = compileLexicons(LEXICONS);
		const unchanged = deepFreeze(frozen);
		// In strict mode (every module) a write to a frozen object throws, as do the locked Map and Set mutators.
		const found = messages.map((text) => described(findMatches(frozen, prepare(frozen, text))));
		assert.deepEqual(found, expected);
		assert.ok(unchanged(), 'the typed arrays of the lexicon are unchanged');
		assert.ok(expected.some((m) => m.length > 0));
	});

	test('scans of different messages interleaved find what each finds alone', () => {
		const c: CompiledLexicon = compileLexicons(LEXICONS);
		const messages = everyMessage().filter((text, i) => i % 7 === 0 || text.length > 1000);
		const alone = messages.map((text) => {
			const tokens = prepare(c, text);
			return [described(findSignals(c, tokens)), described(findMarkers(c, tokens))];
		});
		// Every message prepared first, then the signals of each, then the markers of each in reverse order: each scan
		// runs between scans of other messages, and tokens prepared long before they are scanned.
		const prepared = messages.map((text) => prepare(c, text));
		const signals = prepared.map((tokens) => described(findSignals(c, tokens)));
		const markers = prepared
			.map((tokens, i) => [i, tokens] as const)
			.reverse()
			.map(([i, tokens]) => [i, described(findMarkers(c, tokens))] as const)
			.sort((a, b) => a[0] - b[0])
			.map(([, found]) => found);
		assert.deepEqual(
			prepared.map((_, i) => [signals[i], markers[i]]),
			alone,
		);
		// The same tokens scanned twice: nothing of the first scan is left on them.
		for (const tokens of prepared.slice(0, 50)) assert.deepEqual(described(findSignals(c, tokens)), described(findSignals(c, tokens)));
	});
});
