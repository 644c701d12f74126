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
 * Matching is a bounded depth-first search from indexed first words: no regular expressions, a step budget per
 * attempt, so the cost is linear in the input whatever it holds. Speed: words become numbers once (`wordIds`), so
 * the indexes are arrays; a phrase is tried only where its first word is and when one of its rarest words (anchors)
 * is in the message; signals are matched first and markers only if some signal matched (most messages stop there);
 * a repeated word is read, corrected and looked up once (its tokens share a `WordCache`); in a long message, where a
 * class such as @GOING ends from a position is found once and shared by every phrase that starts with it.
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
type Test = { t: 'x'; key: string; lit: string; loose: boolean; start: boolean } | { t: 'p'; key: string } | { t: 'n'; range: 'big' | 'num' | 'year' };
/** Options of an alternative, indexed by the skeletons that can start them, so a failing position costs one lookup. */
interface Options {
	list: El[][];
	first: Map<string, number[]>;
	/** The same by word id (filled in once the vocabulary is complete): what the matcher uses. */
	firstIds: Map<number, number[]>;
	/** Options that start with a prefix, a number or an optional element: always tried. */
	open: number[];
	/** Some option is longer than one word (else the matcher tries each option's word in place). */
	deep: boolean;
	/**
	 * In a long message, where such an alternative (a class like @GOING, which starts many phrases) ends from each
	 * position: found once, reused by every phrase that reaches the same position (valid while `memoStamp` is the
	 * scan's; `memoScope` is the sentence or clause scope it was found in).
	 */
	memoStamp: number;
	memo: (Span[] | null | undefined)[] | null;
	memoScope: number[] | null;
}
/** One way an alternative matches from a position: where it ends and the tokens its gaps skipped. */
interface Span {
	end: number;
	gaps: number[];
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
	/** What its first word can be: skeletons (and their word ids), three-letter prefixes of prefix tests, or any number. */
	firstKeys: string[];
	firstIds: number[];
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
	/**
	 * "and", "then": the subject of the verb after one is the subject before it ("she has pills and will take them"),
	 * the nearest of `subjects` (subject pronouns). Only for languages that write their subjects (not es, it, pt:
	 * "mi amigo está triste y quiero morir" is about me).
	 */
	coord: Set<string>;
	subjects: Set<string>;
}

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
				cx.compiled.set(name, { list: [], first: new Map(), firstIds: new Map(), open: [], deep: false, memoStamp: -1, memo: null, memoScope: null });
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
	const deep = list.some((els) => els.length !== 1 || els[0]!.k !== 'w' || els[0]!.opt);
	const options: Options = { list, first: new Map(), firstIds: new Map(), open: [], deep, memoStamp: -1, memo: null, memoScope: null };
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
		const sets = { negators: set('negators'), self: set('self'), other: set('other'), transparent: set('transparent'), coord: set('coord'), subjects: set('subjects') };
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
				firstIds: [],
				firstPrefixes: [],
				firstNumber: false,
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
			for (const [key, list] of el.opts.first) el.opts.firstIds.set(c.wordIds.get(key)!, list);
			for (const opt of el.opts.list) visit(opt);
		}
	};
	for (const p of c.phrases) {
		visit(p.els);
		p.firstIds = p.firstKeys.map((key) => c.wordIds.get(key)!);
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

/** Tokenises and adds typo corrections as extra keys. */
export function prepare(c: Compiled, text: string): Token[] {
	const tokens = tokenize(text, segmenter(c), (key) => c.vocabPrefixes.has(key));
	// A repeated word is corrected once (its tokens share their spelling arrays and cache); every occurrence counts as
	// known or not as written, whether or not the tokenizer shared its reading.
	let memo: Map<string, string[]> | null = null;
	const rawVocab = c.rawVocab;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		if (token.emoji || !Number.isNaN(token.num)) continue;
		const cache = token.cache;
		if (cache.corrected) {
			token.known = cache.knownBefore;
			continue;
		}
		const forms = token.forms;
		let known = false;
		for (let k = 0; k < forms.length && !known; k++) known = rawVocab.has(forms[k]!);
		token.known = known;
		if (!known) {
			const form = forms[0]!;
			let fixes = memo?.get(form);
			if (!fixes) {
				fixes = corrections(c, form, token.keys[0]!);
				if (tokens.length > 64) (memo ??= new Map()).set(form, fixes);
			}
			for (const fix of fixes) {
				if (!forms.includes(fix)) {
					forms.push(fix);
					token.keys.push(skeleton(fix));
				}
			}
		}
		cache.corrected = true;
		cache.knownBefore = known;
	}
	const wordIds = c.wordIds;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		// Words as lexicon numbers; later lookups skip what no lexicon word can be.
		const cache = token.cache;
		let ids = cache.ids;
		if (!ids) {
			const keys = token.keys;
			ids = cache.ids = new Array<number>(keys.length);
			let lexical = false;
			for (let k = 0; k < keys.length; k++) {
				const id = wordIds.get(keys[k]!) ?? -1;
				ids[k] = id;
				if (id >= 0) lexical = true;
			}
			cache.lexical = lexical;
		}
		token.ids = ids;
		token.lexical = cache.lexical;
		if (token.pairKey) {
			const pair = wordIds.get(token.pairKey);
			if (pair === undefined) token.pairForm = token.pairKey = '';
			else token.pairId = pair;
		}
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
	/** Indices of the tokens skipped by gaps so far: the first `ng` of `gaps`. */
	gaps: number[];
	ng: number;
	/** Long messages remember where alternatives end (`stamp`: this scan; `size`: tokens + 1). */
	memo: boolean;
	stamp: number;
	size: number;
	/** Where the match ended; the spans being listed (spansAt) and the gap count when their listing began. */
	end: number;
	spans: Span[] | null;
	spanMark: number;
}

