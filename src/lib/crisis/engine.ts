/**
 * The phrase engine: compiles the lexicon files (lexicon/*.json) and finds their phrases in a token stream.
 *
 * Pattern syntax (elements separated by spaces; every word goes through the same normalisation as user text):
 *   word          a word (compared on skeletons: "kill" matches "kiiill", "k1ll")
 *   a/b/c         one of several words          word?  @NAME?  (...)?   optional
 *   (a b|c d)     one of several sequences (patterns themselves, may nest)
 *   word*         a prefix ("suicid*")            @NAME          a class of the same file (members are patterns)
 *   ~N            up to N other words (same sentence; never a negation or another person, checked by the screen)
 *   ~~N           the same, but may cross one sentence boundary ("i love you all. goodbye")
 *   <big>         a number of 10 or more          <num>  any number       <year>  1900-2099
 * Matching is a bounded depth-first search from indexed first words: no regular expressions, a step budget per
 * attempt, so the cost is linear in the input whatever it holds.
 */
import type { CrisisCategory, CrisisLevel } from './types.ts';
import { CATEGORIES, isCrisisLevel } from './types.ts';
import { normalizeText, skeleton, tokenize, type Token } from './normalize.ts';

export interface SignalSpec {
	id: string;
	cat: CrisisCategory;
	level: CrisisLevel;
	p: string[];
	/** Explicit intent ("going to", "about to"): a weak time word ("now") makes it imminent. */
	intent?: boolean;
	/** Means or a plan at hand: with any suicidal signal the level is imminent. */
	plan?: boolean;
	/** Looking for a method: high, but not by itself a plan at hand. */
	method?: boolean;
	/** Intent without an object ("I'm going to do it"): counts only next to other signals. */
	vague?: boolean;
	/** About someone else. */
	tp?: boolean;
	/** Counts only when the whole message is a few words ("suicidal", "self harm"). */
	bare?: boolean;
	/** A marker kind that must be present somewhere in the message. */
	requires?: string;
	/** Extra guard kinds that apply to this phrase. */
	guards?: string[];
	/** Default guard kinds that do not apply. */
	noguard?: string[];
}

/**
 * A word test. `lit` is the word as written in the lexicon, `key` its skeleton. A token matches on its spelling, or on
 * the skeleton when that cannot confuse two words: the token is elongated ("diiie") or no lexicon word at all ("kil"),
 * the lexicon word has no double letter ("die" for "diee"), or the skeleton is long (>= 5). So "of" never reads as
 * "off", nor "feel" as "fell".
 */
type Test = { t: 'x'; key: string; lit: string; loose: boolean } | { t: 'p'; key: string } | { t: 'n'; range: 'big' | 'num' | 'year' };
/** Options of an alternative, indexed by the skeletons that can start them, so a failing position costs one lookup. */
interface Options {
	list: El[][];
	first: Map<string, number[]>;
	/** Options that start with a prefix, a number or an optional element: always tried. */
	open: number[];
}
type El = { k: 'w'; tests: Test[]; opt: boolean } | { k: 'alt'; opts: Options; opt: boolean } | { k: 'gap'; max: number };

export interface Phrase {
	/** `<lang>.<id>` for signals, `<lang>:<kind>` for markers. */
	id: string;
	lang: string;
	/** 'signal' or a marker kind (past, fiction, joke, time ...). */
	kind: string;
	signal: SignalSpec | null;
	els: El[];
	/** Has a `~~` gap: may span two sentences. */
	cross: boolean;
	/** Per-call marks: tried at this token already / active in this message. */
	stamp: number;
	active: number;
	serial: number;
	/** A marker that needs no more than one match per clause. */
	once: boolean;
	lastClause: number;
	/** What its first word can be: skeletons, three-letter prefixes of prefix tests, or any number. */
	firstKeys: string[];
	firstPrefixes: string[];
	firstNumber: boolean;
}

export interface Match {
	phrase: Phrase;
	start: number;
	/** Exclusive. */
	end: number;
	/** Indices of tokens skipped by gaps. */
	gaps: number[];
}

export interface ScanSets {
	negators: Set<string>;
	self: Set<string>;
	other: Set<string>;
	transparent: Set<string>;
}

