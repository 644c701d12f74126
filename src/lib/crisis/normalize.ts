/**
 * Text normalisation and tokenisation for the crisis screen. Everything here is linear in the input: a single pass over
 * code points, no regular expression that can backtrack.
 *
 * normalizeText: NFKC (fullwidth, mathematical and circled letters), lower case, invisible characters and combining
 * marks removed (zero-width joiners, soft hyphens, bidi controls, variation selectors, diacritics, zalgo), homoglyphs
 * and small capitals folded to Latin letters, typographic quotes and apostrophes unified.
 *
 * tokenize: words with candidate spellings (leet decoded, literal, `1` read as `l`, German `ae/oe/ue` folded), each with
 * its "skeleton", repeated letters collapsed ("sooo" = "so", "kiiill" = "kil"), so that elongations compare equal (the
 * engine decides when a skeleton may stand for a word: "of" must not become "off"). Masked letters (`s*icide`) keep a `*` for the lexicon to resolve. Sentences and clauses are numbered so
 * that phrases never span a sentence and guards know their scope. Letters spaced out (`k i l l`, `s.u.i.c.i.d.e`)
 * are joined and, when a segmenter is given, split back into words.
 */

export interface Token {
	/** Candidate spellings: leet decoded first, then the literal one, `1` read as `l`, German umlauts folded, corrections. */
	forms: string[];
	/** The skeleton of each form (same order, may repeat). */
	keys: string[];
	/** Has a letter repeated three times or more ("sooo"): any lexicon word with the same skeleton may match. */
	elongated: boolean;
	/** One of its forms is a lexicon word as written (set by the engine). */
	known: boolean;
	/** The lexicon's number for each key (-1: no lexicon word), and for the two-word form (set by the engine). */
	ids: number[];
	pairId: number;
	/** One bit for each of those numbers (the number modulo 32): a quick test before looking one up (set by the engine). */
	idBits: number;
	/** Shared by the tokens of a repeated word (and numbers the distinct words of the text). */
	cache: WordCache;
	/** The leet-decoded word. */
	word: string;
	/** This word and the next one written together ("my self" = "myself"), and its skeleton; empty at a clause end. */
	pairForm: string;
	pairKey: string;
	sent: number;
	clause: number;
	/** The first token of its clause. */
	initial: boolean;
	/** Inside balanced double quotes. */
	quoted: boolean;
	/** The value of an all-digit token, else NaN. */
	num: number;
	emoji: boolean;
}

/**
 * What the tokens of a repeated word share (the tokenizer reads a repeated chunk once, so its tokens share their
 * spelling arrays and this object). `index` numbers the distinct words of a message from 0, in order of first
 * appearance: the engine keeps what it works out per word in arrays by it.
 */
export interface WordCache {
	index: number;
	/** Whether the word may be the first of two written as one (see tokenize's pairFilter; null: not yet asked). */
	pairs: boolean | null;
	/** The two-word form with the word that followed last time (`pairNext` is that word's spelling array). */
	pairNext: string[] | null;
	pairForm: string;
	pairKey: string;
}

export function newWordCache(): WordCache {
	return { index: -1, pairs: null, pairNext: null, pairForm: '', pairKey: '' };
}

export type Segmenter = (letters: string) => string[] | null;

