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
 * Compiling: compileLexicons reads each file (scan sets, signals, markers, fuzzy words) into Phrases, numbers every
 * lexicon word (`wordIds`), indexes the phrases by word id and compiles each pattern into a graph of Steps (a class is
 * copied in place, a choice that is only another class is replaced by its options).
 * Matching: each pattern is searched depth-first in lexicon order from the tokens where its first word is; the first
 * path that completes is the match (its end and gaps). No regular expressions. Whether the rest of a pattern matches
 * from a step and a token depends only on them (and where the sentence ends), so a failure there is remembered for the
 * rest of the scan (several ways to the same token, several starts: one search of what follows), and a step budget
 * bounds each attempt: the cost is linear in the input whatever it holds.
 * State: the compiled lexicon is read-only once built. Everything a scan writes (which phrases are active, which
 * words each sentence holds, the failures each step remembers, the candidates of each distinct word) lives in a
 * ScanState that the scan holds alone from start to end; states are kept for reuse (allocating their arrays costs more
 * than a typical scan), and a scan started while another is under way simply takes another one.
 * Speed: words become numbers once (`wordIds`), with a bit each for quick set tests; a phrase is tried only where its
 * first word is, when one of its rarest words (anchors) is in the message, when its sentence holds a word for each of
 * its mandatory elements (`needs`) and when the next token can follow its first word (`follow`; an option of a choice
 * likewise); signals are matched first and markers only if some signal matched (most messages stop there); a repeated
 * word is read, corrected and looked up once (its tokens share a WordCache, whose `index` numbers the distinct words
 * of the message). A 4,000-character adversarial message takes about 0.4 ms on a slow core, a typical message a few
 * tens of µs (bench/screen.ts).
 */
import type { CrisisCategory, CrisisLevel } from './types.ts';
import { CATEGORIES, isCrisisLevel } from './types.ts';
import { normalizeText, skeleton, tokenize, type Token } from './normalize.ts';