export interface Compiled {
	phrases: Phrase[];
	scan: Map<string, ScanSets>;
	languages: string[];
	/** A whole phrase written as one word ("killmyself", "wannadie"). */
	compound: Map<string, Phrase[]>;
	/** Phrases by what their first word can be. */
	exact: Map<string, Phrase[]>;
	prefix: Map<string, Phrase[]>;
	numeric: Phrase[];
	/** Phrases by their anchor words: a phrase is tried only when one of its anchors is in the message. */
	anchors: Map<string, Phrase[]>;
	unanchored: Phrase[];
	/** Skeletons of every lexicon word. */
	vocab: Set<string>;
	scanWords: Set<string>;
	/** Every lexicon word as written. */
	rawVocab: Set<string>;
	byLength: Map<number, string[]>;
	/** Words by length and letter sum: candidates for one swapped pair. */
	bySwap: Map<number, string[]>;
	fuzzy: Map<string, { key: string; word: string; max: number; mask: number }[]>;
}

/** Marker kinds whose position matters (the screen checks them right around a phrase); others count once per clause. */
export const POSITIONAL_MARKERS: ReadonlySet<string> = new Set(['idiom', 'effort', 'relation', 'account', 'ongoing']);

export const MARKER_KINDS: readonly string[] = [
	'past',
	'ongoing',
	'fiction',
	'idiom',
	'joke',
	'serious',
	'game',
	'effort',
	'accident',
	'trivial',
	'leave',
	'relation',
	'account',
	'tpctx',
	'report',
	'time',
	'time_weak',
];
const SIGNAL_FLAGS = ['intent', 'plan', 'method', 'vague', 'tp', 'bare'] as const;
const STEP_BUDGET = 256;

class LexiconError extends Error {
	override name = 'LexiconError';
}

function normalizeWord(word: string, where: string): string {
	const n = normalizeText(word).replaceAll("'", '');
	for (const ch of n) {
		if (!/[\p{L}\p{N}]/u.test(ch)) throw new LexiconError(`${where}: "${word}" is not a single word`);
	}
	if (!n) throw new LexiconError(`${where}: empty word`);
	return n;
}

interface FileContext {
	lang: string;
	classes: Record<string, string[]>;
	compiled: Map<string, Options>;
	rawVocab: Set<string>;
	where: string;
}

/** Splits on a separator outside parentheses. */
function splitTop(source: string, sep: string, where: string): string[] {
	const parts: string[] = [];
	let depth = 0;
	let current = '';
	for (const ch of source) {
		if (ch === '(') depth++;
		if (ch === ')') depth--;
		if (depth < 0) throw new LexiconError(`${where}: unbalanced ")" in "${source}"`);
		if (depth === 0 && (sep === ' ' ? /\s/.test(ch) : ch === sep)) {
			parts.push(current);
			current = '';
		} else {
			current += ch;
		}
	}
	if (depth !== 0) throw new LexiconError(`${where}: unbalanced "(" in "${source}"`);
	parts.push(current);
	return parts;
}