/** Look-alike characters by code point, and what they stand for. */
const FOLD = new Map<number, string>();
function fold(from: string, to: string): void {
	for (const ch of from) FOLD.set(ch.codePointAt(0)!, to);
}
// Cyrillic and Greek letters that look Latin, small capitals and other look-alikes used to dodge filters.
fold('аɑαᴀ', 'a');
fold('вʙβ', 'b');
fold('сϲᴄς', 'c');
fold('ԁᴅ', 'd');
fold('еєεᴇ', 'e');
fold('ꜰ', 'f');
fold('ɡɢ', 'g');
fold('һнʜ', 'h');
fold('іїιɩɪıӏ', 'i');
fold('јȷᴊ', 'j');
fold('кκᴋ', 'k');
fold('ʟłŀ', 'l');
fold('мᴍ', 'm');
fold('ɴη', 'n');
fold('оοσᴏø', 'o');
fold('рρᴘ', 'p');
fold('ԛǫ', 'q');
fold('ʀɾг', 'r');
fold('ѕꜱſ', 's');
fold('тτᴛŧ', 't');
fold('υᴜμ', 'u');
fold('νᴠʋ', 'v');
fold('ԝωᴡ', 'w');
fold('хχ', 'x');
fold('уүʏ', 'y');
fold('ᴢ', 'z');
fold('đð', 'd');
fold('ħ', 'h');
fold('ß', 'ss');
fold('æ', 'ae');
fold('œ', 'oe');
fold('þ', 'th');
fold('‘’ʼ`´′', "'");
fold('“”„‟«»″', '"');
fold('‐‑‒', '-');

function isMark(cp: number): boolean {
	return (
		(cp >= 0x300 && cp <= 0x36f) ||
		(cp >= 0x1ab0 && cp <= 0x1aff) ||
		(cp >= 0x1dc0 && cp <= 0x1dff) ||
		(cp >= 0x20d0 && cp <= 0x20ff) ||
		(cp >= 0xfe20 && cp <= 0xfe2f)
	);
}

function isInvisible(cp: number): boolean {
	return (
		cp === 0xad ||
		cp === 0x61c ||
		cp === 0x115f ||
		cp === 0x1160 ||
		cp === 0x17b4 ||
		cp === 0x17b5 ||
		(cp >= 0x180b && cp <= 0x180f) ||
		(cp >= 0x200b && cp <= 0x200f) ||
		(cp >= 0x202a && cp <= 0x202e) ||
		(cp >= 0x2060 && cp <= 0x206f) ||
		cp === 0x3164 ||
		(cp >= 0xfe00 && cp <= 0xfe0f) ||
		cp === 0xfeff ||
		cp === 0xffa0 ||
		(cp >= 0x1bca0 && cp <= 0x1bca3) ||
		(cp >= 0xe0000 && cp <= 0xe007f) ||
		(cp >= 0xe0100 && cp <= 0xe01ef)
	);
}

// eslint-disable-next-line no-control-regex -- the ASCII range starts at NUL
const ASCII_ONLY = /^[\x00-\x7f]*$/;

export function normalizeText(input: string): string {
	if (ASCII_ONLY.test(input)) return input.toLowerCase();
	const decomposed = input.normalize('NFKC').toLowerCase().normalize('NFD');
	let out = '';
	let run = 0; // start of the current run of characters kept as they are, copied in one slice
	for (let i = 0; i < decomposed.length; i++) {
		const code = decomposed.charCodeAt(i);
		if (code < 0x80) continue;
		const cp = decomposed.codePointAt(i)!;
		const width = cp > 0xffff ? 2 : 1;
		const drop = isMark(cp) || isInvisible(cp);
		const folded = drop ? undefined : FOLD.get(cp);
		if (drop || folded !== undefined) {
			out += decomposed.slice(run, i);
			if (folded !== undefined) out += folded;
			run = i + width;
		}
		i += width - 1;
	}
	return run === 0 ? decomposed : out + decomposed.slice(run);
}

/** Collapses runs of a repeated character; a word made of one letter repeated ("kkkk", laughter in Portuguese) keeps three. */
export function skeleton(word: string): string {
	let repeats = false;
	for (let k = 1; k < word.length && !repeats; k++) repeats = word.charCodeAt(k) === word.charCodeAt(k - 1);
	if (!repeats) return word;
	let out = '';
	let prev = '';
	for (const ch of word) {
		if (ch !== prev) out += ch;
		prev = ch;
	}
	if (out.length === 1 && word.length >= 3) return out.repeat(3);
	return out;
}