/** A signal as written in a lexicon file (the field names are the file's keys). */
export interface SignalSpec {
	id: string;
	/** Its category. */
	cat: CrisisCategory;
	level: CrisisLevel;
	/** Its patterns. */
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
	/** About someone else (third party). */
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
 * What one word of a pattern accepts. A `word` test has the word as written in the lexicon and its skeleton (`key`).
 * A token matches on its spelling, or on the skeleton when that cannot confuse two words (`loose`, or the token is
 * elongated, "diiie", or no lexicon word at all, "kil"): the lexicon word has no double letter ("die" for "diee") or
 * its skeleton is long (>= 5). So "of" never reads as "off", nor "feel" as "fell". `clauseInitial`: written `^word`.
 */
type WordTest =
	| { kind: 'word'; key: string; written: string; loose: boolean; clauseInitial: boolean }
	| { kind: 'prefix'; key: string }
	| { kind: 'number'; range: NumberRange };
type NumberRange = 'big' | 'num' | 'year';

/** The options of a choice (`(a|b)` or a class), indexed by the skeletons that can start them, so a failing position costs one lookup. */
interface Choice {
	options: Element[][];
	/** Option numbers by the skeleton of a word that can start them. */
	byFirstKey: Map<string, number[]>;
	/**
	 * The same by word id (filled in once the vocabulary is complete): the ids in ascending order, and for each the
	 * option numbers (with `alwaysTried` merged in).
	 */
	firstWordIds: Int32Array;
	optionsByFirstWord: number[][];
	/** Options that start with a prefix, a number or an optional element: always tried. */
	alwaysTried: number[];
	/** The bits of the word ids in `firstWordIds` (see Token.idBits). */
	firstWordBits: number;
}

/** An element of a parsed pattern. A gap's `max` is the number of words it may skip; `crossesSentence` for `~~`. */
type Element =
	| { kind: 'word'; tests: WordTest[]; optional: boolean }
	| { kind: 'choice'; choice: Choice; optional: boolean }
	| { kind: 'gap'; max: number; crossesSentence: boolean };

export interface Phrase {
	/** `<lang>.<id>` for signals, `<lang>:<kind>` for markers. */
	id: string;
	lang: string;
	/** 'signal' or a marker kind (past, fiction, joke, time ...). */
	kind: string;
	signal: SignalSpec | null;
	elements: Element[];
	/** The first step of the pattern compiled for matching (see Step). */
	start: Step;
	/** Has a `~~` gap: may span two sentences. */
	crossesSentence: boolean;
	/** Its number, in lexicon order (a scan keeps what it learns about the phrase in arrays by it, see ScanState). */
	serial: number;
	/** A marker that needs no more than one match per clause. */
	once: boolean;
	/** A signal that counts only in a message of a few words (SignalSpec.bare). */
	bare: boolean;
	/**
	 * By the word id of its first token, the word ids its second token may have (null: any, after a gap or at the end);
	 * null when its first word is not always a plain word. Most phrases tried at a token fail on the next one.
	 */
	follow: Map<number, Words | null> | null;
	/**
	 * For each of its mandatory elements, the word ids that can start it (fewest first): a phrase can match only in a
	 * sentence that holds one of each (checked once per sentence); null for a phrase that may span two sentences.
	 */
	needs: (readonly number[])[] | null;
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
	/** Phrases by what their first word can be: a word (by word id, see `CompiledLexicon.wordIds`), a prefix's first three letters, any number. */
	byFirstWord: (Phrase[] | undefined)[];
	byFirstPrefix: Map<string, Phrase[]>;
	startingWithNumber: Phrase[];
	/** Phrases by their anchor words (by word id): a phrase is tried only when one of its anchors is in the message. */
	byAnchor: (Phrase[] | undefined)[];
	unanchored: Phrase[];
}

/** The lexicons compiled: read-only once compileLexicons returns (scans keep their state in a ScanState). */
export interface CompiledLexicon {
	phrases: Phrase[];
	/** The scan sets of each language (the `scan` section of its file). */
	scan: Map<string, ScanSets>;
	languages: string[];
	/** Phrases written as one word ("killmyself", "wannadie"), by that word's skeleton. */
	compounds: Map<string, Phrase[]>;
	signals: PhraseIndex;
	markers: PhraseIndex;
	/** A number for the skeleton of each lexicon word: tokens carry their words' numbers, and the indexes are arrays. */
	wordIds: Map<string, number>;
	/** Every prefix of those skeletons: two words written together can be a lexicon word only if the first is one. */
	keyPrefixes: Set<string>;
	/** Every lexicon word as written. */
	writtenWords: Set<string>;
	wordsByLength: Map<number, string[]>;
	/** Words by swap signature (length and letter sum): candidates for one swapped pair of letters. */
	wordsBySwap: Map<number, string[]>;
	/** Typo-prone words (a file's `fuzzy` section) by first letter, with the edits allowed and their letters. */
	fuzzyWords: Map<string, FuzzyWord[]>;
	/** How many steps the patterns compiled to (see Step.id). */
	stepCount: number;
}

interface FuzzyWord {
	key: string;
	word: string;
	maxEdits: number;
	letters: number;
}

/** Signals marked `bare` count only in messages of at most this many words ("suicidal", "self harm"). */
export const BARE_MAX_TOKENS = 3;

/** Marker kinds whose position matters (the screen checks them right around a phrase); others count once per clause. */
export const POSITIONAL_MARKERS: ReadonlySet<string> = new Set(['idiom', 'effort', 'relation', 'account', 'ongoing', 'still']);

export const MARKER_KINDS: readonly string[] = [
	'past',
	'then',
	'now_better',
	'past_verb',
	'recent',
	'recurring',
	'still',
	'ongoing',
	'fiction',
	'idiom',
	'joke',
	'serious',
	'game',
	'effort',
	'accident',
	'trivial',
	'petty',
	'support',
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
/** Steps one attempt may take before it gives up. */
const STEP_BUDGET = 256;
/** Words too common to make good anchors (with every file's scan words): articles, prepositions, possessives. */
const STOP_WORDS: readonly string[] = [
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
];
/** Short words every lexicon uses, known as written whatever the files hold. */
const BASE_WORDS: readonly string[] = ['i', 'a', 'to', 'my', 'me', 'so'];

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

// ---------------------------------------------------------------------------------------------------------------
// Parsing patterns

/** One lexicon file being compiled. */
interface FileContext {
	lang: string;
	/** The file's classes as written, and those compiled so far (an empty choice while its members are parsed). */
	classes: Record<string, string[]>;
	compiledClasses: Map<string, Choice>;
	/** Where the words of its patterns go (CompiledLexicon.writtenWords). */
	writtenWords: Set<string>;
	/** For error messages. */
	where: string;
}

/** Splits on a separator outside parentheses. */
function splitTopLevel(source: string, separator: string, where: string): string[] {
	const parts: string[] = [];
	let depth = 0;
	let current = '';
	for (const ch of source) {
		if (ch === '(') depth++;
		if (ch === ')') depth--;
		if (depth < 0) throw new LexiconError(`${where}: unbalanced ")" in "${source}"`);
		if (depth === 0 && (separator === ' ' ? /\s/.test(ch) : ch === separator)) {
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

function parsePattern(source: string, file: FileContext, depth = 0): Element[] {
	if (depth > 8) throw new LexiconError(`${file.where}: patterns nest too deep`);
	const elements: Element[] = [];
	for (const part of splitTopLevel(source.trim(), ' ', file.where)) {
		if (!part) continue;
		if (part.startsWith('(')) elements.push(parseChoice(part, file, depth));
		else if (part.startsWith('~')) elements.push(parseGap(part, file.where));
		else {
			const optional = part.endsWith('?');
			const body = optional ? part.slice(0, -1) : part;
			if (body.startsWith('@')) elements.push({ kind: 'choice', choice: classChoice(body.slice(1), file, depth), optional });
			else if (body === '<big>' || body === '<num>' || body === '<year>') {
				elements.push({ kind: 'word', tests: [{ kind: 'number', range: body.slice(1, -1) as NumberRange }], optional });
			} else elements.push({ kind: 'word', tests: body.split('/').map((written) => parseWordTest(written, file)), optional });
		}
	}
	if (elements.length === 0) throw new LexiconError(`${file.where}: empty pattern`);
	return elements;
}

/** `(a b|c d)` or `(...)?`. */
function parseChoice(part: string, file: FileContext, depth: number): Element {
	const optional = part.endsWith(')?');
	if (!optional && !part.endsWith(')')) throw new LexiconError(`${file.where}: text after ")" in "${part}"`);
	const inner = part.slice(1, optional ? -2 : -1);
	const options = splitTopLevel(inner, '|', file.where).map((option) => parsePattern(option, file, depth + 1));
	return { kind: 'choice', choice: indexChoice(options, file.where), optional };
}

/** `~N` or `~~N`. */
function parseGap(part: string, where: string): Element {
	const crossesSentence = part.startsWith('~~');
	const max = Number(part.slice(crossesSentence ? 2 : 1));
	if (!Number.isInteger(max) || max < 1 || max > 8) throw new LexiconError(`${where}: bad gap "${part}"`);
	return { kind: 'gap', max, crossesSentence };
}

/** The choice of a class (`@NAME`), compiled at its first use in the file. */
function classChoice(name: string, file: FileContext, depth: number): Choice {
	const compiled = file.compiledClasses.get(name);
	if (compiled) {
		if (compiled.options.length === 0) throw new LexiconError(`${file.where}: class @${name} refers to itself`);
		return compiled;
	}
	const members = file.classes[name];
	if (!Array.isArray(members) || members.length === 0) throw new LexiconError(`${file.where}: unknown class @${name}`);
	file.compiledClasses.set(name, emptyChoice([]));
	const choice = indexChoice(
		members.map((member) => parsePattern(member, file, depth + 1)),
		`${file.where} @${name}`,
	);
	file.compiledClasses.set(name, choice);
	return choice;
}

/** One of the words of `a/b/c`: `word`, `^word` or `prefix*`. */
function parseWordTest(written: string, file: FileContext): WordTest {
	const clauseInitial = written.startsWith('^') && written.length > 1;
	const body = clauseInitial ? written.slice(1) : written;
	const isPrefix = body.endsWith('*') && body.length > 1;
	if (clauseInitial && isPrefix) throw new LexiconError(`${file.where}: "^" and "*" together in "${written}"`);
	const word = normalizeWord(isPrefix ? body.slice(0, -1) : body, file.where);
	if (isPrefix) {
		if (skeleton(word).length < 3) throw new LexiconError(`${file.where}: prefix "${body}" is shorter than 3 letters`);
		return { kind: 'prefix', key: skeleton(word) };
	}
	file.writtenWords.add(word);
	const key = skeleton(word);
	return { kind: 'word', key, written: word, loose: key === word || key.length >= 5, clauseInitial };
}

function emptyChoice(options: Element[][]): Choice {
	return { options, byFirstKey: new Map(), firstWordIds: NO_WORD_IDS, optionsByFirstWord: [], alwaysTried: [], firstWordBits: 0 };
}

function indexChoice(options: Element[][], where: string): Choice {
	const choice = emptyChoice(options);
	options.forEach((elements, i) => {
		const first = firstTests(elements, where);
		if (first.nullable || first.tests.some((t) => t.kind !== 'word')) choice.alwaysTried.push(i);
		else for (const test of first.tests) push(choice.byFirstKey, (test as { key: string }).key, i);
	});
	return choice;
}

/** The tests that can match the first token, and whether the pattern can match nothing. */
function firstTests(elements: Element[], where: string): { tests: WordTest[]; nullable: boolean } {
	const tests: WordTest[] = [];
	for (const element of elements) {
		if (element.kind === 'gap') throw new LexiconError(`${where}: a pattern may not start with a gap`);
		if (element.kind === 'word') {
			tests.push(...element.tests);
			if (!element.optional) return { tests, nullable: false };
			continue;
		}
		let nullable = element.optional;
		for (const option of element.choice.options) {
			const first = firstTests(option, where);
			tests.push(...first.tests);
			nullable ||= first.nullable;
		}
		if (!nullable) return { tests, nullable: false };
	}
	return { tests, nullable: true };
}

/**
 * Words of which at least one must be in any text the pattern matches, chosen to be rare: the mandatory element with
 * the fewest words and no stop word. null when no such set exists (prefix or number tests): always tried. The anchors
 * of each choice are worked out once (`memo`).
 */
function anchorsOf(elements: Element[], stopWords: Set<string>, memo: Map<Choice, Set<string> | null>): Set<string> | null {
	let best: Set<string> | null = null;
	let bestScore = Infinity;
	for (const element of elements) {
		if (element.kind === 'gap' || element.optional) continue;
		let set: Set<string> | null = null;
		if (element.kind === 'word') {
			if (element.tests.every((t) => t.kind === 'word')) set = new Set(element.tests.map((t) => (t as { key: string }).key));
		} else if (memo.has(element.choice)) {
			set = memo.get(element.choice)!;
		} else {
			set = new Set();
			for (const option of element.choice.options) {
				const inner = anchorsOf(option, stopWords, memo);
				if (!inner) {
					set = null;
					break;
				}
				for (const key of inner) set.add(key);
			}
			memo.set(element.choice, set);
		}
		if (!set) continue;
		let score = set.size;
		for (const key of set) if (stopWords.has(key)) score += 1000;
		if (score < bestScore) {
			best = set;
			bestScore = score;
		}
	}
	return best;
}

/** The words of each way to read the pattern with empty gaps (at most `limit`), for single-word compounds. */
function expansions(elements: Element[], limit: number): string[][] {
	let out: string[][] = [[]];
	for (const element of elements) {
		if (element.kind === 'gap') continue;
		const choices: string[][] = [];
		if (element.optional) choices.push([]);
		if (element.kind === 'word') {
			for (const test of element.tests) {
				if (test.kind !== 'word') return [];
				choices.push([test.key]);
			}
		} else {
			for (const option of element.choice.options) choices.push(...expansions(option, limit));
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

// ---------------------------------------------------------------------------------------------------------------
// Compiling

/** What compiling needs besides the result: until every word has its id, the indexes are keyed by skeleton. */
interface LexiconBuilder {
	lexicon: CompiledLexicon;
	stopWords: Set<string>;
	signalIds: Set<string>;
	signalAnchors: Map<string, Phrase[]>;
	markerAnchors: Map<string, Phrase[]>;
	signalFirstWords: Map<string, Phrase[]>;
	markerFirstWords: Map<string, Phrase[]>;
	choiceAnchors: Map<Choice, Set<string> | null>;
}

export function compileLexicons(files: readonly unknown[]): CompiledLexicon {
	const builder: LexiconBuilder = {
		lexicon: emptyLexicon(),
		stopWords: stopWordsOf(files),
		signalIds: new Set(),
		signalAnchors: new Map(),
		markerAnchors: new Map(),
		signalFirstWords: new Map(),
		markerFirstWords: new Map(),
		choiceAnchors: new Map(),
	};
	for (const file of files) compileFile(builder, file);
	numberWords(builder.lexicon);
	indexPhrasesByWordId(builder);
	compilePhraseSteps(builder.lexicon);
	return builder.lexicon;
}

function emptyPhraseIndex(): PhraseIndex {
	return { byFirstWord: [], byFirstPrefix: new Map(), startingWithNumber: [], byAnchor: [], unanchored: [] };
}

function emptyLexicon(): CompiledLexicon {
	return {
		phrases: [],
		scan: new Map(),
		languages: [],
		compounds: new Map(),
		signals: emptyPhraseIndex(),
		markers: emptyPhraseIndex(),
		wordIds: new Map(),
		keyPrefixes: new Set(),
		writtenWords: new Set(BASE_WORDS),
		wordsByLength: new Map(),
		wordsBySwap: new Map(),
		fuzzyWords: new Map(),
		stepCount: 0,
	};
}

/** STOP_WORDS and every file's scan words (negators, pronouns...): poor anchors. */
function stopWordsOf(files: readonly unknown[]): Set<string> {
	const stopWords = new Set(STOP_WORDS);
	for (const file of files) {
		const scan = ((file as Record<string, unknown>)?.scan ?? {}) as Record<string, unknown>;
		for (const list of Object.values(scan)) {
			if (!Array.isArray(list)) continue;
			for (const word of list) if (typeof word === 'string') stopWords.add(skeleton(normalizeText(word).replaceAll("'", '')));
		}
	}
	return stopWords;
}

/** One lexicon file: its language, scan sets, signals, markers and typo-prone words. */
function compileFile(builder: LexiconBuilder, raw: unknown): void {
	const lexicon = builder.lexicon;
	const file = raw as Record<string, unknown>;
	const lang = file?.lang;
	if (typeof lang !== 'string' || !/^[a-z]{2}$/.test(lang)) throw new LexiconError('lexicon file without a two-letter "lang"');
	if (lexicon.languages.includes(lang)) throw new LexiconError(`lexicon ${lang} is listed twice`);
	lexicon.languages.push(lang);
	const context: FileContext = {
		lang,
		classes: (file.classes ?? {}) as Record<string, string[]>,
		compiledClasses: new Map(),
		writtenWords: lexicon.writtenWords,
		where: `lexicon ${lang}`,
	};
	lexicon.scan.set(lang, compileScanSets((file.scan ?? {}) as Record<string, unknown>, context.where));
	compileSignals(builder, file.signals, context);
	compileMarkers(builder, (file.markers ?? {}) as Record<string, unknown>, context);
	compileFuzzyWords(lexicon, (file.fuzzy ?? {}) as Record<string, unknown>, context.where);
}

function compileScanSets(scan: Record<string, unknown>, where: string): ScanSets {
	const set = (name: string): Set<string> =>
		new Set(asStrings(scan[name] ?? [], `${where} scan.${name}`).map((word) => skeleton(normalizeWord(word, where))));
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
		for (const word of words) roles.set(word, (roles.get(word) ?? 0) | SCAN_ROLES[name as keyof typeof SCAN_ROLES]);
	}
	return { ...named, roles };
}

function compileSignals(builder: LexiconBuilder, signals: unknown, context: FileContext): void {
	if (!Array.isArray(signals)) throw new LexiconError(`${context.where}: "signals" must be a list`);
	for (const raw of signals) {
		const spec = validateSignal(raw, context.where);
		const id = `${context.lang}.${spec.id}`;
		if (builder.signalIds.has(id)) throw new LexiconError(`${context.where}: duplicate signal id ${spec.id}`);
		builder.signalIds.add(id);
		for (const pattern of spec.p) addPhrase(builder, context, 'signal', id, spec, pattern);
	}
}

function compileMarkers(builder: LexiconBuilder, markers: Record<string, unknown>, context: FileContext): void {
	for (const [kind, patterns] of Object.entries(markers)) {
		if (!MARKER_KINDS.includes(kind)) throw new LexiconError(`${context.where}: unknown marker kind ${kind}`);
		for (const pattern of asStrings(patterns, `${context.where} markers.${kind}`)) {
			addPhrase(builder, context, kind, `${context.lang}:${kind}`, null, pattern);
		}
	}
}

function compileFuzzyWords(lexicon: CompiledLexicon, fuzzy: Record<string, unknown>, where: string): void {
	for (const [written, maxEdits] of Object.entries(fuzzy)) {
		if (maxEdits !== 1 && maxEdits !== 2) throw new LexiconError(`${where}: fuzzy distance of ${written} must be 1 or 2`);
		const word = normalizeWord(written, where);
		const key = skeleton(word);
		push(lexicon.fuzzyWords, key[0]!, { key, word, maxEdits, letters: letterMask(key) });
	}
}

/** Parses a pattern into a phrase and files it under its anchors, its possible first words and its compounds. */
function addPhrase(builder: LexiconBuilder, context: FileContext, kind: string, id: string, signal: SignalSpec | null, pattern: string): void {
	const lexicon = builder.lexicon;
	const where = `${context.where} ${id}`;
	const elements = parsePattern(pattern, { ...context, where });
	const phrase: Phrase = {
		id,
		lang: context.lang,
		kind,
		signal,
		elements,
		start: END_STEP,
		crossesSentence: pattern.includes('~~'),
		serial: lexicon.phrases.length,
		once: signal === null && !POSITIONAL_MARKERS.has(kind),
		bare: signal?.bare === true,
		follow: null,
		needs: null,
	};
	const index = signal ? lexicon.signals : lexicon.markers;
	const anchors = anchorsOf(elements, builder.stopWords, builder.choiceAnchors);
	if (anchors) for (const key of anchors) push(signal ? builder.signalAnchors : builder.markerAnchors, key, phrase);
	else index.unanchored.push(phrase);
	const first = firstTests(elements, `${where} "${pattern}"`);
	if (first.nullable) throw new LexiconError(`${where}: "${pattern}" can match nothing`);
	for (const test of first.tests) {
		if (test.kind === 'word') push(signal ? builder.signalFirstWords : builder.markerFirstWords, test.key, phrase);
		else if (test.kind === 'prefix') push(index.byFirstPrefix, test.key.slice(0, 3), phrase);
		else if (!index.startingWithNumber.includes(phrase)) index.startingWithNumber.push(phrase);
	}
	if (signal && !elements.some((element) => element.kind === 'gap')) addCompounds(lexicon, phrase);
	lexicon.phrases.push(phrase);
}

/** Files a signal under each way to write it as one word of six letters or more ("killmyself"). */
function addCompounds(lexicon: CompiledLexicon, phrase: Phrase): void {
	for (const words of expansions(phrase.elements, 64)) {
		if (words.length < 2) continue;
		const key = skeleton(words.join(''));
		if (key.length < 6) continue;
		const list = lexicon.compounds.get(key);
		if (!list) lexicon.compounds.set(key, [phrase]);
		else if (list.at(-1) !== phrase) list.push(phrase);
	}
}

/** Gives every lexicon word's skeleton its id and files the words for typo correction. */
function numberWords(lexicon: CompiledLexicon): void {
	for (const word of lexicon.writtenWords) {
		const key = skeleton(word);
		if (!lexicon.wordIds.has(key)) lexicon.wordIds.set(key, lexicon.wordIds.size);
		for (let n = 1; n < key.length; n++) lexicon.keyPrefixes.add(key.slice(0, n));
		push(lexicon.wordsByLength, word.length, word);
		if (word.length >= 4) push(lexicon.wordsBySwap, swapSignature(word), word);
	}
}

/** The phrase indexes by word id (the builder's are by skeleton). */
function indexPhrasesByWordId(builder: LexiconBuilder): void {
	const wordIds = builder.lexicon.wordIds;
	const byId = (from: Map<string, Phrase[]>, to: (Phrase[] | undefined)[]): void => {
		to.length = wordIds.size;
		for (const [key, list] of from) to[wordIds.get(key)!] = list;
	};
	byId(builder.signalAnchors, builder.lexicon.signals.byAnchor);
	byId(builder.markerAnchors, builder.lexicon.markers.byAnchor);
	byId(builder.signalFirstWords, builder.lexicon.signals.byFirstWord);
	byId(builder.markerFirstWords, builder.lexicon.markers.byFirstWord);
}

/** Compiles each phrase's pattern into steps, with what may follow its first word and what its sentence needs. */
function compilePhraseSteps(lexicon: CompiledLexicon): void {
	const wordIds = lexicon.wordIds;
	const indexed = new Set<Choice>();
	const indexChoices = (elements: Element[]): void => {
		for (const element of elements) {
			if (element.kind !== 'choice' || indexed.has(element.choice)) continue;
			indexed.add(element.choice);
			indexChoiceByWordId(element.choice, wordIds);
			for (const option of element.choice.options) indexChoices(option);
		}
	};
	const flattened = new Map<Choice, Choice>();
	const build: StepBuilder = {
		flatten: (choice) => flattenChoice(choice, flattened, wordIds),
		step: (kind, next, fields) => newStep(lexicon.stepCount++, kind, next, fields),
	};
	const linked = new Set<Step>();
	const wordsAfter = new Map<Step, Words | null>();
	for (const phrase of lexicon.phrases) {
		indexChoices(phrase.elements);
		phrase.start = compileSteps(phrase.elements, END_STEP, build);
		phrase.follow = followOf(phrase.start, wordIds);
		linkOptionFollowers(phrase.start, wordIds, linked, wordsAfter);
		phrase.needs = phrase.crossesSentence ? null : needsOf(phrase.elements, wordIds);
	}
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

/**
 * Rows of the distance table, reused (words longer than the rows fall back to fresh ones). Only distanceWithin uses
 * them, from start to end without calling out: no two calls can share them at once.
 */
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
function corrections(lexicon: CompiledLexicon, form: string, key: string): string[] {
	const out: string[] = [];
	if (form.includes('*')) {
		let letters = 0;
		for (const ch of form) if (ch !== '*') letters++;
		if (letters < 2 || letters * 2 < form.length) return out;
		for (const word of lexicon.wordsByLength.get(form.length) ?? []) {
			let ok = true;
			for (let i = 0; i < form.length && ok; i++) ok = form[i] === '*' || form[i] === word[i];
			if (ok) out.push(word);
			if (out.length >= 3) break;
		}
		return out;
	}
	if (form.length < 4 || form.length > 24 || !isLetters(form)) return out;
	for (const word of lexicon.wordsBySwap.get(swapSignature(form)) ?? []) if (oneSwapApart(form, word)) out.push(word);
	if (key.length >= 5) {
		const letters = letterMask(key);
		const firsts = key[0] === key[1] ? [key[0]!] : [key[0]!, key[1]!];
		for (const first of firsts) {
			for (const fuzzy of lexicon.fuzzyWords.get(first) ?? []) {
				if (first !== key[0] && fuzzy.key[0] !== key[1]) continue;
				if (Math.abs(fuzzy.key.length - key.length) > fuzzy.maxEdits) continue;
				// each edit brings in at most one letter the word does not have
				if (bitCount(letters & ~fuzzy.letters) > fuzzy.maxEdits) continue;
				if (!out.includes(fuzzy.word) && distanceWithin(key, fuzzy.key, fuzzy.maxEdits) <= fuzzy.maxEdits) out.push(fuzzy.word);
			}
		}
	}
	return out;
}

/** Spaced-out letters back into words, preferring the fewest words. */
function segmenter(lexicon: CompiledLexicon): (letters: string) => string[] | null {
	return (letters) => {
		const n = letters.length;
		const best = new Array<number>(n + 1).fill(Infinity);
		const from = new Array<number>(n + 1).fill(-1);
		best[0] = 0;
		for (let i = 0; i < n; i++) {
			if (best[i] === Infinity) continue;
			for (let len = 1; len <= 20 && i + len <= n; len++) {
				if (lexicon.writtenWords.has(letters.slice(i, i + len)) && best[i]! + 1 < best[i + len]!) {
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

// ---------------------------------------------------------------------------------------------------------------
// Preparing a message

/** A word id's bit in Token.idBits and Choice.firstWordBits. */
function idBit(id: number): number {
	return 1 << (id & 31);
}

/** What prepare works out once for each distinct word of a message (the tokens of a repeated word share it). */
interface WordReading {
	/** One of its forms is a lexicon word as written (numbers and emoji count as known). */
	known: boolean;
	/** The word id of each key (-1: no lexicon word), and their bits. */
	ids: number[];
	idBits: number;
	/** The two-word form last looked up (a repeated word is mostly followed by the same word) and its word id (-1: none). */
	pairKey: string;
	pairId: number;
}

/** Tokenises, adds typo corrections as extra keys and numbers the words. */
export function prepare(lexicon: CompiledLexicon, text: string): Token[] {
	const tokens = tokenize(text, segmenter(lexicon), (key) => lexicon.keyPrefixes.has(key));
	const wordIds = lexicon.wordIds;
	// By WordCache.index: a repeated word is corrected and looked up once.
	const readings: WordReading[] = [];
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		const index = token.cache.index;
		let reading = readings[index];
		if (!reading) readings[index] = reading = readWord(lexicon, token);
		token.known = reading.known;
		token.ids = reading.ids;
		token.idBits = reading.idBits;
		if (token.pairKey) {
			if (reading.pairKey !== token.pairKey) {
				reading.pairKey = token.pairKey;
				reading.pairId = wordIds.get(token.pairKey) ?? -1;
			}
			if (reading.pairId < 0) token.pairForm = token.pairKey = '';
			else {
				token.pairId = reading.pairId;
				token.idBits |= idBit(reading.pairId);
			}
		}
	}
	return tokens;
}

/** The first token of a word: corrected (a number or an emoji is not), then its keys as word ids. */
function readWord(lexicon: CompiledLexicon, token: Token): WordReading {
	const known = token.emoji || !Number.isNaN(token.num) || correct(lexicon, token);
	const keys = token.keys;
	const ids = new Array<number>(keys.length);
	let idBits = 0;
	for (let k = 0; k < keys.length; k++) {
		const id = lexicon.wordIds.get(keys[k]!) ?? -1;
		ids[k] = id;
		if (id >= 0) idBits |= idBit(id);
	}
	return { known, ids, idBits, pairKey: '', pairId: -1 };
}

/** Whether a word is a lexicon word as written; when not, adds the lexicon words it may stand for (see corrections). */
function correct(lexicon: CompiledLexicon, token: Token): boolean {
	const forms = token.forms;
	for (let k = 0; k < forms.length; k++) if (lexicon.writtenWords.has(forms[k]!)) return true;
	for (const fix of corrections(lexicon, forms[0]!, token.keys[0]!)) {
		if (!forms.includes(fix)) {
			forms.push(fix);
			token.keys.push(skeleton(fix));
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling patterns into steps

/**
 * A pattern compiled for matching: its elements linked into a graph, each step pointing to the one after it and a
 * choice to the first step of each option, whose last step points to what follows the choice. A class is copied in
 * place at each use, so a step always knows where to go on and the search needs no continuation stack; an option that
 * is only another class is replaced by that class's options (see flattenChoice).
 */
interface Step {
	kind: StepKind;
	/** Where a scan keeps the failures it remembers for the step: `id * STEP_MEMO` (see ScanState.stepFailures). */
	memoAt: number;
	/** WORD: the tests of the word. */
	tests: WordTest[];
	/** CHOICE: its options' index by first word (shared by every copy of a class) and the first step of each option. */
	choice: Choice | null;
	optionStarts: Step[];
	/** CHOICE: for each option that starts with a plain word, the words that may follow that word (null: any). */
	optionFollowers: (Words | null)[];
	/** WORD, CHOICE: may be skipped. GAP: how many words it may skip. */
	optional: boolean;
	maxGap: number;
	next: Step | null;
}
const WORD = 0;
const GAP = 1;
const CHOICE = 2;
const END = 3;
type StepKind = typeof WORD | typeof GAP | typeof CHOICE | typeof END;

/** See ScanState.stepFailures. */
const STEP_MEMO = 4;
const FAILED_IN = 0;
const FAILED_LIMIT = 1;
const FAILED_BASE = 2;
const FAILED = 3;

function newStep(id: number, kind: StepKind, next: Step | null, fields: Partial<Step> = {}): Step {
	return {
		kind,
		memoAt: id * STEP_MEMO,
		tests: [],
		choice: null,
		optionStarts: [],
		optionFollowers: [],
		optional: false,
		maxGap: 0,
		next,
		...fields,
	};
}
/** Where every pattern ends (never written to: a scan reaching it has matched). */
const END_STEP = newStep(-1, END, null);

interface StepBuilder {
	/** The choice to search in place of one (see flattenChoice). */
	flatten: (choice: Choice) => Choice;
	/** A new step with the next id. */
	step: (kind: StepKind, next: Step, fields?: Partial<Step>) => Step;
}

function compileSteps(elements: Element[], next: Step, build: StepBuilder): Step {
	let step = next;
	for (let i = elements.length - 1; i >= 0; i--) {
		const element = elements[i]!;
		const after = step;
		if (element.kind === 'word') step = build.step(WORD, after, { tests: element.tests, optional: element.optional });
		else if (element.kind === 'gap') step = build.step(GAP, after, { maxGap: element.max });
		else {
			const choice = build.flatten(element.choice);
			const optionStarts = choice.options.map((option) => compileSteps(option, after, build));
			step = build.step(CHOICE, after, { choice, optionStarts, optional: element.optional });
		}
	}
	return step;
}

/**
 * The choice with each option that is just another choice (a class of classes: @INTEND starts with @GOING) replaced
 * by that one's options: the same search in the same order, one lookup fewer.
 */
function flattenChoice(choice: Choice, done: Map<Choice, Choice>, wordIds: Map<string, number>): Choice {
	let flat = done.get(choice);
	if (!flat) {
		const nested = (elements: Element[]): boolean => elements.length === 1 && elements[0]!.kind === 'choice' && !elements[0]!.optional;
		if (!choice.options.some(nested)) flat = choice;
		else {
			flat = indexChoice(
				choice.options.flatMap((elements) =>
					nested(elements) ? flattenChoice((elements[0] as { choice: Choice }).choice, done, wordIds).options : [elements],
				),
				'',
			);
			indexChoiceByWordId(flat, wordIds);
		}
		done.set(choice, flat);
	}
	return flat;
}

/** Fills in Choice.firstWordIds, optionsByFirstWord and firstWordBits (once the vocabulary is complete). */
function indexChoiceByWordId(choice: Choice, wordIds: Map<string, number>): void {
	const byId = [...choice.byFirstKey].map(([key, list]) => [wordIds.get(key)!, list] as const).sort((a, b) => a[0] - b[0]);
	choice.firstWordIds = Int32Array.from(byId, ([id]) => id);
	// With the options always tried already in (the matcher merges lists only for a token with several words).
	choice.optionsByFirstWord = byId.map(([, list]) => mergeSorted(choice.alwaysTried, list));
	for (const [id] of byId) choice.firstWordBits |= idBit(id);
}

/** See Phrase.needs. */
function needsOf(elements: Element[], wordIds: Map<string, number>): (readonly number[])[] | null {
	const needs: number[][] = [];
	for (const element of elements) {
		if (element.kind === 'gap' || element.optional) continue;
		const first = firstTests([element], '');
		if (first.nullable || first.tests.some((t) => t.kind !== 'word')) continue;
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
			for (const test of step.tests) {
				if (test.kind !== 'word') return false;
				firsts.push([test.key, step.next!]);
			}
			return !step.optional || collectFirsts(step.next!);
		}
		if (step.kind === CHOICE) return step.optionStarts.every(collectFirsts) && (!step.optional || collectFirsts(step.next!));
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
			for (const test of step.tests) {
				if (test.kind !== 'word') return false;
				words.add(wordIds.get(test.key)!);
			}
			return !step.optional || add(step.next!);
		}
		if (step.kind === CHOICE) return step.optionStarts.every(add) && (!step.optional || add(step.next!));
		return false;
	};
	return add(start) ? wordSet([...words]) : null;
}

/**
 * Fills in, for every choice, the words that may follow the first word of each option (see Step.optionFollowers). The
 * steps already done are in `done`, and what may come after a step in `after` (the options of a choice mostly share
 * what follows them).
 */
function linkOptionFollowers(start: Step, wordIds: Map<string, number>, done: Set<Step>, after: Map<Step, Words | null>): void {
	const wordsAfter = (step: Step): Words | null => {
		let words = after.get(step);
		if (words === undefined) after.set(step, (words = wordsFrom(step, wordIds)));
		return words;
	};
	const plainWord = (head: Step): boolean => head.kind === WORD && !head.optional && head.tests.every((t) => t.kind === 'word');
	const stack = [start];
	while (stack.length > 0) {
		const step = stack.pop()!;
		if (done.has(step)) continue;
		done.add(step);
		if (step.next) stack.push(step.next);
		if (step.kind !== CHOICE) continue;
		stack.push(...step.optionStarts);
		step.optionFollowers = step.optionStarts.map((head) => (plainWord(head) ? wordsAfter(head.next!) : null));
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

// ---------------------------------------------------------------------------------------------------------------
// Scan state

/**
 * Everything a scan (the signals or the markers of one message) writes, by phrase serial, word id, step id and the
 * index of a distinct word of the message (WordCache.index). A scan holds its state alone from start to end. Marks are
 * numbers handed out by the state (one per scan, per sentence and per token tried), so nothing needs clearing between
 * scans: an array entry left by an earlier scan never equals a new mark (the arrays start at 0, marks at 1).
 */
interface ScanState {
	/** The last mark handed out (see scanMark). */
	lastMark: number;
	/**
	 * By phrase serial, PHRASE_MARKS numbers each (at `serial * PHRASE_MARKS`, side by side: the hot loops read several
	 * at once): ACTIVE_IN, the scan the phrase is active in; RANK, its rank among the active ones (the order they became
	 * active); TRIED_AT, the token it was last taken at; LAST_CLAUSE, the clause of its last match in the scan;
	 * CHECKED_IN and POSSIBLE, the sentence its needs were last checked in and the answer (1 or 0, see Phrase.needs).
	 */
	phraseMarks: Int32Array;
	/** By word id: the last sentence the word was seen in. */
	seenIn: Int32Array;
	/**
	 * By step id, four numbers each (at `id * STEP_MEMO`, offsets FAILED_IN...FAILED): the tokens from which the step
	 * is known to fail in scan FAILED_IN with scope end FAILED_LIMIT, a bit each (FAILED) from token FAILED_BASE on.
	 * One array, the four side by side: match reads them together.
	 */
	stepFailures: Int32Array;
	/** By distinct word of the message: the scan in which the phrases it anchors were activated. */
	anchoredIn: Int32Array;
	/** By distinct word of the message: its candidates, remembered in a long message (see scanPhrases). */
	remembered: RememberedCandidates[];
}

/** The candidate phrases at a word in one scan (`scan`), with the two-word form (`pairKey`) they were found with. */
interface RememberedCandidates {
	scan: number;
	pairKey: string;
	phrases: Phrase[];
	/** For each candidate, the words that may come next (null: any). */
	followers: (Words | null)[];
	compounds: Phrase[];
}

function newScanState(lexicon: CompiledLexicon): ScanState {
	const phrases = lexicon.phrases.length;
	const steps = lexicon.stepCount;
	return {
		lastMark: 0,
		phraseMarks: new Int32Array(phrases * PHRASE_MARKS),
		seenIn: new Int32Array(lexicon.wordIds.size),
		stepFailures: new Int32Array(steps * STEP_MEMO),
		anchoredIn: new Int32Array(64),
		remembered: [],
	};
}

/** See ScanState.phraseMarks. */
const PHRASE_MARKS = 8;
const ACTIVE_IN = 0;
const RANK = 1;
const TRIED_AT = 2;
const LAST_CLAUSE = 3;
const CHECKED_IN = 4;
const POSSIBLE = 5;

/** Room for the distinct words of a message of `tokens` tokens (there are no more words than tokens). */
function fitWords(state: ScanState, tokens: number): void {
	if (state.anchoredIn.length >= tokens) return;
	const grown = new Int32Array(Math.max(tokens, state.anchoredIn.length * 2));
	grown.set(state.anchoredIn);
	state.anchoredIn = grown;
}

/** Marks are int32: a state close to this many starts again from 1, its arrays cleared (see scanMark). */
const LAST_MARK = 0x7fffffff;

/**
 * The mark of a new scan of `tokens` tokens. The scan then takes a new mark (`++state.lastMark`) for each sentence
 * and each token: fewer than two per token, and never past LAST_MARK.
 */
function scanMark(state: ScanState, tokens: number): number {
	if (state.lastMark > LAST_MARK - 2 * tokens - 2) {
		state.lastMark = 0;
		state.phraseMarks.fill(0);
		state.seenIn.fill(0);
		state.stepFailures.fill(0);
		state.anchoredIn.fill(0);
		state.remembered.length = 0;
	}
	return ++state.lastMark;
}

/**
 * States not in use, by lexicon (kept beside it, never in it): allocating a state's arrays costs more than most scans,
 * so a scan takes an idle one, or a new one when every state is in use (a scan started during another), and gives it
 * back when it ends.
 */
const idleStates = new WeakMap<CompiledLexicon, ScanState[]>();

function takeState(lexicon: CompiledLexicon): ScanState {
	return idleStates.get(lexicon)?.pop() ?? newScanState(lexicon);
}

function giveBack(lexicon: CompiledLexicon, state: ScanState): void {
	const idle = idleStates.get(lexicon);
	if (idle) idle.push(state);
	else idleStates.set(lexicon, [state]);
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/** One attempt to match a phrase from a token. */
interface Attempt {
	tokens: Token[];
	/** The scan's mark, and its state's step failures (see ScanState.stepFailures). */
	scan: number;
	stepFailures: Int32Array;
	/** The attempt's first token and the end of its scope (its sentence, two with `~~`, or its clause). */
	start: number;
	limit: number;
	/** Steps left (see STEP_BUDGET). */
	budget: number;
	/** Indices of the tokens skipped by gaps so far: the first `gapCount` of `gaps`. */
	gaps: number[];
	gapCount: number;
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
function match(step: Step, ti: number, attempt: Attempt): boolean {
	const kind = step.kind;
	if (kind === END) {
		attempt.end = ti;
		return true;
	}
	const memo = attempt.stepFailures;
	const at = step.memoAt;
	const start = attempt.start;
	if (memo[at + FAILED_IN] !== attempt.scan || memo[at + FAILED_LIMIT] !== attempt.limit || start - memo[at + FAILED_BASE]! >= MEMO_SPAN) {
		memo[at + FAILED_IN] = attempt.scan;
		memo[at + FAILED_LIMIT] = attempt.limit;
		memo[at + FAILED_BASE] = start;
		memo[at + FAILED] = 0;
	} else if (start > memo[at + FAILED_BASE]!) {
		memo[at + FAILED] = memo[at + FAILED]! >>> (start - memo[at + FAILED_BASE]!);
		memo[at + FAILED_BASE] = start;
	}
	const offset = ti - memo[at + FAILED_BASE]!;
	const bit = offset < MEMO_SPAN ? 1 << offset : 0;
	if (memo[at + FAILED]! & bit) return false;
	if (--attempt.budget < 0) return false;
	const next = step.next!;
	if (kind === WORD) {
		const used = ti < attempt.limit ? wordAt(step.tests, attempt.tokens[ti]!, ti, attempt) : 0;
		if (used > 0 && match(next, ti + used, attempt)) return true;
		if (step.optional && match(next, ti, attempt)) return true;
	} else if (kind === GAP) {
		const mark = attempt.gapCount;
		for (let g = 0; g <= step.maxGap; g++) {
			if (g > 0) {
				if (ti + g - 1 >= attempt.limit) break;
				attempt.gaps[attempt.gapCount++] = ti + g - 1;
			}
			if (match(next, ti + g, attempt)) return true;
		}
		attempt.gapCount = mark;
	} else {
		const options = optionsAt(step.choice!, ti, attempt);
		const starts = step.optionStarts;
		// An option whose first word is this token goes on only if the next token may follow that word.
		const single = ti < attempt.limit && attempt.tokens[ti]!.pairId < 0;
		const following = single && ti + 1 < attempt.limit ? attempt.tokens[ti + 1]! : null;
		for (let o = 0; o < options.length; o++) {
			const words = step.optionFollowers[options[o]!]!;
			if (words !== null && single && !(following && isOneOf(words, following))) continue;
			if (match(starts[options[o]!]!, ti, attempt)) return true;
		}
		if (step.optional && match(next, ti, attempt)) return true;
	}
	// A search cut short by the budget proves nothing.
	if (attempt.budget >= 0) memo[at + FAILED] = memo[at + FAILED]! | bit;
	return false;
}

function testToken(test: WordTest, token: Token): boolean {
	if (test.kind === 'number') {
		if (Number.isNaN(token.num)) return false;
		if (test.range === 'big') return token.num >= 10;
		if (test.range === 'year') return token.num >= 1900 && token.num <= 2099;
		return true;
	}
	const keys = token.keys;
	if (test.kind === 'prefix') {
		for (let i = 0; i < keys.length; i++) if (keys[i]!.startsWith(test.key)) return true;
		return false;
	}
	if (test.clauseInitial && !token.initial) return false;
	const forms = token.forms;
	const loose = test.loose || token.elongated || !token.known;
	for (let i = 0; i < forms.length; i++) {
		if (forms[i] === test.written || (loose && keys[i] === test.key)) return true;
	}
	return false;
}

/** Tokens consumed by a word element at ti (in scope): 1, 2 (a word written in two parts: "my self", "sewer slide") or 0. */
function wordAt(tests: WordTest[], token: Token, ti: number, attempt: Attempt): number {
	for (let i = 0; i < tests.length; i++) if (testToken(tests[i]!, token)) return 1;
	if (!token.pairForm) return 0;
	const next = attempt.tokens[ti + 1]!;
	const loose = token.elongated || next.elongated || !token.known || !next.known;
	for (let i = 0; i < tests.length; i++) {
		const test = tests[i]!;
		if (test.kind !== 'word' || test.written.length < 3 || (test.clauseInitial && !token.initial)) continue;
		if (token.pairForm === test.written || ((test.loose || loose) && token.pairKey === test.key)) return 2;
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

/** The options whose first word is the word `id` (a binary search: most choices have a few first words). */
function optionsOf(choice: Choice, id: number): number[] | undefined {
	const words = choice.firstWordIds;
	let lo = 0;
	let hi = words.length - 1;
	while (lo <= hi) {
		const mid = (lo + hi) >> 1;
		const at = words[mid]!;
		if (at === id) return choice.optionsByFirstWord[mid];
		if (at < id) lo = mid + 1;
		else hi = mid - 1;
	}
	return undefined;
}

/** The options that may start at ti, in lexicon order (the first that matches wins, so order is kept). */
function optionsAt(choice: Choice, ti: number, attempt: Attempt): readonly number[] {
	if (ti >= attempt.limit) return choice.alwaysTried;
	const token = attempt.tokens[ti]!;
	if ((token.idBits & choice.firstWordBits) === 0) return choice.alwaysTried;
	let found: readonly number[] | undefined;
	const ids = token.ids;
	for (let k = 0; k <= ids.length; k++) {
		const id = k < ids.length ? ids[k]! : token.pairId;
		const list = id >= 0 ? optionsOf(choice, id) : undefined;
		if (list && list !== found) found = found ? mergeSorted(found, list) : list;
	}
	return found ?? choice.alwaysTried;
}

// ---------------------------------------------------------------------------------------------------------------
// Scanning a message

const NO_PHRASES: Phrase[] = [];
/** The gaps of a match that skipped no word (shared: never written to). */
const NO_GAPS: readonly number[] = [];
const NO_FOLLOWERS: (Words | null)[] = [];

/** Marks the words of the sentence that starts at token `from` as seen in it (see Phrase.needs); returns its end. */
function markSentence(seenIn: Int32Array, tokens: Token[], from: number, mark: number): number {
	const sentence = tokens[from]!.sent;
	let i = from;
	for (; i < tokens.length && tokens[i]!.sent === sentence; i++) {
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

/** Whether the sentence marked `sentence` holds a word for each of the phrase's needs (see Phrase.needs). */
function possibleIn(phrase: Phrase, state: ScanState, sentence: number): boolean {
	const marks = state.phraseMarks;
	const at = phrase.serial * PHRASE_MARKS;
	if (marks[at + CHECKED_IN] !== sentence) {
		marks[at + CHECKED_IN] = sentence;
		marks[at + POSSIBLE] = seenAll(phrase.needs!, state.seenIn, sentence) ? 1 : 0;
	}
	return marks[at + POSSIBLE] === 1;
}

function seenAll(needs: (readonly number[])[], seenIn: Int32Array, sentence: number): boolean {
	for (let n = 0; n < needs.length; n++) {
		const words = needs[n]!;
		let seen = false;
		for (let k = 0; k < words.length && !seen; k++) seen = seenIn[words[k]!] === sentence;
		if (!seen) return false;
	}
	return true;
}

/** Marks the phrases of a list active in the scan `scan` (and collects them once, in `active`). */
function activate(list: Phrase[] | undefined, state: ScanState, scan: number, active: Phrase[]): void {
	if (!list) return;
	const marks = state.phraseMarks;
	for (let i = 0; i < list.length; i++) {
		const phrase = list[i]!;
		const at = phrase.serial * PHRASE_MARKS;
		if (marks[at + ACTIVE_IN] !== scan) {
			marks[at + ACTIVE_IN] = scan;
			marks[at + RANK] = active.length;
			marks[at + LAST_CLAUSE] = -1;
			active.push(phrase);
		}
	}
}

/**
 * The phrases whose anchors occur in the message (and those without anchors), marked active in the scan. The words
 * of a repeated word activate nothing new.
 */
function activePhrases(index: PhraseIndex, tokens: Token[], state: ScanState, scan: number): Phrase[] {
	const active: Phrase[] = [];
	activate(index.unanchored, state, scan, active);
	fitWords(state, tokens.length);
	const anchoredIn = state.anchoredIn;
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i]!;
		if (token.pairId >= 0) activate(index.byAnchor[token.pairId], state, scan, active);
		const word = token.cache.index;
		if (anchoredIn[word] === scan) continue;
		anchoredIn[word] = scan;
		const ids = token.ids;
		for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0) activate(index.byAnchor[ids[k]!], state, scan, active);
	}
	return active;
}

/**
 * The active phrases that may start at a token: by its keys, the two-word form, a prefix or a number. `ranked`: each
 * list in the order the phrases became active (as a long message has always listed them: the order of the matches
 * found at one token), else in lexicon order. `tried` marks the phrases taken at this token.
 */
function candidatesAt(token: Token, index: PhraseIndex, state: ScanState, scan: number, tried: number, ranked: boolean, out: Phrase[]): Phrase[] {
	const marks = state.phraseMarks;
	const take = (list: Phrase[] | undefined): void => {
		if (!list) return;
		const from = out.length;
		for (let i = 0; i < list.length; i++) {
			const phrase = list[i]!;
			const at = phrase.serial * PHRASE_MARKS;
			if (marks[at + TRIED_AT] !== tried && marks[at + ACTIVE_IN] === scan) {
				marks[at + TRIED_AT] = tried;
				out.push(phrase);
			}
		}
		if (ranked) {
			for (let i = from + 1; i < out.length; i++) {
				const phrase = out[i]!;
				const rank = marks[phrase.serial * PHRASE_MARKS + RANK]!;
				let j = i;
				for (; j > from && marks[out[j - 1]!.serial * PHRASE_MARKS + RANK]! > rank; j--) out[j] = out[j - 1]!;
				out[j] = phrase;
			}
		}
	};
	const keys = token.keys;
	const ids = token.ids;
	const prefix = index.byFirstPrefix.size > 0;
	for (let k = 0; k < keys.length; k++) {
		if (ids[k]! >= 0) take(index.byFirstWord[ids[k]!]);
		if (prefix && keys[k]!.length >= 3) take(index.byFirstPrefix.get(keys[k]!.slice(0, 3)));
	}
	if (token.pairId >= 0) take(index.byFirstWord[token.pairId]);
	if (!Number.isNaN(token.num)) take(index.startingWithNumber);
	return out;
}

/**
 * The matches of one kind of phrase (signals or markers), in text order, found with a state of its own. First the
 * phrases whose anchors occur in the message are marked active (none: only compounds remain to check), then each
 * token looks up the few that may start there and tries those whose next word can follow and whose sentence holds all
 * they need. Long messages remember the candidates of each distinct word, so a word repeated a thousand times costs
 * one lookup.
 */
function scanPhrases(lexicon: CompiledLexicon, tokens: Token[], signals: boolean, matches: Match[]): void {
	const state = takeState(lexicon);
	try {
		scanWith(lexicon, state, tokens, signals, matches);
	} finally {
		giveBack(lexicon, state);
	}
}

function scanWith(lexicon: CompiledLexicon, state: ScanState, tokens: Token[], signals: boolean, matches: Match[]): void {
	const index = signals ? lexicon.signals : lexicon.markers;
	const scan = scanMark(state, tokens.length);
	const active = activePhrases(index, tokens, state, scan);
	if (active.length === 0 && !signals) return;
	const remember = tokens.length > 64 && active.length > 0;

	const attempt: Attempt = {
		tokens,
		scan,
		stepFailures: state.stepFailures,
		start: 0,
		limit: 0,
		budget: 0,
		gaps: [],
		gapCount: 0,
		end: -1,
	};
	const scratch: Phrase[] = [];
	const scratchFollowers: (Words | null)[] = [];
	const marks = state.phraseMarks;
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
			sentence = ++state.lastMark;
			sentenceEnd = markSentence(state.seenIn, tokens, ti, sentence);
			nextSentenceEnd = -1;
		}
		if (ti === scopeEnd) scopeEnd = signals ? sentenceEnd : endOf(tokens, ti, true);
		let candidates = NO_PHRASES;
		let followers = NO_FOLLOWERS;
		let compounds: Phrase[] | null = null;
		if (active.length > 0) {
			if (remember) {
				const word = token.cache.index;
				let remembered = state.remembered[word];
				if (remembered && remembered.scan === scan && remembered.pairKey === token.pairKey) {
					candidates = remembered.phrases;
					followers = remembered.followers;
					compounds = remembered.compounds;
				} else {
					candidates = candidatesAt(token, index, state, scan, ++state.lastMark, true, []);
					followers = candidates.map((phrase) => followAt(phrase, token));
					compounds = signals ? compoundsOf(lexicon, token.keys) : NO_PHRASES;
					remembered ??= state.remembered[word] = {
						scan,
						pairKey: '',
						phrases: NO_PHRASES,
						followers: NO_FOLLOWERS,
						compounds: NO_PHRASES,
					};
					remembered.scan = scan;
					remembered.pairKey = token.pairKey;
					remembered.phrases = candidates;
					remembered.followers = followers;
					remembered.compounds = compounds;
				}
			} else {
				scratch.length = 0;
				candidates = candidatesAt(token, index, state, scan, ++state.lastMark, false, scratch);
				followers = scratchFollowers;
				followers.length = 0;
				for (let k = 0; k < candidates.length; k++) followers.push(followAt(candidates[k]!, token));
			}
		}
		const next = ti + 1 < scopeEnd ? tokens[ti + 1] : undefined;
		for (let k = 0; k < candidates.length; k++) {
			const phrase = candidates[k]!;
			let limit = scopeEnd;
			let following = next;
			if (signals && phrase.crossesSentence) {
				// A `~~` gap reaches into the next sentence.
				if (nextSentenceEnd < 0) {
					const more = sentenceEnd < tokens.length && tokens[sentenceEnd]!.sent === token.sent + 1;
					nextSentenceEnd = more ? endOf(tokens, sentenceEnd, false) : sentenceEnd;
				}
				limit = nextSentenceEnd;
				following = ti + 1 < limit ? tokens[ti + 1] : undefined;
			}
			const words = followers[k]!;
			if (words !== null && !(following && isOneOf(words, following))) continue;
			if (phrase.once && marks[phrase.serial * PHRASE_MARKS + LAST_CLAUSE] === token.clause) continue;
			if (bareless && phrase.bare) continue;
			if (phrase.needs && !possibleIn(phrase, state, sentence)) continue;
			attempt.start = ti;
			attempt.limit = limit;
			attempt.budget = STEP_BUDGET;
			attempt.gapCount = 0;
			if (match(phrase.start, ti, attempt)) {
				matches.push({ phrase, start: ti, end: attempt.end, gaps: attempt.gapCount > 0 ? attempt.gaps.slice(0, attempt.gapCount) : NO_GAPS });
				marks[phrase.serial * PHRASE_MARKS + LAST_CLAUSE] = token.clause;
			}
		}
		if (!signals) continue;
		compounds ??= compoundsOf(lexicon, token.keys);
		for (let k = 0; k < compounds.length; k++) {
			const phrase = compounds[k]!;
			if (bareless && phrase.bare) continue;
			let found = false;
			for (let m = matches.length - 1; m >= 0 && matches[m]!.start === ti && !found; m--) found = matches[m]!.phrase === phrase;
			if (!found) matches.push({ phrase, start: ti, end: ti + 1, gaps: NO_GAPS });
		}
	}
}

/** The phrases a word can be written together as ("killmyself"), for each of its keys in order. */
function compoundsOf(lexicon: CompiledLexicon, keys: string[]): Phrase[] {
	let out: Phrase[] | null = null;
	for (let k = 0; k < keys.length; k++) {
		const key = keys[k]!;
		const list = key.length >= 6 ? lexicon.compounds.get(key) : undefined;
		if (!list) continue;
		if (!out) out = list.slice();
		else out.push(...list);
	}
	return out ?? NO_PHRASES;
}

/** The signal matches of a message, in text order (a phrase written as one word included). */
export function findSignals(lexicon: CompiledLexicon, tokens: Token[]): Match[] {
	const matches: Match[] = [];
	scanPhrases(lexicon, tokens, true, matches);
	return matches;
}

/** The marker matches of a message (negation, past, jokes, times...), in text order. */
export function findMarkers(lexicon: CompiledLexicon, tokens: Token[]): Match[] {
	const matches: Match[] = [];
	scanPhrases(lexicon, tokens, false, matches);
	return matches;
}

/** All matches: the signals, then the markers. */
export function findMatches(lexicon: CompiledLexicon, tokens: Token[]): Match[] {
	return [...findSignals(lexicon, tokens), ...findMarkers(lexicon, tokens)];
}