function parsePattern(source: string, cx: FileContext, depth = 0): El[] {
	if (depth > 8) throw new LexiconError(`${cx.where}: patterns nest too deep`);
	const els: El[] = [];
	for (const part of splitTop(source.trim(), ' ', cx.where)) {
		if (!part) continue;
		if (part.startsWith('(')) {
			const opt = part.endsWith(')?');
			if (!opt && !part.endsWith(')')) throw new LexiconError(`${cx.where}: text after ")" in "${part}"`);
			const inner = part.slice(1, opt ? -2 : -1);
			els.push({ k: 'alt', opts: indexOptions(splitTop(inner, '|', cx.where).map((o) => parsePattern(o, cx, depth + 1)), cx.where), opt });
			continue;
		}
		if (part.startsWith('~')) {
			const cross = part.startsWith('~~');
			const max = Number(part.slice(cross ? 2 : 1));
			if (!Number.isInteger(max) || max < 1 || max > 8) throw new LexiconError(`${cx.where}: bad gap "${part}"`);
			els.push({ k: 'gap', max: cross ? -max : max });
			continue;
		}
		const opt = part.endsWith('?');
		const body = opt ? part.slice(0, -1) : part;
		if (body.startsWith('@')) {
			const name = body.slice(1);
			let opts = cx.compiled.get(name);
			if (!opts) {
				const members = cx.classes[name];
				if (!Array.isArray(members) || members.length === 0) throw new LexiconError(`${cx.where}: unknown class @${name}`);
				cx.compiled.set(name, { list: [], first: new Map(), open: [] });
				opts = indexOptions(
					members.map((m) => parsePattern(m, cx, depth + 1)),
					`${cx.where} @${name}`,
				);
				cx.compiled.set(name, opts);
			} else if (opts.list.length === 0) {
				throw new LexiconError(`${cx.where}: class @${name} refers to itself`);
			}
			els.push({ k: 'alt', opts, opt });
			continue;
		}
		if (body === '<big>' || body === '<num>' || body === '<year>') {
			els.push({ k: 'w', tests: [{ t: 'n', range: body.slice(1, -1) as 'big' | 'num' | 'year' }], opt });
			continue;
		}
		const tests: Test[] = body.split('/').map((alt) => {
			const isPrefix = alt.endsWith('*') && alt.length > 1;
			const word = normalizeWord(isPrefix ? alt.slice(0, -1) : alt, cx.where);
			if (isPrefix) {
				if (skeleton(word).length < 3) throw new LexiconError(`${cx.where}: prefix "${alt}" is shorter than 3 letters`);
				return { t: 'p', key: skeleton(word) };
			}
			cx.rawVocab.add(word);
			const key = skeleton(word);
			return { t: 'x', key, lit: word, loose: key === word || key.length >= 5 };
		});
		els.push({ k: 'w', tests, opt });
	}
	if (els.length === 0) throw new LexiconError(`${cx.where}: empty pattern`);
	return els;
}

const anchorCache = new WeakMap<Options, Set<string> | null>();

/**
 * Words of which at least one must be in any text the pattern matches, chosen to be rare: the mandatory element with
 * the fewest words and no filler word. null when no such set exists (prefix or number tests): always tried.
 */
function anchorsOf(els: El[], stop: Set<string>): Set<string> | null {
	let best: Set<string> | null = null;
	let bestScore = Infinity;
	for (const el of els) {
		if (el.k === 'gap' || el.opt) continue;
		let set: Set<string> | null = null;
		if (el.k === 'w') {
			if (el.tests.every((t) => t.t === 'x')) set = new Set(el.tests.map((t) => (t as { key: string }).key));
		} else if (anchorCache.has(el.opts)) {
			set = anchorCache.get(el.opts)!;
		} else {
			set = new Set();
			for (const opt of el.opts.list) {
				const inner = anchorsOf(opt, stop);
				if (!inner) {
					set = null;
					break;
				}
				for (const key of inner) set.add(key);
			}
			anchorCache.set(el.opts, set);
		}
		if (!set) continue;
		let score = set.size;
		for (const key of set) if (stop.has(key)) score += 1000;
		if (score < bestScore) {
			best = set;
			bestScore = score;
		}
	}
	return best;
}

function indexOptions(list: El[][], where: string): Options {
	const options: Options = { list, first: new Map(), open: [] };
	list.forEach((els, i) => {
		const first = firstTests(els, where);
		if (first.nullable || first.tests.some((t) => t.t !== 'x')) options.open.push(i);
		else for (const t of first.tests) push(options.first, (t as { key: string }).key, i);
	});
	return options;
}

/** The tests that can match the first token, and whether the pattern can match nothing. */
function firstTests(els: El[], where: string): { tests: Test[]; nullable: boolean } {
	const tests: Test[] = [];
	for (const el of els) {
		if (el.k === 'gap') throw new LexiconError(`${where}: a pattern may not start with a gap`);
		if (el.k === 'w') {
			tests.push(...el.tests);
			if (!el.opt) return { tests, nullable: false };
			continue;
		}
		let nullable = el.opt;
		for (const opt of el.opts.list) {
			const first = firstTests(opt, where);
			tests.push(...first.tests);
			nullable ||= first.nullable;
		}
		if (!nullable) return { tests, nullable: false };
	}
	return { tests, nullable: true };
}