const LEET_DIGITS = ['o', 'i', '', 'e', 'a', 's', '', 't', 'b', 'g'];
const EMOJI = new Map<number, string>(
	Object.entries({
		'🔪': 'knife',
		'🗡': 'knife',
		'💊': 'pills',
		'🪢': 'rope',
		'🔫': 'gun',
		'🩸': 'blood',
		'⚰': 'coffin',
		'🪦': 'grave',
		'😂': 'lol',
		'🤣': 'lol',
		'💀': 'skull',
		'🌉': 'bridge',
	}).map(([k, v]) => [k.codePointAt(0)!, v]),
);
const codes = (chars: string): Set<number> => new Set(Array.from(chars, (ch) => ch.codePointAt(0)!));
const SENTENCE_END = codes('.!?;\u3002\uff01\uff1f');
const CLAUSE_BREAK = codes(',:()[]{}–—-/|~\u3001');
const SOFT_JOIN = codes('.-_·•');
const LEET_SYMBOLS = codes('@!*#$|');
/** What chunk() looks for in a character that is not part of a word, as bits (a table for ASCII: it runs on every one). */
const LEET = 1;
const SOFT = 2;
const SENTENCE = 4;
const CLAUSE = 8;
function classOf(cp: number): number {
	return (
		(LEET_SYMBOLS.has(cp) ? LEET : 0) |
		(SOFT_JOIN.has(cp) ? SOFT : 0) |
		(SENTENCE_END.has(cp) ? SENTENCE : 0) |
		(CLAUSE_BREAK.has(cp) ? CLAUSE : 0)
	);
}
const ASCII_CLASSES = Uint8Array.from({ length: 0x80 }, (_, cp) => classOf(cp));
function charClass(cp: number): number {
	return cp < 0x80 ? ASCII_CLASSES[cp]! : classOf(cp);
}
/** ' ', \t \n \v \f \r, NEL, line and paragraph separators (a function: this runs on every character). */
function isSpace(code: number): boolean {
	return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0x85 || code === 0x2028 || code === 0x2029;
}
function isNewline(code: number): boolean {
	return code === 0x0a || code === 0x85 || code === 0x2028 || code === 0x2029;
}
/** Words before which a new clause starts: a past-tense guard in "I used to be happy but now I want to die" must not reach across. */
const CONJUNCTIONS = new Set(
	[
		'but',
		'however',
		'though',
		'although',
		'yet',
		'now',
		'pero',
		'mais',
		'aber',
		'doch',
		'jedoch',
		'mas',
		'porem',
		'ma',
		'tuttavia',
		'ahora',
		'maintenant',
		'jetzt',
		'agora',
		'adesso',
	].map(skeleton),
);

const LETTER = /\p{L}/u;
function isLetterCode(code: number): boolean {
	if (code < 0x80) return code >= 0x61 && code <= 0x7a;
	if (code >= 0xd800 && code <= 0xdfff) return false;
	return LETTER.test(String.fromCharCode(code));
}
function isDigitCode(code: number): boolean {
	return code >= 0x30 && code <= 0x39;
}
function isWordCode(code: number): boolean {
	return isDigitCode(code) || isLetterCode(code);
}

function isElongated(word: string): boolean {
	let run = 1;
	for (let k = 1; k < word.length; k++) {
		run = word.charCodeAt(k) === word.charCodeAt(k - 1) ? run + 1 : 1;
		if (run >= 3) return true;
	}
	return false;
}

function allDigits(word: string): boolean {
	for (let k = 0; k < word.length; k++) if (!isDigitCode(word.charCodeAt(k))) return false;
	return word.length > 0;
}

/** Contains "ae", "oe" or "ue". */
function hasUmlautPair(word: string): boolean {
	for (let k = word.indexOf('e', 1); k > 0; k = word.indexOf('e', k + 1)) {
		const before = word.charCodeAt(k - 1);
		if (before === 0x61 || before === 0x6f || before === 0x75) return true;
	}
	return false;
}

