/**
 * The phrase engine: compiles the lexicon files (lexicon/*.json) and finds their phrases in a token stream.
 *
 * Pattern syntax (elements separated by spaces; every word goes through the same normalisation as user text):
 *   word          a word (compared on skeletons: "kill" matches "kiiill", "k1ll")
 *   ^word         the word, first in its clause ("have the pills, will take them": "^will" has no subject of its own)
 *   a/b/c         one of several words          word?  @NAME?  (...)?   optional
 *   (a b|c d)     one of several sequences (patterns themselves, may nest)
 *   word*         a prefix ("suicid*")            @NAME          a class of the same file (members are patterns)
 *   ~N            up to N other words (same sentence; never a negation or another person, checked by the screen)
 *   ~~N           the same, but may cross one sentence boundary ("i love you all. goodbye")
 *   <big>         a number of 10 or more          <num>  any number       <year>  1900-2099
 * Matching: each pattern is compiled into a graph of steps (see Step: a class is copied in place, an option that is
 * only another class is replaced by its options) and searched depth-first in lexicon order from the tokens where its
 * first word is; the first path that completes is the match (its end and gaps). No regular expressions. Whether the
 * rest of a pattern matches from a step and a token depends only on them (and where the sentence ends), so a failure
 * there is remembered for the rest of the scan (several ways to the same token, several starts: one search of what
 * follows), and a step budget bounds each attempt: the cost is linear in the input whatever it holds.
 * Speed: words become numbers once (`wordIds`), with a bit each for quick set tests; a phrase is tried only where its
 * first word is, when one of its rarest words (anchors) is in the message, when its sentence holds a word for each of
 * its mandatory elements (`needs`) and when the next token can follow its first word (`follow`; an option of an
 * alternative likewise); signals are matched first and markers only if some signal matched (most messages stop
 * there); a repeated word is read, corrected and looked up once (its tokens share a `WordCache`). A 4,000-character
 * adversarial message takes about 0.4 ms on a slow core, a typical message a few tens of µs (bench/screen.ts).
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
	/** Means in hand ("I have the rope"): with a time ("tonight") at least concern. */
	held?: boolean;
	/** Looking for a method: high, but not by itself a plan at hand. */
	method?: boolean;
	/** Intent without an object ("I'm going to do it"): counts only next to other signals. */
	vague?: boolean;
	/**
	 * Intent to use a means named elsewhere ("will take them", "gonna use it"): counts only next to means at hand or a
	 * suicidal signal, never with a time alone ("will take them tonight" is how people talk about their medication).
	 */
	use?: boolean;
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
type Test =
	{ t: 'x'; key: string; lit: string; loose: boolean; start: boolean } | { t: 'p'; key: string } | { t: 'n'; range: 'big' | 'num' | 'year' };
/** Options of an alternative, indexed by the skeletons that can start them, so a failing position costs one lookup. */
interface Options {
	list: El[][];
	first: Map<string, number[]>;
	/** The same by word id (filled in once the vocabulary is complete): the ids in ascending order, their options and `open`. */
	firstWords: Int32Array;
	firstLists: number[][];
	/** Options that start with a prefix, a number or an optional element: always tried. */
	open: number[];
	/** The bits of the word ids in `firstWords` (see Token.idBits). */
	firstBits: number;
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
	/** The pattern compiled for matching (see Step). */
	steps: Step;
	/** Has a `~~` gap: may span two sentences. */
	cross: boolean;
	/** Per-call marks: tried at this token already / active in this message (and its rank among the active ones). */
	stamp: number;
	active: number;
	rank: number;
	serial: number;
	/** A marker that needs no more than one match per clause. */
	once: boolean;
	/** A signal that counts only in a message of a few words (SignalSpec.bare). */
	bare: boolean;
	lastClause: number;
	/** What its first word can be: skeletons (and their word ids), three-letter prefixes of prefix tests, or any number. */
	firstKeys: string[];
	firstIds: number[];
	firstPrefixes: string[];
	firstNumber: boolean;
	/**
	 * By the word id of its first token, the word ids its second token may have (null: any, after a gap or at the end);
	 * null when its first word is not always a plain word. Most phrases tried at a token fail on the next one.
	 */
	follow: Map<number, Words | null> | null;
	/**
	 * For each of its mandatory elements, the word ids that can start it (fewest first): a phrase can match only in a
	 * sentence that holds one of each. Checked once per sentence (`checkedIn`, the sentence's mark, and `possible`);
	 * null for a phrase that may span two sentences.
	 */
	needs: (readonly number[])[] | null;
	checkedIn: number;
	possible: boolean;
}

export interface Match {
	phrase: Phrase;
	start: number;
	/** Exclusive. */
	end: number;
	/** Indices of tokens skipped by gaps. */
	gaps: readonly number[];
}

export interface ScanSets {
	negators: Set<string>;
	self: Set<string>;
	other: Set<string>;
	transparent: Set<string>;
	/**
	 * "and", "then": the subject of the verb after one is the subject before it ("she has pills and will take them"),
	 * the nearest of `subjects` (subject pronouns). Only for languages that write their subjects (not es, it, pt:
	 * "mi amigo está triste y quiero morir" is about me).
	 */
	coord: Set<string>;
	subjects: Set<string>;
	/** For each word of these sets, the sets it is in (bits, see SCAN_ROLES): one lookup for all of them. */
	roles: Map<string, number>;
}

/** The bit of each set of ScanSets in ScanSets.roles. */
export const SCAN_ROLES = { negators: 1, self: 2, other: 4, transparent: 8, coord: 16, subjects: 32 } as const;