/** The words of each way to read the pattern with empty gaps, for single-word compounds. */
function expansions(els: El[], limit: number): string[][] {
	let out: string[][] = [[]];
	for (const el of els) {
		if (el.k === 'gap') continue;
		const choices: string[][] = [];
		if (el.opt) choices.push([]);
		if (el.k === 'w') {
			for (const t of el.tests) {
				if (t.t !== 'x') return [];
				choices.push([t.key]);
			}
		} else {
			for (const opt of el.opts.list) choices.push(...expansions(opt, limit));
		}
		const next: string[][] = [];
		for (const prefix of out) {
			for (const choice of choices) {
				if (next.length >= limit) break;
				next.push([...prefix, ...choice]);
			}
		}
		out = next;
	}
	return out;
}

function asStrings(value: unknown, where: string): string[] {
	if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new LexiconError(`${where}: expected a list of strings`);
	return value as string[];
}

function validateSignal(raw: unknown, where: string): SignalSpec {
	const s = raw as Record<string, unknown>;
	if (typeof s?.id !== 'string' || !/^[a-z0-9_]+$/.test(s.id)) throw new LexiconError(`${where}: signal without a snake_case id`);
	const at = `${where} ${s.id}`;
	if (!(CATEGORIES as readonly unknown[]).includes(s.cat)) throw new LexiconError(`${at}: unknown category ${String(s.cat)}`);
	if (!isCrisisLevel(s.level)) throw new LexiconError(`${at}: unknown level ${String(s.level)}`);
	asStrings(s.p, at);
	for (const flag of SIGNAL_FLAGS) {
		if (s[flag] !== undefined && typeof s[flag] !== 'boolean') throw new LexiconError(`${at}: ${flag} must be a boolean`);
	}
	for (const list of ['guards', 'noguard'] as const) {
		if (s[list] !== undefined) {
			for (const kind of asStrings(s[list], at)) {
				if (!MARKER_KINDS.includes(kind) && kind !== 'neg' && kind !== 'other') throw new LexiconError(`${at}: unknown guard ${kind}`);
			}
		}
	}
	if (s.requires !== undefined && !MARKER_KINDS.includes(s.requires as string)) throw new LexiconError(`${at}: unknown requirement`);
	return s as unknown as SignalSpec;
}