/** Spellings of a word: leet decoded, literal, `1` read as `l` ("a1one"), German ae/oe/ue folded. */
function formsOf(leet: string, plain: string): string[] {
	const forms = [leet];
	if (plain !== leet) {
		forms.push(plain);
		if (plain.includes('1')) {
			let lAlt = '';
			for (let k = 0; k < plain.length; k++) lAlt += plain[k] === '1' ? 'l' : leet[k];
			if (!forms.includes(lAlt)) forms.push(lAlt);
		}
	}
	if (hasUmlautPair(leet)) {
		const folded = leet.replaceAll('ae', 'a').replaceAll('oe', 'o').replaceAll('ue', 'u');
		if (!forms.includes(folded)) forms.push(folded);
	}
	return forms;
}

function makeToken(forms: string[], quoted: boolean, emoji: boolean, sent: number, clause: number, keys = forms.map(skeleton)): Token {
	const word = forms[0]!;
	const num = !emoji && allDigits(word) ? Number(word) : Number.NaN;
	return newToken(forms, keys, isElongated(word), num, emoji, sent, clause, quoted, newWordCache());
}

const NO_IDS: number[] = [];

function newToken(
	forms: string[],
	keys: string[],
	elongated: boolean,
	num: number,
	emoji: boolean,
	sent: number,
	clause: number,
	quoted: boolean,
	cache: WordCache,
): Token {
	return {
		forms,
		keys,
		elongated,
		known: true,
		ids: NO_IDS,
		pairId: -1,
		idBits: 0,
		cache,
		word: forms[0]!,
		pairForm: '',
		pairKey: '',
		sent,
		clause,
		initial: false,
		quoted,
		num,
		emoji,
	};
}

/** A word inside one chunk, before it becomes a token. `soft` when "." "-" "_" separated it from the previous one. */
interface Piece {
	leet: string;
	plain: string;
	soft: boolean;
	quoted: boolean;
	emoji: boolean;
	/** A boundary before this piece: 1 clause, 2 sentence. */
	boundary: number;
	/** Spellings and what follows from them, computed once and shared by every token of a repeated chunk. */
	forms?: string[];
	keys?: string[];
	elongated?: boolean;
	num?: number;
	/** Starts a clause ("but", "now"). */
	conj?: boolean;
	cache?: WordCache;
}

/**
 * A chunk already read: its text and hash, its pieces, the boundary after its last one and, for a chunk with quotes,
 * the quote state it was read in and the state after it (read again in the same state, it reads the same).
 */
interface ChunkReading {
	text: string;
	hash: number;
	pieces: Piece[];
	trailing: number;
	quotes: boolean;
	quotedBefore: boolean;
	quotedAfter: boolean;
}
/** Slots of the table of chunks read (a power of two); a collision replaces the older reading. */
const CHUNK_SLOTS = 1024;

class Tokenizer {
	readonly tokens: Token[] = [];
	private sent = 0;
	private clause = 0;
	/** Boundary waiting for the next token: 0 none, 1 clause, 2 sentence. */
	pending = 0;
	quoted = false;
	private pieces: Piece[] = [];
	/** Chunks already analysed in this text: repeated words cost one lookup. */
	/** Chunks read, by hash (long texts only). */
	private readonly seen: (ChunkReading | undefined)[] | null;

	private readonly s: string;
	private readonly useQuotes: boolean;
	/** Long texts remember the chunks they have read (short ones rarely repeat one). */
	private readonly cache: boolean;

	constructor(s: string, useQuotes: boolean) {
		this.s = s;
		this.useQuotes = useQuotes;
		this.cache = s.length > 256;
		this.seen = this.cache ? new Array(CHUNK_SLOTS) : null;
	}

	private boundary(kind: number): void {
		if (kind > this.pending) this.pending = kind;
	}