/** Where phrases are looked up. Signals and markers have one each: a message in which no signal matches needs no marker. */
export interface PhraseIndex {
	/** Phrases by what their first word can be (by word id, see `Compiled.wordIds`). */
	exact: (Phrase[] | undefined)[];
	prefix: Map<string, Phrase[]>;
	numeric: Phrase[];
	/** Phrases by their anchor words (by word id): a phrase is tried only when one of its anchors is in the message. */
	anchors: (Phrase[] | undefined)[];
	unanchored: Phrase[];
}

export interface Compiled {
	phrases: Phrase[];
	scan: Map<string, ScanSets>;
	languages: string[];
	/** A whole phrase written as one word ("killmyself", "wannadie"). */
	compound: Map<string, Phrase[]>;
	signals: PhraseIndex;
	markers: PhraseIndex;
	/** Skeletons of every lexicon word. */
	vocab: Set<string>;
	/** A number for each of them: tokens carry their words' numbers, and the indexes are arrays. */
	wordIds: Map<string, number>;
	/** For each word id, the mark of the last sentence it was seen in (see Phrase.needs; marks grow past 2^31). */
	seenIn: Float64Array;
	/** Every prefix of those skeletons: two words written together can be a lexicon word only if the first is one. */
	vocabPrefixes: Set<string>;
	scanWords: Set<string>;
	/** Every lexicon word as written. */
	rawVocab: Set<string>;
	byLength: Map<number, string[]>;
	/** Words by length and letter sum: candidates for one swapped pair. */
	bySwap: Map<number, string[]>;
	fuzzy: Map<string, { key: string; word: string; max: number; mask: number }[]>;
}