/** Messages longer than this remember where alternatives end (in short ones the bookkeeping costs more than it saves). */
const MEMO_MIN_TOKENS = 64;
/** Steps allowed to list every way an alternative matches from one position (more: it is searched as usual). */
const SPAN_BUDGET = 256;
const NO_GAPS: number[] = [];

/**
 * Every way the options of an alternative match from ti, in the order the depth-first search tries them (so the first
 * that lets the rest of the phrase match is the one the search would find), or null when listing them would take more
 * than SPAN_BUDGET steps. Remembered per position and scope for the rest of the scan.
 */
function spansAt(opts: Options, ti: number, cur: Cursor): Span[] | null {
	if (opts.memoStamp !== cur.stamp) {
		opts.memoStamp = cur.stamp;
		opts.memo = new Array(cur.size);
		opts.memoScope = new Array(cur.size);
	}
	const memo = opts.memo!;
	const scope = (cur.sent * 2 + (cur.cross ? 1 : 0)) * cur.size + cur.clause + 1;
	const known = memo[ti];
	if (known !== undefined && opts.memoScope![ti] === scope) return known;
	const budget = cur.budget;
	const outerSpans = cur.spans;
	const outerMark = cur.spanMark;
	const spans: Span[] = [];
	cur.spans = spans;
	cur.spanMark = cur.ng;
	cur.budget = SPAN_BUDGET;
	const options = optionsAt(opts, ti, cur);
	for (let k = 0; k < options.length && cur.budget >= 0; k++) matchFrom(opts.list[options[k]!]!, 0, ti, cur, COLLECT);
	const result = cur.budget >= 0 ? (spans.length > 0 ? spans : NO_SPANS) : null;
	cur.ng = cur.spanMark;
	cur.spans = outerSpans;
	cur.spanMark = outerMark;
	cur.budget = budget;
	memo[ti] = result;
	opts.memoScope![ti] = scope;
	return result;
}

/**
 * What to match once a pattern is complete: the rest of the pattern that contains it (`els` from `ei`), then that
 * one's continuation. null: the phrase is complete; COLLECT: record a span (see spansAt).
 */
interface Continuation {
	els: El[];
	ei: number;
	next: Continuation | null;
}
const COLLECT: Continuation = { els: [], ei: 0, next: null };
const NO_SPANS: Span[] = [];