	/** The words and marks of s[start, end), a run of non-space characters (its hash, and whether it is only a-z). */
	chunk(start: number, end: number, hash: number, plainWord: boolean): void {
		const s = this.s;
		// Most chunks are one plain word: no symbol to read, and in a short text nothing to remember.
		if (plainWord && !this.cache) {
			const word = s.slice(start, end);
			this.emit({ leet: word, plain: word, soft: false, quoted: this.quoted, emoji: false, boundary: 0 }, this.quoted);
			return;
		}
		const slot = hash & (CHUNK_SLOTS - 1);
		let cached = this.seen?.[slot];
		if (
			cached &&
			(cached.hash !== hash ||
				cached.text.length !== end - start ||
				!s.startsWith(cached.text, start) ||
				(cached.quotes && cached.quotedBefore !== this.quoted))
		) {
			cached = undefined;
		}
		if (cached) {
			const list = cached.pieces;
			if (cached.quotes) {
				for (let p = 0; p < list.length; p++) this.emit(list[p]!, list[p]!.quoted);
				this.quoted = cached.quotedAfter;
			} else {
				for (let p = 0; p < list.length; p++) this.emit(list[p]!, this.quoted);
			}
			if (cached.trailing) this.boundary(cached.trailing);
			return;
		}
		const quotedBefore = this.quoted;
		const text = s.slice(start, end);
		if (plainWord) {
			const piece: Piece = { leet: text, plain: text, soft: false, quoted: this.quoted, emoji: false, boundary: 0 };
			this.seen![slot] = { text, hash, pieces: [piece], trailing: 0, quotes: false, quotedBefore, quotedAfter: quotedBefore };
			this.emit(piece, piece.quoted);
			return;
		}
		const pieces: Piece[] = [];
		this.pieces = pieces;
		let pieceStart = -1;
		let dirty = false;
		let leet = '';
		let plain = '';
		let soft = false;
		let boundary = 0;
		const flush = (at: number): void => {
			if (pieceStart >= 0) {
				const word = dirty ? leet : s.slice(pieceStart, at);
				pieces.push({ leet: word, plain: dirty ? plain : word, soft, quoted: this.quoted, emoji: false, boundary });
				boundary = 0;
			}
			pieceStart = -1;
			dirty = false;
			leet = '';
			plain = '';
			soft = false;
		};
		const makeDirty = (at: number): void => {
			if (!dirty) {
				dirty = true;
				leet = plain = pieceStart >= 0 ? s.slice(pieceStart, at) : '';
			}
		};
		for (let k = start; k < end; k++) {
			const code = s.charCodeAt(k);
			if (isLetterCode(code)) {
				if (pieceStart < 0) pieceStart = k;
				if (dirty) {
					leet += s[k];
					plain += s[k];
				}
				continue;
			}
			if (isDigitCode(code)) {
				if (pieceStart < 0) pieceStart = k;
				makeDirty(k);
				leet += LEET_DIGITS[code - 0x30] || s[k];
				plain += s[k];
				continue;
			}
			if (code === 0x27 && pieceStart >= 0 && k + 1 < end && isLetterCode(s.charCodeAt(k + 1))) {
				makeDirty(k); // an apostrophe inside a word joins it: "don't" = "dont", "j'ai" = "jai"
				continue;
			}
			const at = k;
			if (charClass(code) & LEET) {
				// A run of one symbol is read once, as letters ("k!!ll", "s**cide") or as punctuation ("!!!", "****").
				let j = k + 1;
				while (j < end && s.charCodeAt(j) === code) j++;
				const symbol = leetRun(code, k > start ? s.charCodeAt(k - 1) : -1, j < end ? s.charCodeAt(j) : -1);
				if (symbol !== null) {
					if (pieceStart < 0) pieceStart = k;
					makeDirty(k);
					const run = symbol.repeat(j - k);
					leet += run;
					plain += run;
					k = j - 1;
					continue;
				}
				k = j - 1;
			}
			const hadWord = pieceStart >= 0;
			flush(at);
			let cp = code;
			if (code >= 0xd800 && code <= 0xdbff && k + 1 < end) {
				cp = s.codePointAt(k)!;
				k++;
			}
			const emoji = cp < 0x80 ? undefined : EMOJI.get(cp);
			const kind = charClass(cp);
			if (emoji) {
				pieces.push({ leet: emoji, plain: emoji, soft: false, quoted: this.quoted, emoji: true, boundary });
				boundary = 0;
			} else if (cp === 0x22) {
				if (this.useQuotes) this.quoted = !this.quoted;
			} else if (kind & SOFT && hadWord && k + 1 < end && isWordCode(s.charCodeAt(k + 1))) {
				soft = true;
			} else if (kind & SENTENCE) {
				boundary = 2;
			} else if (kind & CLAUSE && boundary < 1) {
				boundary = 1;
			}
		}
		flush(end);
		this.joinSoftRuns();
		const joined = this.pieces;
		if (this.seen) {
			// A chunk without quotes reads the same in any state; one with quotes, the same in the same state.
			this.seen[slot] = { text, hash, pieces: joined, trailing: boundary, quotes: text.includes('"'), quotedBefore, quotedAfter: this.quoted };
		}
		for (const piece of joined) this.emit(piece, piece.quoted);
		if (boundary) this.boundary(boundary);
	}