export function compileLexicons(files: readonly unknown[]): Compiled {
	const c: Compiled = {
		phrases: [],
		scan: new Map(),
		languages: [],
		compound: new Map(),
		exact: new Map(),
		prefix: new Map(),
		numeric: [],
		anchors: new Map(),
		unanchored: [],
		vocab: new Set(),
		scanWords: new Set(),
		rawVocab: new Set(['i', 'a', 'to', 'my', 'me', 'so']),
		byLength: new Map(),
		bySwap: new Map(),
		fuzzy: new Map(),
	};
	const seen = new Set<string>();
	// Words too common to make good anchors: every file's filler words plus a few articles and prepositions.
	const stop = new Set(['the', 'a', 'an', 'to', 'of', 'and', 'in', 'on', 'for', 'with', 'my', 'at', 'de', 'la', 'le', 'el', 'que', 'y', 'e', 'o', 'en', 'un', 'una', 'di', 'il', 'der', 'die', 'das', 'und', 'se', 'si', 'da', 'do', 'les', 'des', 'du', 'et', 'est', 'ist', 'zu', 'sich', 'mon', 'ma', 'mi', 'mio', 'mia', 'meu', 'minha', 'mein', 'meine']);
	for (const rawFile of files) {
		const scan = ((rawFile as Record<string, unknown>)?.scan ?? {}) as Record<string, unknown>;
		for (const list of Object.values(scan)) if (Array.isArray(list)) for (const w of list) if (typeof w === 'string') stop.add(skeleton(normalizeText(w).replaceAll("'", '')));
	}
	for (const rawFile of files) {
		const file = rawFile as Record<string, unknown>;
		const lang = file?.lang;
		if (typeof lang !== 'string' || !/^[a-z]{2}$/.test(lang)) throw new LexiconError('lexicon file without a two-letter "lang"');
		if (c.languages.includes(lang)) throw new LexiconError(`lexicon ${lang} is listed twice`);
		c.languages.push(lang);
		const classes = (file.classes ?? {}) as Record<string, string[]>;
		const cx: FileContext = { lang, classes, compiled: new Map(), rawVocab: c.rawVocab, where: `lexicon ${lang}` };

		const scan = (file.scan ?? {}) as Record<string, unknown>;
		const set = (name: string): Set<string> =>
			new Set(asStrings(scan[name] ?? [], `${cx.where} scan.${name}`).map((w) => skeleton(normalizeWord(w, cx.where))));
		const sets = { negators: set('negators'), self: set('self'), other: set('other'), transparent: set('transparent') };
		c.scan.set(lang, sets);
		for (const words of Object.values(sets)) for (const w of words) c.scanWords.add(w);

		const add = (kind: string, id: string, signal: SignalSpec | null, pattern: string): void => {
			const where = `${cx.where} ${id}`;
			const els = parsePattern(pattern, { ...cx, where });
			const phrase: Phrase = {
				id,
				lang,
				kind,
				signal,
				els,
				cross: pattern.includes('~~'),
				stamp: -1,
				active: -1,
				serial: c.phrases.length,
				once: signal === null && !POSITIONAL_MARKERS.has(kind),
				lastClause: -1,
				firstKeys: [],
				firstPrefixes: [],
				firstNumber: false,
			};
			const anchor = anchorsOf(els, stop);
			if (anchor) for (const key of anchor) push(c.anchors, key, phrase);
			else c.unanchored.push(phrase);
			const first = firstTests(els, `${where} "${pattern}"`);
			if (first.nullable) throw new LexiconError(`${where}: "${pattern}" can match nothing`);
			for (const t of first.tests) {
				if (t.t === 'x') {
					if (!phrase.firstKeys.includes(t.key)) phrase.firstKeys.push(t.key);
					push(c.exact, t.key, phrase);
				} else if (t.t === 'p') {
					if (!phrase.firstPrefixes.includes(t.key.slice(0, 3))) phrase.firstPrefixes.push(t.key.slice(0, 3));
					push(c.prefix, t.key.slice(0, 3), phrase);
				} else {
					phrase.firstNumber = true;
					if (!c.numeric.includes(phrase)) c.numeric.push(phrase);
				}
			}
			if (signal && !els.some((el) => el.k === 'gap')) {
				for (const words of expansions(els, 64)) {
					if (words.length < 2) continue;
					const key = skeleton(words.join(''));
					if (key.length < 6) continue;
					const list = c.compound.get(key);
					if (!list) c.compound.set(key, [phrase]);
					else if (list.at(-1) !== phrase) list.push(phrase);
				}
			}
			c.phrases.push(phrase);
		};

		const signals = file.signals;
		if (!Array.isArray(signals)) throw new LexiconError(`${cx.where}: "signals" must be a list`);
		for (const raw of signals) {
			const spec = validateSignal(raw, cx.where);
			const id = `${lang}.${spec.id}`;
			if (seen.has(id)) throw new LexiconError(`${cx.where}: duplicate signal id ${spec.id}`);
			seen.add(id);
			for (const p of spec.p) add('signal', id, spec, p);
		}
		const markers = (file.markers ?? {}) as Record<string, unknown>;
		for (const [kind, patterns] of Object.entries(markers)) {
			if (!MARKER_KINDS.includes(kind)) throw new LexiconError(`${cx.where}: unknown marker kind ${kind}`);
			for (const p of asStrings(patterns, `${cx.where} markers.${kind}`)) add(kind, `${lang}:${kind}`, null, p);
		}
		const fuzzy = (file.fuzzy ?? {}) as Record<string, unknown>;
		for (const [word, max] of Object.entries(fuzzy)) {
			if (max !== 1 && max !== 2) throw new LexiconError(`${cx.where}: fuzzy distance of ${word} must be 1 or 2`);
			const raw = normalizeWord(word, cx.where);
			const key = skeleton(raw);
			push(c.fuzzy, key[0]!, { key, word: raw, max, mask: letterMask(key) });
		}
	}
	for (const word of c.rawVocab) {
		c.vocab.add(skeleton(word));
		push(c.byLength, word.length, word);
		if (word.length >= 4) push(c.bySwap, swapSignature(word), word);
	}
	return c;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
	const list = map.get(key);
	if (!list) map.set(key, [value]);
	else if (!list.includes(value)) list.push(value);
}

/** Equal for two words with the same letters in another order (and, rarely, for others: candidates are checked). */
function swapSignature(s: string): number {
	let sum = 0;
	for (let i = 0; i < s.length; i++) sum += s.charCodeAt(i);
	return s.length * 1_000_003 + sum;
}