function matchFrom(els: El[], ei: number, ti: number, cur: Cursor, k: Continuation | null): boolean {
	if (--cur.budget < 0) return false;
	if (ei === els.length) {
		if (k === null) {
			cur.end = ti;
			return true;
		}
		if (k === COLLECT) {
			const mark = cur.spanMark;
			cur.spans!.push({ end: ti, gaps: cur.ng > mark ? cur.gaps.slice(mark, cur.ng) : NO_GAPS });
			return false;
		}
		return matchFrom(k.els, k.ei, ti, cur, k.next);
	}
	const el = els[ei]!;
	if (el.k === 'gap') {
		const max = el.max < 0 ? -el.max : el.max;
		const mark = cur.ng;
		for (let g = 0; g <= max; g++) {
			if (g > 0) {
				const token = cur.tokens[ti + g - 1];
				if (!token || !inSentence(cur, token)) break;
				cur.gaps[cur.ng++] = ti + g - 1;
			}
			if (matchFrom(els, ei + 1, ti + g, cur, k)) return true;
		}
		cur.ng = mark;
		return false;
	}
	if (el.k === 'w') {
		const used = wordAt(el.tests, ti, cur);
		if (used > 0 && matchFrom(els, ei + 1, ti + used, cur, k)) return true;
		return el.opt && matchFrom(els, ei + 1, ti, cur, k);
	}
	if (cur.memo && el.opts.deep) {
		const spans = spansAt(el.opts, ti, cur);
		if (spans) {
			for (let s = 0; s < spans.length; s++) {
				const span = spans[s]!;
				const mark = cur.ng;
				for (let g = 0; g < span.gaps.length; g++) cur.gaps[cur.ng++] = span.gaps[g]!;
				if (matchFrom(els, ei + 1, span.end, cur, k)) return true;
				cur.ng = mark;
			}
			return el.opt && matchFrom(els, ei + 1, ti, cur, k);
		}
	}
	const options = optionsAt(el.opts, ti, cur);
	if (options.length > 0 && !el.opts.deep) {
		// Every option is one word: try each right here, without a continuation.
		const list = el.opts.list;
		for (let o = 0; o < options.length; o++) {
			const word = list[options[o]!]![0] as { k: 'w'; tests: Test[] };
			const used = wordAt(word.tests, ti, cur);
			if (used > 0 && matchFrom(els, ei + 1, ti + used, cur, k)) return true;
		}
	} else if (options.length > 0) {
		const list = el.opts.list;
		const next: Continuation = { els, ei: ei + 1, next: k };
		for (let o = 0; o < options.length; o++) if (matchFrom(list[options[o]!]!, 0, ti, cur, next)) return true;
	}
	return el.opt && matchFrom(els, ei + 1, ti, cur, k);
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

function inSentence(cur: Cursor, token: Token): boolean {
	if (cur.clause >= 0 && token.clause !== cur.clause) return false;
	return cur.cross ? Math.abs(token.sent - cur.sent) <= 1 : token.sent === cur.sent;
}

/** Tokens consumed by a word element at ti: 1, 2 (a word written in two parts: "my self", "sewer slide") or 0. */
function wordAt(tests: Test[], ti: number, cur: Cursor): number {
	const token = cur.tokens[ti];
	if (!token || !inSentence(cur, token)) return 0;
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

/** The options that may start at ti, in lexicon order (the first that matches wins, so order is kept). */
function optionsAt(opts: Options, ti: number, cur: Cursor): readonly number[] {
	const token = cur.tokens[ti];
	if (!token || !inSentence(cur, token)) return opts.open;
	let found: readonly number[] = opts.open;
	const ids = token.ids;
	for (let k = 0; k <= ids.length; k++) {
		const id = k < ids.length ? ids[k]! : token.pairId;
		if (id < 0) continue;
		const list = opts.firstIds.get(id);
		if (!list || list === found) continue;
		found = found.length === 0 ? list : mergeSorted(found, list);
	}
	return found;
}

let stampCounter = 0;
const NO_PHRASES: Phrase[] = [];

/** Marks the phrases of a list active in this message (and collects them once). */
function activate(list: Phrase[] | undefined, active: number, live: Phrase[]): void {
	if (!list) return;
	for (let i = 0; i < list.length; i++) {
		const p = list[i]!;
		if (p.active !== active) {
			p.active = active;
			p.lastClause = -1;
			live.push(p);
		}
	}
}

/** The active phrases that may start at a token: by its keys, the two-word form, a prefix or a number. */
function candidatesAt(token: Token, ix: PhraseIndex, active: number, stamp: number, out: Phrase[]): Phrase[] {
	const take = (list: Phrase[] | undefined): void => {
		if (!list) return;
		for (let i = 0; i < list.length; i++) {
			const p = list[i]!;
			if (p.stamp !== stamp && p.active === active) {
				p.stamp = stamp;
				out.push(p);
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
 * there. Long messages first index the active phrases, and remember the candidates of each distinct word (in the
 * cache the tokens of a repeated word share), so a word repeated a thousand times costs one lookup.
 */
function scanPhrases(c: Compiled, tokens: Token[], signals: boolean, matches: Match[]): void {
	const base = signals ? c.signals : c.markers;
	const active = ++stampCounter;
	const live: Phrase[] = [];
	activate(base.unanchored, active, live);
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		const ids = token.ids;
		for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0) activate(base.anchors[ids[k]!], active, live);
		if (token.pairId >= 0) activate(base.anchors[token.pairId], active, live);
	}
	if (live.length === 0 && !signals) return;
	let ix = base;
	let remember = false;
	if (tokens.length > 64 && live.length > 0) {
		ix = { exact: new Array(base.exact.length), prefix: new Map(), numeric: [], anchors: base.anchors, unanchored: base.unanchored };
		for (const p of live) {
			for (const id of p.firstIds) (ix.exact[id] ??= []).push(p);
			for (const key of p.firstPrefixes) {
				const list = ix.prefix.get(key);
				if (list) list.push(p);
				else ix.prefix.set(key, [p]);
			}
			if (p.firstNumber) ix.numeric.push(p);
		}
		remember = true;
	}

	const cur: Cursor = {
		tokens,
		sent: 0,
		clause: -1,
		cross: false,
		budget: 0,
		gaps: [],
		ng: 0,
		memo: tokens.length > MEMO_MIN_TOKENS,
		stamp: active,
		size: tokens.length + 1,
		end: -1,
		spans: null,
		spanMark: 0,
	};
	const scratch: Phrase[] = [];
	// Bare signals never count in a longer message: not worth matching.
	const bareless = signals && tokens.length > BARE_MAX_TOKENS;
	for (let ti = 0; ti < tokens.length; ti++) {
		const token = tokens[ti]!;
		let candidates = NO_PHRASES;
		let whole: Phrase[] | null = null;
		if (live.length > 0) {
			if (remember) {
				const cache = token.cache;
				if (cache.scan === active && cache.scanPair === token.pairKey) {
					candidates = cache.candidates as Phrase[];
					whole = cache.compounds as Phrase[];
				} else {
					candidates = candidatesAt(token, ix, active, ++stampCounter, []);
					whole = signals ? compoundsOf(c, token.keys) : NO_PHRASES;
					cache.scan = active;
					cache.scanPair = token.pairKey;
					cache.candidates = candidates;
					cache.compounds = whole;
				}
			} else {
				scratch.length = 0;
				candidates = candidatesAt(token, ix, active, ++stampCounter, scratch);
			}
		}
		for (let k = 0; k < candidates.length; k++) {
			const phrase = candidates[k]!;
			if (phrase.once && phrase.lastClause === token.clause) continue;
			if (bareless && phrase.signal!.bare) continue;
			cur.sent = token.sent;
			cur.clause = phrase.signal ? -1 : token.clause;
			cur.cross = phrase.cross;
			cur.budget = STEP_BUDGET;
			cur.ng = 0;
			if (matchFrom(phrase.els, 0, ti, cur, null)) {
				matches.push({ phrase, start: ti, end: cur.end, gaps: cur.ng > 0 ? cur.gaps.slice(0, cur.ng) : [] });
				phrase.lastClause = token.clause;
			}
		}
		if (!signals) continue;
		whole ??= compoundsOf(c, token.keys);
		for (let k = 0; k < whole.length; k++) {
			const phrase = whole[k]!;
			if (bareless && phrase.signal!.bare) continue;
			let found = false;
			for (let m = matches.length - 1; m >= 0 && matches[m]!.start === ti && !found; m--) found = matches[m]!.phrase === phrase;
			if (!found) matches.push({ phrase, start: ti, end: ti + 1, gaps: [] });
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