/** Signals marked `bare` count only in messages of at most this many words ("suicidal", "self harm"). */
export const BARE_MAX_TOKENS = 3;

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
	'means',
	'medical',
	'purpose',
];
const SIGNAL_FLAGS = ['intent', 'plan', 'held', 'method', 'vague', 'use', 'tp', 'bare'] as const;
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
			els.push({
				k: 'alt',
				opts: indexOptions(
					splitTop(inner, '|', cx.where).map((o) => parsePattern(o, cx, depth + 1)),
					cx.where,
				),
				opt,
			});
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
				cx.compiled.set(name, { list: [], first: new Map(), firstWords: NO_WORD_IDS, firstLists: [], open: [], firstBits: 0 });
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
		const tests: Test[] = body.split('/').map((written) => {
			const start = written.startsWith('^') && written.length > 1;
			const alt = start ? written.slice(1) : written;
			const isPrefix = alt.endsWith('*') && alt.length > 1;
			if (start && isPrefix) throw new LexiconError(`${cx.where}: "^" and "*" together in "${written}"`);
			const word = normalizeWord(isPrefix ? alt.slice(0, -1) : alt, cx.where);
			if (isPrefix) {
				if (skeleton(word).length < 3) throw new LexiconError(`${cx.where}: prefix "${alt}" is shorter than 3 letters`);
				return { t: 'p', key: skeleton(word) };
			}
			cx.rawVocab.add(word);
			const key = skeleton(word);
			return { t: 'x', key, lit: word, loose: key === word || key.length >= 5, start };
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
	const options: Options = { list, first: new Map(), firstWords: NO_WORD_IDS, firstLists: [], open: [], firstBits: 0 };
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
		signals: { exact: [], prefix: new Map(), numeric: [], anchors: [], unanchored: [] },
		markers: { exact: [], prefix: new Map(), numeric: [], anchors: [], unanchored: [] },
		vocab: new Set(),
		wordIds: new Map(),
		seenIn: new Float64Array(0),
		vocabPrefixes: new Set(),
		scanWords: new Set(),
		rawVocab: new Set(['i', 'a', 'to', 'my', 'me', 'so']),
		byLength: new Map(),
		bySwap: new Map(),
		fuzzy: new Map(),
	};
	const seen = new Set<string>();
	const signalAnchors = new Map<string, Phrase[]>();
	const markerAnchors = new Map<string, Phrase[]>();
	const signalExact = new Map<string, Phrase[]>();
	const markerExact = new Map<string, Phrase[]>();
	// Words too common to make good anchors: every file's filler words plus a few articles and prepositions.
	const stop = new Set([
		'the',
		'a',
		'an',
		'to',
		'of',
		'and',
		'in',
		'on',
		'for',
		'with',
		'my',
		'at',
		'de',
		'la',
		'le',
		'el',
		'que',
		'y',
		'e',
		'o',
		'en',
		'un',
		'una',
		'di',
		'il',
		'der',
		'die',
		'das',
		'und',
		'se',
		'si',
		'da',
		'do',
		'les',
		'des',
		'du',
		'et',
		'est',
		'ist',
		'zu',
		'sich',
		'mon',
		'ma',
		'mi',
		'mio',
		'mia',
		'meu',
		'minha',
		'mein',
		'meine',
	]);
	for (const rawFile of files) {
		const scan = ((rawFile as Record<string, unknown>)?.scan ?? {}) as Record<string, unknown>;
		for (const list of Object.values(scan))
			if (Array.isArray(list)) for (const w of list) if (typeof w === 'string') stop.add(skeleton(normalizeText(w).replaceAll("'", '')));
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
		const named = {
			negators: set('negators'),
			self: set('self'),
			other: set('other'),
			transparent: set('transparent'),
			coord: set('coord'),
			subjects: set('subjects'),
		};
		const roles = new Map<string, number>();
		for (const [name, words] of Object.entries(named)) {
			for (const w of words) {
				roles.set(w, (roles.get(w) ?? 0) | SCAN_ROLES[name as keyof typeof SCAN_ROLES]);
				c.scanWords.add(w);
			}
		}
		c.scan.set(lang, { ...named, roles });

		const add = (kind: string, id: string, signal: SignalSpec | null, pattern: string): void => {
			const where = `${cx.where} ${id}`;
			const els = parsePattern(pattern, { ...cx, where });
			const phrase: Phrase = {
				id,
				lang,
				kind,
				signal,
				els,
				steps: END_STEP,
				cross: pattern.includes('~~'),
				stamp: -1,
				active: -1,
				rank: 0,
				serial: c.phrases.length,
				once: signal === null && !POSITIONAL_MARKERS.has(kind),
				bare: signal?.bare === true,
				lastClause: -1,
				firstKeys: [],
				firstIds: [],
				firstPrefixes: [],
				firstNumber: false,
				follow: null,
				needs: null,
				checkedIn: -1,
				possible: false,
			};
			const ix = signal ? c.signals : c.markers;
			const anchor = anchorsOf(els, stop);
			if (anchor) for (const key of anchor) push(signal ? signalAnchors : markerAnchors, key, phrase);
			else ix.unanchored.push(phrase);
			const first = firstTests(els, `${where} "${pattern}"`);
			if (first.nullable) throw new LexiconError(`${where}: "${pattern}" can match nothing`);
			for (const t of first.tests) {
				if (t.t === 'x') {
					if (!phrase.firstKeys.includes(t.key)) phrase.firstKeys.push(t.key);
					push(signal ? signalExact : markerExact, t.key, phrase);
				} else if (t.t === 'p') {
					if (!phrase.firstPrefixes.includes(t.key.slice(0, 3))) phrase.firstPrefixes.push(t.key.slice(0, 3));
					push(ix.prefix, t.key.slice(0, 3), phrase);
				} else {
					phrase.firstNumber = true;
					if (!ix.numeric.includes(phrase)) ix.numeric.push(phrase);
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
		const key = skeleton(word);
		c.vocab.add(key);
		if (!c.wordIds.has(key)) c.wordIds.set(key, c.wordIds.size);
		for (let n = 1; n < key.length; n++) c.vocabPrefixes.add(key.slice(0, n));
		push(c.byLength, word.length, word);
		if (word.length >= 4) push(c.bySwap, swapSignature(word), word);
	}
	const byId = (from: Map<string, Phrase[]>, to: (Phrase[] | undefined)[]): void => {
		to.length = c.wordIds.size;
		for (const [key, list] of from) to[c.wordIds.get(key)!] = list;
	};
	byId(signalAnchors, c.signals.anchors);
	byId(markerAnchors, c.markers.anchors);
	byId(signalExact, c.signals.exact);
	byId(markerExact, c.markers.exact);
	const visited = new Set<Options>();
	const visit = (els: El[]): void => {
		for (const el of els) {
			if (el.k !== 'alt' || visited.has(el.opts)) continue;
			visited.add(el.opts);
			indexById(el.opts, c.wordIds);
			for (const opt of el.opts.list) visit(opt);
		}
	};
	const linked = new Set<Step>();
	const wordsAfter = new Map<Step, Words | null>();
	const flat = new Map<Options, Options>();
	for (const p of c.phrases) {
		visit(p.els);
		p.steps = compileSteps(p.els, END_STEP, (opts) => flatten(opts, flat, c.wordIds));
		p.firstIds = p.firstKeys.map((key) => c.wordIds.get(key)!);
		p.follow = followOf(p.steps, c.wordIds);
		linkFollows(p.steps, c.wordIds, linked, wordsAfter);
		p.needs = p.cross ? null : needsOf(p.els, c.wordIds);
	}
	c.seenIn = new Float64Array(c.wordIds.size).fill(-1);
	return c;
}

const NO_WORD_IDS = new Int32Array(0);

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
	while (i < a.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	if (i + 1 >= a.length || a.charCodeAt(i) !== b.charCodeAt(i + 1) || a.charCodeAt(i + 1) !== b.charCodeAt(i)) return false;
	for (let k = i + 2; k < a.length; k++) if (a.charCodeAt(k) !== b.charCodeAt(k)) return false;
	return true;
}

/** Rows of the distance table, reused (words longer than the rows fall back to fresh ones). */
const ROWS = [new Int32Array(33), new Int32Array(33), new Int32Array(33)];

/** Optimal string alignment distance, or max + 1 once it is known to exceed max. */
function distanceWithin(a: string, b: string, max: number): number {
	if (Math.abs(a.length - b.length) > max) return max + 1;
	const n = b.length;
	const fits = n + 1 <= ROWS[0]!.length;
	let prev2 = fits ? ROWS[0]! : new Int32Array(n + 1);
	let prev = fits ? ROWS[1]! : new Int32Array(n + 1);
	let cur = fits ? ROWS[2]! : new Int32Array(n + 1);
	for (let j = 0; j <= n; j++) {
		prev2[j] = 0;
		prev[j] = j;
		cur[j] = 0;
	}
	for (let i = 1; i <= a.length; i++) {
		cur[0] = i;
		let rowMin = i;
		const ai = a.charCodeAt(i - 1);
		const aPrev = i > 1 ? a.charCodeAt(i - 2) : -1;
		for (let j = 1; j <= n; j++) {
			const bj = b.charCodeAt(j - 1);
			const cost = ai === bj ? 0 : 1;
			let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
			if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && aPrev === bj) d = Math.min(d, prev2[j - 2]! + 1);
			cur[j] = d;
			if (d < rowMin) rowMin = d;
		}
		if (rowMin > max) return max + 1;
		const spare = prev2;
		prev2 = prev;
		prev = cur;
		cur = spare;
	}
	return prev[n]!;
}

const LETTER = /^\p{L}$/u;
function isLetters(s: string): boolean {
	for (let i = 0; i < s.length; i++) {
		const code = s.charCodeAt(i);
		if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) continue;
		if (code < 0x80) return false;
		for (const ch of s.slice(i)) if (!LETTER.test(ch)) return false;
		return true;
	}
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

/** A word id's bit in Token.idBits and Options.firstBits. */
function idBit(id: number): number {
	return 1 << (id & 31);
}

/** Tokenises, adds typo corrections as extra keys and numbers the words. */
export function prepare(c: Compiled, text: string): Token[] {
	const tokens = tokenize(text, segmenter(c), (key) => c.vocabPrefixes.has(key));
	const wordIds = c.wordIds;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		const cache = token.cache;
		if (!token.emoji && Number.isNaN(token.num)) {
			// A repeated word is corrected once (its tokens share their spelling arrays and cache); every occurrence
			// counts as known or not as written, whether or not the tokenizer shared its reading.
			if (!cache.corrected) {
				cache.knownBefore = correct(c, token);
				cache.corrected = true;
			}
			token.known = cache.knownBefore;
		}
		// Words as lexicon numbers (and their bits): the indexes are arrays, and most lookups are skipped.
		let ids = cache.ids;
		if (!ids) {
			const keys = token.keys;
			ids = cache.ids = new Array<number>(keys.length);
			for (let k = 0; k < keys.length; k++) {
				const id = wordIds.get(keys[k]!) ?? -1;
				ids[k] = id;
				if (id >= 0) cache.idBits |= idBit(id);
			}
		}
		token.ids = ids;
		token.idBits = cache.idBits;
		if (token.pairKey) {
			if (cache.pairIdKey !== token.pairKey) {
				cache.pairIdKey = token.pairKey;
				cache.pairId = wordIds.get(token.pairKey) ?? -1;
			}
			if (cache.pairId < 0) token.pairForm = token.pairKey = '';
			else {
				token.pairId = cache.pairId;
				token.idBits |= idBit(cache.pairId);
			}
		}
	}
	return tokens;
}

/** Whether a word is a lexicon word as written; when not, adds the lexicon words it may stand for (see corrections). */
function correct(c: Compiled, token: Token): boolean {
	const forms = token.forms;
	for (let k = 0; k < forms.length; k++) if (c.rawVocab.has(forms[k]!)) return true;
	for (const fix of corrections(c, forms[0]!, token.keys[0]!)) {
		if (!forms.includes(fix)) {
			forms.push(fix);
			token.keys.push(skeleton(fix));
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/**
 * A pattern compiled for matching: its elements linked into a graph, each step pointing to the one after it and an
 * alternative to the first step of each option, whose last step points to what follows the alternative. A class is
 * copied in place at each use, so a step always knows where to go on and the search needs no continuation stack; an
 * option that is only another class is replaced by that class's options (see flatten).
 */
interface Step {
	kind: typeof WORD | typeof GAP | typeof ALT | typeof END;
	/** WORD: the tests of the word. */
	tests: Test[];
	/** ALT: the options' index by first word (shared by every copy of a class) and the first step of each option. */
	options: Options | null;
	heads: Step[];
	/** ALT: for each option that starts with a plain word, the words that may follow that word (null: any). */
	follows: (Words | null)[];
	/** WORD, ALT: may be skipped. GAP: how many words it may skip. */
	opt: boolean;
	max: number;
	next: Step | null;
	/**
	 * The tokens from which this step is known to fail in scan `failedIn` with scope end `failedLimit`: a bit each,
	 * from token `failedBase` on.
	 */
	failedIn: number;
	failedLimit: number;
	failedBase: number;
	failed: number;
}
const WORD = 0;
const GAP = 1;
const ALT = 2;
const END = 3;

function newStep(kind: Step['kind'], next: Step | null, fields: Partial<Step> = {}): Step {
	return {
		kind,
		tests: [],
		options: null,
		heads: [],
		follows: [],
		opt: false,
		max: 0,
		next,
		failedIn: -1,
		failedLimit: 0,
		failedBase: 0,
		failed: 0,
		...fields,
	};
}
const END_STEP = newStep(END, null);

function compileSteps(els: El[], next: Step, flat: (opts: Options) => Options): Step {
	let step = next;
	for (let i = els.length - 1; i >= 0; i--) {
		const el = els[i]!;
		const after = step;
		if (el.k === 'w') step = newStep(WORD, after, { tests: el.tests, opt: el.opt });
		else if (el.k === 'gap') step = newStep(GAP, after, { max: Math.abs(el.max) });
		else {
			const options = flat(el.opts);
			step = newStep(ALT, after, { options, heads: options.list.map((option) => compileSteps(option, after, flat)), opt: el.opt });
		}
	}
	return step;
}

/**
 * The options of an alternative with each option that is just another alternative (a class of classes: @INTEND
 * starts with @GOING) replaced by that one's options: the same search in the same order, one lookup fewer.
 */
function flatten(opts: Options, done: Map<Options, Options>, wordIds: Map<string, number>): Options {
	let flat = done.get(opts);
	if (!flat) {
		const nested = (els: El[]): boolean => els.length === 1 && els[0]!.k === 'alt' && !els[0]!.opt;
		if (!opts.list.some(nested)) flat = opts;
		else {
			flat = indexOptions(
				opts.list.flatMap((els) => (nested(els) ? flatten((els[0] as { opts: Options }).opts, done, wordIds).list : [els])),
				'',
			);
			indexById(flat, wordIds);
		}
		done.set(opts, flat);
	}
	return flat;
}

/** Fills in Options.firstWords (once the vocabulary is complete). */
function indexById(opts: Options, wordIds: Map<string, number>): void {
	const byId = [...opts.first].map(([key, list]) => [wordIds.get(key)!, list] as const).sort((a, b) => a[0] - b[0]);
	opts.firstWords = Int32Array.from(byId, ([id]) => id);
	// With the options always tried already in (the matcher merges lists only for a token with several words).
	opts.firstLists = byId.map(([, list]) => mergeSorted(opts.open, list));
	for (const [id] of byId) opts.firstBits |= idBit(id);
}

/** See Phrase.needs. */
function needsOf(els: El[], wordIds: Map<string, number>): (readonly number[])[] | null {
	const needs: number[][] = [];
	for (const el of els) {
		if (el.k === 'gap' || el.opt) continue;
		const first = firstTests([el], '');
		if (first.nullable || first.tests.some((t) => t.t !== 'x')) continue;
		needs.push([...new Set(first.tests.map((t) => wordIds.get((t as { key: string }).key)!))]);
	}
	needs.sort((a, b) => a.length - b.length);
	return needs.length > 0 ? needs : null;
}

/** See Phrase.follow. */
function followOf(start: Step, wordIds: Map<string, number>): Map<number, Words | null> | null {
	const firsts: [string, Step][] = [];
	const collectFirsts = (step: Step): boolean => {
		if (step.kind === WORD) {
			for (const t of step.tests) {
				if (t.t !== 'x') return false;
				firsts.push([t.key, step.next!]);
			}
			return !step.opt || collectFirsts(step.next!);
		}
		if (step.kind === ALT) return step.heads.every(collectFirsts) && (!step.opt || collectFirsts(step.next!));
		return false;
	};
	if (!collectFirsts(start)) return null;
	const follow = new Map<number, Words | null>();
	for (const [key, after] of firsts) {
		const id = wordIds.get(key)!;
		if (follow.has(id) && follow.get(id) === null) continue;
		follow.set(id, wordsFrom(after, wordIds, follow.get(id)?.ids ?? []));
	}
	return follow;
}

/** Word ids, and their bits (see Token.idBits) for a quick test. */
interface Words {
	ids: readonly number[];
	bits: number;
}
function wordSet(ids: readonly number[]): Words {
	return { ids, bits: ids.reduce((bits, id) => bits | idBit(id), 0) };
}
const NO_WORDS = wordSet([]);

/** Whether the token is one of the words. */
function isOneOf(words: Words, token: Token): boolean {
	if ((token.idBits & words.bits) === 0) return false;
	const ids = token.ids;
	for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0 && words.ids.includes(ids[k]!)) return true;
	return token.pairId >= 0 && words.ids.includes(token.pairId);
}

/** The words the next token may be from a step on (with `more`), or null when it may be any token. */
function wordsFrom(start: Step, wordIds: Map<string, number>, more: readonly number[] = []): Words | null {
	const words = new Set(more);
	const seen = new Set<Step>();
	const add = (step: Step): boolean => {
		if (seen.has(step)) return true;
		seen.add(step);
		if (step.kind === WORD) {
			for (const t of step.tests) {
				if (t.t !== 'x') return false;
				words.add(wordIds.get(t.key)!);
			}
			return !step.opt || add(step.next!);
		}
		if (step.kind === ALT) return step.heads.every(add) && (!step.opt || add(step.next!));
		return false;
	};
	return add(start) ? wordSet([...words]) : null;
}

/**
 * Fills in, for every alternative, the words that may follow the first word of each option (see Step.follows). The
 * steps already done are in `done`, and what may come after a step in `after` (the options of an alternative mostly
 * share what follows them).
 */
function linkFollows(start: Step, wordIds: Map<string, number>, done: Set<Step>, after: Map<Step, Words | null>): void {
	const wordsAfter = (step: Step): Words | null => {
		let words = after.get(step);
		if (words === undefined) after.set(step, (words = wordsFrom(step, wordIds)));
		return words;
	};
	const stack = [start];
	while (stack.length > 0) {
		const step = stack.pop()!;
		if (done.has(step)) continue;
		done.add(step);
		if (step.next) stack.push(step.next);
		if (step.kind !== ALT) continue;
		stack.push(...step.heads);
		const plainWord = (head: Step): boolean => head.kind === WORD && !head.opt && head.tests.every((t) => t.t === 'x');
		step.follows = step.heads.map((head) => (plainWord(head) ? wordsAfter(head.next!) : null));
	}
}

/**
 * The words that may follow `token` when it starts the phrase (null: any). A first word written in two parts ("my
 * self") is not looked at.
 */
function followAt(phrase: Phrase, token: Token): Words | null {
	if (!phrase.follow || token.pairId >= 0) return null;
	let words = NO_WORDS;
	const ids = token.ids;
	for (let k = 0; k < ids.length; k++) {
		const more = ids[k]! >= 0 ? phrase.follow.get(ids[k]!) : undefined;
		if (more === null) return null;
		if (more) words = words === NO_WORDS ? more : wordSet([...words.ids, ...more.ids]);
	}
	return words;
}

interface Cursor {
	tokens: Token[];
	/** The scan (signals or markers of one message) whose failures the steps remember. */
	scan: number;
	/** The attempt's first token and the end of its scope (its sentence, two with `~~`, or its clause). */
	start: number;
	limit: number;
	budget: number;
	/** Indices of the tokens skipped by gaps so far: the first `ng` of `gaps`. */
	gaps: number[];
	ng: number;
	/** Where the match ended. */
	end: number;
}

/** Failures are remembered for the first 32 tokens from an attempt's start, a bit each (no phrase is that long). */
const MEMO_SPAN = 32;

/**
 * Whether the pattern matches from `step` at token ti: a depth-first search in lexicon order, so the first path that
 * completes is the match. Whether the rest of a pattern matches from a step and a token depends on nothing else (but
 * the end of the scope), so a failure is remembered for the rest of the scan: several options ending on the same
 * token (a class like @GOING: "im gonna" and "gonna") lead to one search of what follows, in one attempt or the next.
 */
function match(step: Step, ti: number, cur: Cursor): boolean {
	const kind = step.kind;
	if (kind === END) {
		cur.end = ti;
		return true;
	}
	if (step.failedIn !== cur.scan || step.failedLimit !== cur.limit || cur.start - step.failedBase >= MEMO_SPAN) {
		step.failedIn = cur.scan;
		step.failedLimit = cur.limit;
		step.failedBase = cur.start;
		step.failed = 0;
	} else if (cur.start > step.failedBase) {
		step.failed >>>= cur.start - step.failedBase;
		step.failedBase = cur.start;
	}
	const offset = ti - step.failedBase;
	const bit = offset < MEMO_SPAN ? 1 << offset : 0;
	if (step.failed & bit) return false;
	if (--cur.budget < 0) return false;
	const next = step.next!;
	if (kind === WORD) {
		const used = ti < cur.limit ? wordAt(step.tests, cur.tokens[ti]!, ti, cur) : 0;
		if (used > 0 && match(next, ti + used, cur)) return true;
		if (step.opt && match(next, ti, cur)) return true;
	} else if (kind === GAP) {
		const mark = cur.ng;
		for (let g = 0; g <= step.max; g++) {
			if (g > 0) {
				if (ti + g - 1 >= cur.limit) break;
				cur.gaps[cur.ng++] = ti + g - 1;
			}
			if (match(next, ti + g, cur)) return true;
		}
		cur.ng = mark;
	} else {
		const options = optionsAt(step.options!, ti, cur);
		const heads = step.heads;
		// An option whose first word is this token goes on only if the next token may follow that word.
		const single = ti < cur.limit && cur.tokens[ti]!.pairId < 0;
		const following = single && ti + 1 < cur.limit ? cur.tokens[ti + 1]! : null;
		for (let o = 0; o < options.length; o++) {
			const words = step.follows[options[o]!]!;
			if (words !== null && single && !(following && isOneOf(words, following))) continue;
			if (match(heads[options[o]!]!, ti, cur)) return true;
		}
		if (step.opt && match(next, ti, cur)) return true;
	}
	// A search cut short by the budget proves nothing.
	if (cur.budget >= 0) step.failed |= bit;
	return false;
}

function testToken(test: Test, token: Token): boolean {
	if (test.t === 'n') {
		if (Number.isNaN(token.num)) return false;
		if (test.range === 'big') return token.num >= 10;
		if (test.range === 'year') return token.num >= 1900 && token.num <= 2099;
		return true;
	}
	const keys = token.keys;
	if (test.t === 'p') {
		for (let i = 0; i < keys.length; i++) if (keys[i]!.startsWith(test.key)) return true;
		return false;
	}
	if (test.start && !token.initial) return false;
	const forms = token.forms;
	const loose = test.loose || token.elongated || !token.known;
	for (let i = 0; i < forms.length; i++) {
		if (forms[i] === test.lit || (loose && keys[i] === test.key)) return true;
	}
	return false;
}

/** Tokens consumed by a word element at ti (in scope): 1, 2 (a word written in two parts: "my self", "sewer slide") or 0. */
function wordAt(tests: Test[], token: Token, ti: number, cur: Cursor): number {
	for (let i = 0; i < tests.length; i++) if (testToken(tests[i]!, token)) return 1;
	if (!token.pairForm) return 0;
	const next = cur.tokens[ti + 1]!;
	const loose = token.elongated || next.elongated || !token.known || !next.known;
	for (let i = 0; i < tests.length; i++) {
		const test = tests[i]!;
		if (test.t !== 'x' || test.lit.length < 3 || (test.start && !token.initial)) continue;
		if (token.pairForm === test.lit || ((test.loose || loose) && token.pairKey === test.key)) return 2;
	}
	return 0;
}

/** Two ascending lists of option numbers as one, without repeats. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
	const out: number[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		const x = i < a.length ? a[i]! : Infinity;
		const y = j < b.length ? b[j]! : Infinity;
		if (x <= y) {
			out.push(x);
			i++;
			if (x === y) j++;
		} else {
			out.push(y);
			j++;
		}
	}
	return out;
}

/** The options whose first word is the word `id` (a binary search: most alternatives have a few first words). */
function optionsOf(opts: Options, id: number): number[] | undefined {
	const words = opts.firstWords;
	let lo = 0;
	let hi = words.length - 1;
	while (lo <= hi) {
		const mid = (lo + hi) >> 1;
		const at = words[mid]!;
		if (at === id) return opts.firstLists[mid];
		if (at < id) lo = mid + 1;
		else hi = mid - 1;
	}
	return undefined;
}

/** The options that may start at ti, in lexicon order (the first that matches wins, so order is kept). */
function optionsAt(opts: Options, ti: number, cur: Cursor): readonly number[] {
	if (ti >= cur.limit) return opts.open;
	const token = cur.tokens[ti]!;
	if ((token.idBits & opts.firstBits) === 0) return opts.open;
	let found: readonly number[] | undefined;
	const ids = token.ids;
	for (let k = 0; k <= ids.length; k++) {
		const id = k < ids.length ? ids[k]! : token.pairId;
		const list = id >= 0 ? optionsOf(opts, id) : undefined;
		if (list && list !== found) found = found ? mergeSorted(found, list) : list;
	}
	return found ?? opts.open;
}

let stampCounter = 0;
const NO_PHRASES: Phrase[] = [];
/** The gaps of a match that skipped no word (shared: never written to). */
const NO_GAPS: readonly number[] = [];
const NO_FOLLOWS: (Words | null)[] = [];

/** Marks the words of the sentence that starts at token `from` as seen in it (see Phrase.needs); returns its end. */
function markSentence(seenIn: Float64Array, tokens: Token[], from: number, mark: number): number {
	const sent = tokens[from]!.sent;
	let i = from;
	for (; i < tokens.length && tokens[i]!.sent === sent; i++) {
		const ids = tokens[i]!.ids;
		for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0) seenIn[ids[k]!] = mark;
		if (tokens[i]!.pairId >= 0) seenIn[tokens[i]!.pairId] = mark;
	}
	return i;
}

/** The index just past the sentence (`clause`: the clause) of token `from`. */
function endOf(tokens: Token[], from: number, clause: boolean): number {
	const token = tokens[from]!;
	let i = from + 1;
	while (i < tokens.length && (clause ? tokens[i]!.clause === token.clause : tokens[i]!.sent === token.sent)) i++;
	return i;
}

/** Whether the sentence marked `mark` holds a word for each of the phrase's needs (see Phrase.needs). */
function possibleIn(phrase: Phrase, seenIn: Float64Array, mark: number): boolean {
	if (phrase.checkedIn !== mark) {
		phrase.checkedIn = mark;
		phrase.possible = seenAll(phrase.needs!, seenIn, mark);
	}
	return phrase.possible;
}

function seenAll(needs: (readonly number[])[], seenIn: Float64Array, mark: number): boolean {
	for (let n = 0; n < needs.length; n++) {
		const words = needs[n]!;
		let seen = false;
		for (let k = 0; k < words.length && !seen; k++) seen = seenIn[words[k]!] === mark;
		if (!seen) return false;
	}
	return true;
}

/** Marks the phrases of a list active in this message (and collects them once). */
function activate(list: Phrase[] | undefined, active: number, live: Phrase[]): void {
	if (!list) return;
	for (let i = 0; i < list.length; i++) {
		const p = list[i]!;
		if (p.active !== active) {
			p.active = active;
			p.rank = live.length;
			p.lastClause = -1;
			live.push(p);
		}
	}
}

/**
 * The active phrases that may start at a token: by its keys, the two-word form, a prefix or a number. `ranked`: each
 * list in the order the phrases became active (as a long message has always listed them: the order of the matches
 * found at one token), else in lexicon order.
 */
function candidatesAt(token: Token, ix: PhraseIndex, active: number, stamp: number, ranked: boolean, out: Phrase[]): Phrase[] {
	const take = (list: Phrase[] | undefined): void => {
		if (!list) return;
		const from = out.length;
		for (let i = 0; i < list.length; i++) {
			const p = list[i]!;
			if (p.stamp !== stamp && p.active === active) {
				p.stamp = stamp;
				out.push(p);
			}
		}
		if (ranked) {
			for (let i = from + 1; i < out.length; i++) {
				const p = out[i]!;
				let j = i;
				for (; j > from && out[j - 1]!.rank > p.rank; j--) out[j] = out[j - 1]!;
				out[j] = p;
			}
		}
	};
	const keys = token.keys;
	const ids = token.ids;
	const prefix = ix.prefix.size > 0;
	for (let k = 0; k < keys.length; k++) {
		if (ids[k]! >= 0) take(ix.exact[ids[k]!]);
		if (prefix && keys[k]!.length >= 3) take(ix.prefix.get(keys[k]!.slice(0, 3)));
	}
	if (token.pairId >= 0) take(ix.exact[token.pairId]);
	if (!Number.isNaN(token.num)) take(ix.numeric);
	return out;
}

/**
 * The matches of one kind of phrase (signals or markers), in text order. First the phrases whose anchors occur in the
 * message are marked active (none: only compounds remain to check), then each token looks up the few that may start
 * there and tries those whose next word can follow and whose sentence holds all they need. Long messages remember
 * the candidates of each distinct word (in the cache the tokens of a repeated word share), so a word repeated a
 * thousand times costs one lookup.
 */
function scanPhrases(c: Compiled, tokens: Token[], signals: boolean, matches: Match[]): void {
	const base = signals ? c.signals : c.markers;
	const active = ++stampCounter;
	const live: Phrase[] = [];
	activate(base.unanchored, active, live);
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		if (token.pairId >= 0) activate(base.anchors[token.pairId], active, live);
		// The words of a repeated word activate nothing new.
		if (token.cache.anchoredIn === active) continue;
		token.cache.anchoredIn = active;
		const ids = token.ids;
		for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0) activate(base.anchors[ids[k]!], active, live);
	}
	if (live.length === 0 && !signals) return;
	const remember = tokens.length > 64 && live.length > 0;

	const cur: Cursor = { tokens, scan: active, start: 0, limit: 0, budget: 0, gaps: [], ng: 0, end: -1 };
	const scratch: Phrase[] = [];
	const followScratch: (Words | null)[] = [];
	// Bare signals never count in a longer message: not worth matching.
	const bareless = signals && tokens.length > BARE_MAX_TOKENS;
	// Signals stay in their sentence (and the next with `~~`), markers in their clause.
	let sentence = -1;
	let sentenceEnd = 0;
	let nextSentenceEnd = -1;
	let scopeEnd = 0;
	for (let ti = 0; ti < tokens.length; ti++) {
		const token = tokens[ti]!;
		if (ti === sentenceEnd) {
			sentence = ++stampCounter;
			sentenceEnd = markSentence(c.seenIn, tokens, ti, sentence);
			nextSentenceEnd = -1;
		}
		if (ti === scopeEnd) scopeEnd = signals ? sentenceEnd : endOf(tokens, ti, true);
		let candidates = NO_PHRASES;
		let follows = NO_FOLLOWS;
		let whole: Phrase[] | null = null;
		if (live.length > 0) {
			if (remember) {
				const cache = token.cache;
				if (cache.scan === active && cache.scanPair === token.pairKey) {
					candidates = cache.candidates as Phrase[];
					follows = cache.follows as (Words | null)[];
					whole = cache.compounds as Phrase[];
				} else {
					candidates = candidatesAt(token, base, active, ++stampCounter, true, []);
					follows = candidates.map((p) => followAt(p, token));
					whole = signals ? compoundsOf(c, token.keys) : NO_PHRASES;
					cache.scan = active;
					cache.scanPair = token.pairKey;
					cache.candidates = candidates;
					cache.follows = follows;
					cache.compounds = whole;
				}
			} else {
				scratch.length = 0;
				candidates = candidatesAt(token, base, active, ++stampCounter, false, scratch);
				follows = followScratch;
				follows.length = 0;
				for (let k = 0; k < candidates.length; k++) follows.push(followAt(candidates[k]!, token));
			}
		}
		const next = ti + 1 < scopeEnd ? tokens[ti + 1] : undefined;
		for (let k = 0; k < candidates.length; k++) {
			const phrase = candidates[k]!;
			let limit = scopeEnd;
			let following = next;
			if (signals && phrase.cross) {
				// A `~~` gap reaches into the next sentence.
				if (nextSentenceEnd < 0) {
					const more = sentenceEnd < tokens.length && tokens[sentenceEnd]!.sent === token.sent + 1;
					nextSentenceEnd = more ? endOf(tokens, sentenceEnd, false) : sentenceEnd;
				}
				limit = nextSentenceEnd;
				following = ti + 1 < limit ? tokens[ti + 1] : undefined;
			}
			const words = follows[k]!;
			if (words !== null && !(following && isOneOf(words, following))) continue;
			if (phrase.once && phrase.lastClause === token.clause) continue;
			if (bareless && phrase.bare) continue;
			if (phrase.needs && !possibleIn(phrase, c.seenIn, sentence)) continue;
			cur.start = ti;
			cur.limit = limit;
			cur.budget = STEP_BUDGET;
			cur.ng = 0;
			if (match(phrase.steps, ti, cur)) {
				matches.push({ phrase, start: ti, end: cur.end, gaps: cur.ng > 0 ? cur.gaps.slice(0, cur.ng) : NO_GAPS });
				phrase.lastClause = token.clause;
			}
		}
		if (!signals) continue;
		whole ??= compoundsOf(c, token.keys);
		for (let k = 0; k < whole.length; k++) {
			const phrase = whole[k]!;
			if (bareless && phrase.bare) continue;
			let found = false;
			for (let m = matches.length - 1; m >= 0 && matches[m]!.start === ti && !found; m--) found = matches[m]!.phrase === phrase;
			if (!found) matches.push({ phrase, start: ti, end: ti + 1, gaps: NO_GAPS });
		}
	}
}

/** The phrases a word can be written together as ("killmyself"), for each of its keys in order. */
function compoundsOf(c: Compiled, keys: string[]): Phrase[] {
	let out: Phrase[] | null = null;
	for (let k = 0; k < keys.length; k++) {
		const key = keys[k]!;
		const list = key.length >= 6 ? c.compound.get(key) : undefined;
		if (!list) continue;
		if (!out) out = list.slice();
		else out.push(...list);
	}
	return out ?? NO_PHRASES;
}

/** The signal matches of a message, in text order (a phrase written as one word included). */
export function findSignals(c: Compiled, tokens: Token[]): Match[] {
	const matches: Match[] = [];
	scanPhrases(c, tokens, true, matches);
	return matches;
}

/** The marker matches of a message (negation, past, jokes, times...), in text order. */
export function findMarkers(c: Compiled, tokens: Token[]): Match[] {
	const matches: Match[] = [];
	scanPhrases(c, tokens, false, matches);
	return matches;
}

/** All matches: the signals, then the markers. */
export function findMatches(c: Compiled, tokens: Token[]): Match[] {
	return [...findSignals(c, tokens), ...findMarkers(c, tokens)];
}