	/** "s.u.i.c.i.d.e", "k-m-s": three or more single letters joined by soft separators are one word. */
	private joinSoftRuns(): void {
		const pieces = this.pieces;
		for (let i = 0; i < pieces.length; i++) {
			if (pieces[i]!.leet.length !== 1 || pieces[i]!.emoji) continue;
			let j = i + 1;
			while (j < pieces.length && pieces[j]!.soft && pieces[j]!.leet.length === 1 && !pieces[j]!.emoji) j++;
			if (j - i >= 3) {
				let leet = '';
				let plain = '';
				for (let k = i; k < j; k++) {
					leet += pieces[k]!.leet;
					plain += pieces[k]!.plain;
				}
				pieces.splice(i, j - i, { ...pieces[i]!, leet, plain });
			}
		}
	}

	private emit(piece: Piece, quoted: boolean): void {
		this.boundary(piece.boundary);
		let forms = piece.forms;
		if (!forms) {
			forms = piece.forms = piece.emoji ? [piece.leet] : allDigits(piece.plain) ? [piece.plain] : formsOf(piece.leet, piece.plain);
			const word = forms[0]!;
			piece.keys = forms.map(skeleton);
			piece.elongated = isElongated(word);
			piece.num = !piece.emoji && allDigits(word) ? Number(word) : Number.NaN;
			piece.conj = CONJUNCTIONS.has(piece.keys[0]!);
			piece.cache = newWordCache();
		}
		if (this.tokens.length > 0) {
			if (this.pending === 2) {
				this.sent++;
				this.clause++;
			} else if (this.pending === 1 || piece.conj) {
				this.clause++;
			}
		}
		this.pending = 0;
		this.tokens.push(newToken(forms, piece.keys!, piece.elongated!, piece.num!, piece.emoji, this.sent, this.clause, quoted, piece.cache!));
	}
}

/** The leet reading of a run of one symbol between the codes `prev` and `after`, or null when it is punctuation there. */
function leetRun(code: number, prev: number, after: number): string | null {
	const between = prev >= 0 && after >= 0 && isWordCode(prev) && isWordCode(after);
	switch (code) {
		case 0x40: // @
			return between ? 'a' : null;
		case 0x21: // !
			return between ? 'i' : null;
		case 0x2a: // *
		case 0x23: // #
			return between ? '*' : null;
		case 0x24: // $
		case 0x7c: // |
			return (after >= 0 && isLetterCode(after)) || (prev >= 0 && isLetterCode(prev)) ? (code === 0x24 ? 's' : 'l') : null;
		default:
			return null;
	}
}