/** Which of a-z a word contains. */
function letterMask(s: string): number {
	let mask = 0;
	for (let i = 0; i < s.length; i++) {
		const bit = s.charCodeAt(i) - 0x61;
		if (bit >= 0 && bit < 26) mask |= 1 << bit;
	}
	return mask;
}

function bitCount(n: number): number {
	let count = 0;
	for (let m = n; m; m &= m - 1) count++;
	return count;
}

// ---------------------------------------------------------------------------------------------------------------
// Typo tolerance

function oneSwapApart(a: string, b: string): boolean {
	if (a.length !== b.length) return false;
	let i = 0;
	while (i < a.length && a[i] === b[i]) i++;
	return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** Optimal string alignment distance, or max + 1 once it is known to exceed max. */
function distanceWithin(a: string, b: string, max: number): number {
	if (Math.abs(a.length - b.length) > max) return max + 1;
	const n = b.length;
	let prev2 = new Array<number>(n + 1).fill(0);
	let prev = Array.from({ length: n + 1 }, (_, j) => j);
	let cur = new Array<number>(n + 1).fill(0);
	for (let i = 1; i <= a.length; i++) {
		cur[0] = i;
		let rowMin = i;
		for (let j = 1; j <= n; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
			cur[j] = d;
			if (d < rowMin) rowMin = d;
		}
		if (rowMin > max) return max + 1;
		[prev2, prev, cur] = [prev, cur, prev2];
	}
	return prev[n]!;
}

function isLetters(s: string): boolean {
	for (const ch of s) if (!/\p{L}/u.test(ch)) return false;
	return true;
}

/** Lexicon words a token may stand for: masked letters ("s*icide"), one swapped pair ("wnat"), or a listed typo-prone word. */
function corrections(c: Compiled, form: string, key: string): string[] {
	const out: string[] = [];
	if (form.includes('*')) {
		let letters = 0;
		for (const ch of form) if (ch !== '*') letters++;
		if (letters < 2 || letters * 2 < form.length) return out;
		for (const word of c.byLength.get(form.length) ?? []) {
			let ok = true;
			for (let i = 0; i < form.length && ok; i++) ok = form[i] === '*' || form[i] === word[i];
			if (ok) out.push(word);
			if (out.length >= 3) break;
		}
		return out;
	}
	if (form.length < 4 || form.length > 24 || !isLetters(form)) return out;
	for (const word of c.bySwap.get(swapSignature(form)) ?? []) if (oneSwapApart(form, word)) out.push(word);
	if (key.length >= 5) {
		const mask = letterMask(key);
		const firsts = key[0] === key[1] ? [key[0]!] : [key[0]!, key[1]!];
		for (const first of firsts) {
			for (const f of c.fuzzy.get(first) ?? []) {
				if (first !== key[0] && f.key[0] !== key[1]) continue;
				if (Math.abs(f.key.length - key.length) > f.max) continue;
				// each edit brings in at most one letter the word does not have
				if (bitCount(mask & ~f.mask) > f.max) continue;
				if (!out.includes(f.word) && distanceWithin(key, f.key, f.max) <= f.max) out.push(f.word);
			}
		}
	}
	return out;
}

/** Spaced-out letters back into words, preferring the fewest words. */
function segmenter(c: Compiled): (letters: string) => string[] | null {
	return (letters) => {
		const n = letters.length;
		const best = new Array<number>(n + 1).fill(Infinity);
		const from = new Array<number>(n + 1).fill(-1);
		best[0] = 0;
		for (let i = 0; i < n; i++) {
			if (best[i] === Infinity) continue;
			for (let len = 1; len <= 20 && i + len <= n; len++) {
				if (c.rawVocab.has(letters.slice(i, i + len)) && best[i]! + 1 < best[i + len]!) {
					best[i + len] = best[i]! + 1;
					from[i + len] = i;
				}
			}
		}
		if (best[n] === Infinity) return null;
		const words: string[] = [];
		for (let end = n; end > 0; end = from[end]!) words.unshift(letters.slice(from[end]!, end));
		return words;
	};
}

/** Tokenises and adds typo corrections as extra keys. */
export function prepare(c: Compiled, text: string): Token[] {
	const tokens = tokenize(text, segmenter(c));
	const memo = new Map<string, string[]>();
	for (const token of tokens) {
		if (token.emoji || !Number.isNaN(token.num)) continue;
		token.known = token.forms.some((f) => c.rawVocab.has(f));
		if (token.known) continue;
		const form = token.forms[0]!;
		let fixes = memo.get(form);
		if (!fixes) {
			fixes = corrections(c, form, token.keys[0]!);
			memo.set(form, fixes);
		}
		for (const fix of fixes) {
			if (!token.forms.includes(fix)) {
				token.forms.push(fix);
				token.keys.push(skeleton(fix));
			}
		}
	}
	for (const token of tokens) {
		// Later lookups skip what no lexicon word can be.
		token.lexical = token.keys.some((k) => c.vocab.has(k));
		if (token.pairKey && !c.vocab.has(token.pairKey)) token.pairForm = token.pairKey = '';
	}
	return tokens;
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

interface Cursor {
	tokens: Token[];
	sent: number;
	/** Markers (idioms, guards) stay inside one clause: "cut, the urge" is not the idiom "cut the". */
	clause: number;
	cross: boolean;
	budget: number;
	gaps: number[];
}

function testToken(test: Test, token: Token): boolean {
	if (test.t === 'n') {
		if (Number.isNaN(token.num)) return false;
		if (test.range === 'big') return token.num >= 10;
		if (test.range === 'year') return token.num >= 1900 && token.num <= 2099;
		return true;
	}
	if (test.t === 'p') {
		for (const key of token.keys) if (key.startsWith(test.key)) return true;
		return false;
	}
	const loose = test.loose || token.elongated || !token.known;
	for (let i = 0; i < token.forms.length; i++) {
		if (token.forms[i] === test.lit || (loose && token.keys[i] === test.key)) return true;
	}
	return false;
}

function inSentence(cur: Cursor, token: Token): boolean {
	if (cur.clause >= 0 && token.clause !== cur.clause) return false;
	return cur.cross ? Math.abs(token.sent - cur.sent) <= 1 : token.sent === cur.sent;
}

/** Tokens consumed by a word element at ti: 1, 2 (a word written in two parts: "my self", "sewer slide") or 0. */
function wordAt(tests: Test[], ti: number, cur: Cursor): number {
	const token = cur.tokens[ti];
	if (!token || !inSentence(cur, token)) return 0;
	for (const test of tests) if (testToken(test, token)) return 1;
	if (!token.pairForm) return 0;
	const next = cur.tokens[ti + 1]!;
	const loose = token.elongated || next.elongated || !token.known || !next.known;
	for (const test of tests) {
		if (test.t !== 'x' || test.lit.length < 3) continue;
		if (token.pairForm === test.lit || ((test.loose || loose) && token.pairKey === test.key)) return 2;
	}
	return 0;
}

function matchFrom(els: El[], ei: number, ti: number, cur: Cursor, done: (ti: number) => boolean): boolean {
	if (--cur.budget < 0) return false;
	if (ei === els.length) return done(ti);
	const el = els[ei]!;
	if (el.k === 'gap') {
		const max = Math.abs(el.max);
		const mark = cur.gaps.length;
		for (let g = 0; g <= max; g++) {
			if (g > 0) {
				const token = cur.tokens[ti + g - 1];
				if (!token || !inSentence(cur, token)) break;
				cur.gaps.push(ti + g - 1);
			}
			if (matchFrom(els, ei + 1, ti + g, cur, done)) return true;
		}
		cur.gaps.length = mark;
		return false;
	}
	if (el.k === 'w') {
		const used = wordAt(el.tests, ti, cur);
		if (used > 0 && matchFrom(els, ei + 1, ti + used, cur, done)) return true;
		return el.opt && matchFrom(els, ei + 1, ti, cur, done);
	}
	for (const i of optionsAt(el.opts, ti, cur)) {
		if (matchFrom(el.opts.list[i]!, 0, ti, cur, (t) => matchFrom(els, ei + 1, t, cur, done))) return true;
	}
	return el.opt && matchFrom(els, ei + 1, ti, cur, done);
}

/** The options that may start at ti, in lexicon order (the first that matches wins, so order is kept). */
function optionsAt(opts: Options, ti: number, cur: Cursor): readonly number[] {
	const token = cur.tokens[ti];
	if (!token || !inSentence(cur, token)) return opts.open;
	let found: readonly number[] = opts.open;
	let merged: number[] | null = null;
	const add = (list: number[] | undefined): void => {
		if (!list || list === found) return;
		if (found.length === 0) {
			found = list;
			return;
		}
		merged ??= [...found];
		for (const i of list) if (!merged.includes(i)) merged.push(i);
		found = merged;
	};
	for (const key of token.keys) add(opts.first.get(key));
	if (token.pairKey) add(opts.first.get(token.pairKey));
	if (merged) (merged as number[]).sort((a, b) => a - b);
	return found;
}

let stampCounter = 0;

/**
 * All matches of all phrases. First the phrases whose anchors occur in the message are collected and indexed by their
 * first words (usually a handful), then each token looks up the few that may start there.
 */
export function findMatches(c: Compiled, tokens: Token[]): Match[] {
	const active = ++stampCounter;
	const live: Phrase[] = [];
	const activate = (list: Phrase[] | undefined): void => {
		if (!list) return;
		for (const p of list) {
			if (p.active !== active) {
				p.active = active;
				p.lastClause = -1;
				live.push(p);
			}
		}
	};
	activate(c.unanchored);
	for (const token of tokens) {
		if (token.lexical) for (const key of token.keys) activate(c.anchors.get(key));
		if (token.pairKey) activate(c.anchors.get(token.pairKey));
	}
	// Short messages look phrases up in the lexicon's own index and skip the inactive ones; long ones first index the
	// active phrases, so a word repeated a thousand times does not walk the same long list a thousand times.
	let exact = c.exact;
	let prefix = c.prefix;
	let numeric = c.numeric;
	if (tokens.length > 64) {
		exact = new Map();
		prefix = new Map();
		numeric = [];
		const append = (map: Map<string, Phrase[]>, key: string, p: Phrase): void => {
			const list = map.get(key);
			if (list) list.push(p);
			else map.set(key, [p]);
		};
		for (const p of live) {
			for (const key of p.firstKeys) append(exact, key, p);
			for (const key of p.firstPrefixes) append(prefix, key, p);
			if (p.firstNumber) numeric.push(p);
		}
	}

	const matches: Match[] = [];
	const cur: Cursor = { tokens, sent: 0, clause: -1, cross: false, budget: 0, gaps: [] };
	let end = -1;
	const done = (t: number): boolean => {
		end = t;
		return true;
	};
	const candidates: Phrase[] = [];
	let stamp = 0;
	const take = (list: Phrase[] | undefined): void => {
		if (!list) return;
		for (const p of list) {
			if (p.stamp !== stamp && p.active === active) {
				p.stamp = stamp;
				candidates.push(p);
			}
		}
	};
	for (let ti = 0; ti < tokens.length; ti++) {
		const token = tokens[ti]!;
		stamp = ++stampCounter;
		candidates.length = 0;
		for (const key of token.keys) {
			if (token.lexical) take(exact.get(key));
			if (prefix.size > 0 && key.length >= 3) take(prefix.get(key.slice(0, 3)));
		}
		if (token.pairKey) take(exact.get(token.pairKey));
		if (!Number.isNaN(token.num)) take(numeric);
		for (const phrase of candidates) {
			if (phrase.once && phrase.lastClause === token.clause) continue;
			cur.sent = token.sent;
			cur.clause = phrase.signal ? -1 : token.clause;
			cur.cross = phrase.cross;
			cur.budget = STEP_BUDGET;
			cur.gaps.length = 0;
			if (matchFrom(phrase.els, 0, ti, cur, done)) {
				matches.push({ phrase, start: ti, end, gaps: cur.gaps.slice() });
				phrase.lastClause = token.clause;
			}
		}
		for (const key of token.keys) {
			const whole = key.length >= 6 ? c.compound.get(key) : undefined;
			if (!whole) continue;
			for (const phrase of whole) {
				let found = false;
				for (let k = matches.length - 1; k >= 0 && matches[k]!.start === ti && !found; k--) found = matches[k]!.phrase === phrase;
				if (!found) matches.push({ phrase, start: ti, end: ti + 1, gaps: [] });
			}
		}
	}
	return matches;
}