/**
 * `pairFilter`, when given, is asked about a word (its skeleton) before it is joined to the next one: a two-word form
 * can only matter when the first word begins some lexicon word, and most do not.
 */
export function tokenize(text: string, segment?: Segmenter, pairFilter?: (key: string) => boolean): Token[] {
	const s = normalizeText(text);
	const tokens = joinSpacedLetters(readChunks(s), segment);
	linkTokens(tokens, pairFilter);
	return tokens;
}

/** The tokens of normalised text, chunk by chunk (a chunk is a run of non-space characters). */
function readChunks(s: string): Token[] {
	let quotes = 0;
	for (let k = s.indexOf('"'); k >= 0; k = s.indexOf('"', k + 1)) quotes++;
	const t = new Tokenizer(s, quotes > 0 && quotes % 2 === 0);
	let i = 0;
	while (i < s.length) {
		const code = s.charCodeAt(i);
		if (isSpace(code)) {
			if (isNewline(code)) t.pending = 2;
			i++;
			continue;
		}
		let plainWord = true;
		let hash = 0;
		let j = i;
		for (; j < s.length; j++) {
			const c = s.charCodeAt(j);
			if (isSpace(c)) break;
			if (c < 0x61 || c > 0x7a) plainWord = false;
			hash = (Math.imul(hash, 31) + c) | 0;
		}
		t.chunk(i, j, hash, plainWord);
		i = j;
	}
	return t.tokens;
}

/**
 * Numbers the distinct words (WordCache.index), marks clause-initial tokens and writes each word together with the
 * next one ("my self", "sewer slide").
 */
function linkTokens(tokens: Token[], pairFilter?: (key: string) => boolean): void {
	let words = 0;
	for (let k = 0; k < tokens.length; k++) if (tokens[k]!.cache.index < 0) tokens[k]!.cache.index = words++;
	if (tokens.length > 0) tokens[0]!.initial = true;
	for (let k = 0; k + 1 < tokens.length; k++) {
		const a = tokens[k]!;
		const b = tokens[k + 1]!;
		b.initial = a.clause !== b.clause;
		if (a.clause !== b.clause || a.emoji || b.emoji) continue;
		const cache = a.cache;
		if ((cache.pairs ??= !pairFilter || pairFilter(a.keys[0]!))) {
			// A repeated word followed by the same word as last time: the same pair ("i want to die i want to die...").
			if (cache.pairNext === b.forms) {
				a.pairForm = cache.pairForm;
				a.pairKey = cache.pairKey;
				continue;
			}
			a.pairForm = a.forms[0]! + b.forms[0]!;
			a.pairKey = skeleton(a.pairForm);
			cache.pairNext = b.forms;
			cache.pairForm = a.pairForm;
			cache.pairKey = a.pairKey;
		}
	}
}

/** "k i l l  m y s e l f": a run of three or more one-letter tokens in one clause becomes words again. */
function joinSpacedLetters(tokens: Token[], segment?: Segmenter): Token[] {
	let out: Token[] | null = null;
	let i = 0;
	while (i < tokens.length) {
		const t = tokens[i]!;
		let j = i;
		while (j < tokens.length) {
			const u = tokens[j]!;
			if (u.emoji || u.word.length !== 1 || !isLetterCode(u.word.charCodeAt(0)) || u.clause !== t.clause) break;
			j++;
		}
		if (j - i >= 3 && j - i <= 64) {
			out ??= tokens.slice(0, i);
			let letters = '';
			for (let k = i; k < j; k++) letters += tokens[k]!.word;
			for (const word of segment?.(letters) ?? [letters]) out.push(makeToken([word], t.quoted, false, t.sent, t.clause));
			i = j;
			continue;
		}
		const end = Math.max(j, i + 1);
		if (out) for (let k = i; k < end; k++) out.push(tokens[k]!);
		i = end;
	}
	return out ?? tokens;
}
