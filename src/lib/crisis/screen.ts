/**
 * The crisis screen: a pure, deterministic function from a message to an Assessment. No network, no AI, no regular
 * expression over the text; a typical message takes a few tens of microseconds (one with no crisis word stops after
 * the first pass) and a 4,000-character adversarial one well under a millisecond on a quiet machine (bench/screen.ts
 * prints the figures).
 *
 * Rubric
 * ------
 *   none      nothing that suggests risk: idioms ("this homework is killing me"), tech ("kill -9"), games ("killed
 *             myself in minecraft"), fiction, news and history, recovery and the past ("I used to self-harm, a year
 *             clean today"; "At my worst I wanted to die. Now I run the peer group": a distant time, a turn to now
 *             and the phrase in the past tense), helping others in the abstract, everyday sadness and grief, denials
 *             ("I'm not suicidal").
 *             Means mentioned without intent: "i have the pills", "i have a gun", "i'm on the bridge" (possession of
 *             medication or a place is everyday); taking medication as a routine ("i have the pills my doctor gave me
 *             and will take them tonight before bed": see "Means" below).
 *   concern   distress ("I can't do this anymore"), indirect ideation ("everyone would be better off without me",
 *             "go to sleep and never wake up"), weak goodbyes, giving things away, a relapse without detail, and
 *             worry about someone else ("my friend says she wants to kill herself"). Acquiring or stockpiling lethal
 *             means with no intent stated ("i bought a rope", "ordered a gun", "been saving up my pills").
 *   high      explicit suicidal ideation ("I want to die", "kms", "I don't want to live anymore"), active self-harm
 *             ("I cut again"), a plan without a time ("I have the pills ready", "counted out the pills"), looking for
 *             a method, a final goodbye; explicit intent ("i'm going to take them all", "gonna use the rope"); any
 *             ideation, even indirect, or a goodbye with an intent to act ("nobody would care. gonna do it");
 *             acquiring or stockpiling means with a time ("bought a rope today. tonight's the night"), and means in
 *             hand with a time and nothing else ("i have the rope. tonight.": preparation with the means and a date).
 *   imminent  explicit ideation or a goodbye together with means or a plan ("I have a gun and I want to kill myself",
 *             "i have the pills. goodbye"), or with a time ("tonight", "after this message"; "now" only with intent:
 *             "I'm about to"), or an attempt under way ("I just took all my pills"); means at hand, acquired or
 *             stockpiled together with an intent to use them ("i have the pills and will take them tonight",
 *             "bought a rope, gonna use it", "got the gun, doing it"), with or without a time: having the means and
 *             saying one will use them is a plan; a prepared plan (a noose, a note, the pills counted) with a time
 *             ("tonight"; "today" alone may say when it was done).
 *             For someone else: an attempt, or intent with means or a time (the reply then says to call emergency
 *             services for them).
 *
 * Means. After the Columbia protocol's questions (ideation, method, intent, plan, preparatory behaviour): means alone
 * is not a crisis, means plus intent is a plan. Possession counts when the means are definite or counted ("the
 * pills", "enough pills", "40 of my lithium", "a bottle of", "my dad's gun", any rope or firearm), not "my pills" (a
 * routine). An intent to act with no object of its own ("will take them", "gonna use it", "doing it", "and jump",
 * "i'm ready") counts only next to means at hand (then imminent), to ideation or a goodbye (high, imminent with a
 * time); "do it", "jump" with "tonight" and nothing else stay concern; "take them tonight" alone stays none. A subject
 * left out after "and" or a comma is the subject before it ("i have the pills and will take them", "she has the pills
 * and will..."; English, French and German: Spanish, Italian and Portuguese leave subjects out anyway). Two guards
 * apply only to these phrases: a routine-medication context anywhere in the message (doctor, prescribed, pharmacy,
 * before bed, with food, forgot to take, for my headache...) drops possession and "take them", never "take them all"
 * nor any ideation: "i have the pills my doctor gave me and i'm going to take them all tonight" stays imminent; a
 * benign purpose in the sentence (climbing or sailing rope, hunting or the range, nerf or glue gun, shaving, cooking,
 * asking her out, a stream or a campaign, a sale) drops means and pronoun intents, never explicit ones. Known limits:
 * "I'll end it tonight, he doesn't deserve me" (a breakup is a risk factor, so the relationship reading is not
 * assumed) is imminent; "take them all, the doctor said finish the course" is high.
 * A plea for help does not lower anything: "please help me, I want to kill myself" is high.
 * Joke markers ("lol", "jk") lower ambiguous phrases ("kms", "kill me", goodbyes) by one level, never an explicit
 * statement ("I want to die lol" stays high: people mask pain with "lol"); "/srs" and "I mean it" cancel them. Trivial
 * causes ("kill me now, another meeting", "this homework makes me want to die") lower by one level, and drop the phrase
 * when told with a laugh ("this exam makes me want to die lol"); a petty condition ("if one more customer asks I'll
 * kms", "every time he says 'synergy'", "rather die than wear that") drops it unless "not a joke" or "I mean it" says
 * otherwise. Asking how to support someone who self-harms ("how do I help my friend who cuts?") is not a report of
 * danger unless a time says it is happening ("right now", "tonight"); someone else's suicidal words stay concern
 * either way. Negation, another
 * subject, the past, fiction, games and idioms drop a signal only where they apply to it (the same clause, sentence or
 * the words right around it), never the whole message.
 *
 * How: normalize.ts turns the text into tokens, engine.ts finds the phrases of every lexicon (lexicon/<lang>.json) in
 * them, and this file applies the guards and the rubric. Adding a language is adding a lexicon file and a line in
 * lexicon/index.ts.
 */
import type { Token } from './normalize.ts';
import {
	BARE_MAX_TOKENS,
	compileLexicons,
	findMarkers,
	findSignals,
	MARKER_KINDS,
	POSITIONAL_MARKERS,
	prepare,
	SCAN_ROLES,
	type CompiledLexicon,
	type Match,
	type ScanSets,
	type SignalSpec,
} from './engine.ts';
import { LEXICONS } from './lexicon/index.ts';
import {
	concernVetoed,
	loadModel,
	modelWords,
	ruleFeatures,
	scoreWords,
	tooFewWordsForModel,
	type CrisisModel,
	type Scores,
	type Word,
} from './model.ts';
import { CATEGORIES, levelRank, LEVELS, maxLevel, type Assessment, type CrisisCategory, type CrisisLevel } from './types.ts';

export type { Assessment, CrisisCategory, CrisisLevel } from './types.ts';
export { CATEGORIES, LEVELS, levelRank, maxLevel } from './types.ts';

type Scope = 'near' | 'clause' | 'sentence' | 'message';
type Effect = 'drop' | 'down';
interface Where {
	kind: string;
	scope: Scope;
}

/**
 * Where a guard looks and what it does. `neg` and `other` are read backwards from the phrase and inside its gaps.
 * A cancel marker switches a guard off: "/srs" anywhere cancels joke markers; "still", "since", "again" right next to
 * the phrase cancel the past ("I used to want to die and I still do").
 */
const GUARDS: Record<string, { scope: Scope; effect: Effect; cancel?: Where[]; requires?: Where[]; dropWith?: string }> = {
	past: { scope: 'clause', effect: 'drop', cancel: [{ kind: 'ongoing', scope: 'near' }] },
	// A recovery story: a distant time, a turn to now, and the phrase itself in the past tense ("In 2019 I wanted to
	// die. Now I run the peer group"). Anything recent in its clause, "still" beside it, or anything coming back
	// anywhere in the message ("again", "it's back") keeps the phrase.
	then: {
		scope: 'message',
		effect: 'drop',
		requires: [
			{ kind: 'now_better', scope: 'message' },
			{ kind: 'past_verb', scope: 'clause' },
		],
		cancel: [
			{ kind: 'recent', scope: 'clause' },
			{ kind: 'still', scope: 'near' },
			{ kind: 'recurring', scope: 'message' },
		],
	},
	fiction: { scope: 'sentence', effect: 'drop' },
	idiom: { scope: 'near', effect: 'drop' },
	joke: { scope: 'message', effect: 'down', cancel: [{ kind: 'serious', scope: 'message' }] },
	game: { scope: 'sentence', effect: 'drop' },
	effort: { scope: 'near', effect: 'drop' },
	// "cut myself on the mandoline" is an accident; "burned myself with the pan on purpose" is not.
	accident: { scope: 'sentence', effect: 'drop', cancel: [{ kind: 'serious', scope: 'sentence' }] },
	// A trivial cause lowers one level ("this exam makes me want to die" still gets a gentle reply); told with a laugh
	// it is hyperbole ("mrs patel gave us a pop quiz, i want to die 💀") and drops. "If one more person spoils it I'm
	// ending it all" is petty on its face and drops; "not a joke" or "I mean it" keeps it.
	trivial: { scope: 'sentence', effect: 'down', dropWith: 'joke', cancel: [{ kind: 'serious', scope: 'message' }] },
	petty: { scope: 'sentence', effect: 'drop', cancel: [{ kind: 'serious', scope: 'message' }] },
	// "My friend told me she self-harms, how do I support her?" asks how to help: an ordinary answer serves it. A time
	// anywhere ("tonight", "right now") keeps it a report of danger.
	support: {
		scope: 'message',
		effect: 'drop',
		cancel: [
			{ kind: 'time', scope: 'message' },
			{ kind: 'time_weak', scope: 'message' },
		],
	},
	leave: { scope: 'sentence', effect: 'drop' },
	relation: { scope: 'near', effect: 'drop' },
	account: { scope: 'near', effect: 'drop' },
	medical: { scope: 'message', effect: 'drop' },
	purpose: { scope: 'sentence', effect: 'drop' },
};
// The engine keeps every match of a positional marker and one per clause of the others: both lists must agree.
for (const [kind, rule] of Object.entries(GUARDS)) {
	for (const { kind: k, scope } of [{ kind, scope: rule.scope }, ...(rule.cancel ?? []), ...(rule.requires ?? [])]) {
		if ((scope === 'near') !== POSITIONAL_MARKERS.has(k)) throw new Error(`crisis guard ${k}: scope and POSITIONAL_MARKERS disagree`);
	}
}
/** How far (in words) a `near` marker may sit from the phrase. */
const NEAR: Record<string, number> = { ongoing: 3, still: 3 };
const DEFAULT_GUARDS = ['neg', 'other', 'past', 'then', 'fiction', 'idiom', 'joke'];
const SUICIDAL: ReadonlySet<CrisisCategory> = new Set(['suicidal_ideation', 'goodbye', 'indirect_ideation']);

/** Marker kinds as bits: the kinds found in a sentence or a clause are one number. */
const KIND_BITS = new Map(MARKER_KINDS.map((kind, i) => [kind, 1 << i]));
const kindBit = (kind: string): number => KIND_BITS.get(kind)!;
/** How many sets of marker kinds there are: a reading's key is its strength times this plus the kinds that lowered it. */
const MARKER_MASKS = 2 ** MARKER_KINDS.length;

/** Where to look for a marker kind: its bit, its scope and (near) how far. */
interface Lookup {
	kind: string;
	bit: number;
	scope: Scope;
	reach: number;
}
interface Guard extends Lookup {
	effect: Effect;
	cancel: Lookup[];
	requires: Lookup[];
	/** Another guard which, applying too, turns this one's lowering into a drop (resolved once, below). */
	dropWith: Guard | undefined;
}
const lookup = (kind: string, scope: Scope): Lookup => ({ kind, bit: kindBit(kind), scope, reach: NEAR[kind] ?? 1 });
const GUARD_RULES = new Map<string, Guard>(
	Object.entries(GUARDS).map(([kind, rule]) => [
		kind,
		{
			...lookup(kind, rule.scope),
			effect: rule.effect,
			cancel: (rule.cancel ?? []).map((w) => lookup(w.kind, w.scope)),
			requires: (rule.requires ?? []).map((w) => lookup(w.kind, w.scope)),
			dropWith: undefined as Guard | undefined,
		},
	]),
);
for (const [kind, rule] of Object.entries(GUARDS)) if (rule.dropWith) GUARD_RULES.get(kind)!.dropWith = GUARD_RULES.get(rule.dropWith)!;

/** The guards of a signal: negation and another person (read around the phrase), then the marker guards in order. */
interface SignalGuards {
	neg: boolean;
	other: boolean;
	markers: Guard[];
}
const guardsCache = new WeakMap<SignalSpec, SignalGuards>();
function guardsOf(spec: SignalSpec): SignalGuards {
	let guards = guardsCache.get(spec);
	if (!guards) {
		const kinds = DEFAULT_GUARDS.filter((k) => !spec.noguard?.includes(k)).concat(spec.guards ?? []);
		const markers = kinds.filter((k) => k !== 'neg' && k !== 'other').map((k) => GUARD_RULES.get(k)!);
		guards = { neg: kinds.includes('neg'), other: kinds.includes('other'), markers };
		guardsCache.set(spec, guards);
	}
	return guards;
}

let compiled: CompiledLexicon | null = null;
function lexicon(): CompiledLexicon {
	compiled ??= compileLexicons(LEXICONS);
	return compiled;
}

/** Compiles the lexicons now (they compile on first use otherwise); throws if a lexicon file is malformed. */
export function loadLexicons(): { languages: string[]; phrases: number } {
	const c = lexicon();
	return { languages: [...c.languages], phrases: c.phrases.length };
}

interface Markers {
	/** The marker kinds (bits, see kindBit) found in the message, in each sentence and in each clause (by number). */
	message: number;
	sentence: number[];
	clause: number[];
	near: Map<string, Match[]>;
	times: { sent: number; weak: boolean; lang: string }[];
}

function collectMarkers(matches: Match[], tokens: Token[]): Markers {
	const last = tokens[tokens.length - 1]!;
	const markers: Markers = {
		message: 0,
		sentence: new Array<number>(last.sent + 1).fill(0),
		clause: new Array<number>(last.clause + 1).fill(0),
		near: new Map(),
		times: [],
	};
	for (const m of matches) {
		const kind = m.phrase.kind;
		if (kind === 'signal') continue;
		if (kind === 'time' || kind === 'time_weak') {
			markers.times.push({ sent: tokens[m.start]!.sent, weak: kind === 'time_weak', lang: m.phrase.lang });
			markers.message |= kindBit(kind); // for guards a time cancels (support)
			continue;
		}
		const bit = kindBit(kind);
		markers.message |= bit;
		for (let i = m.start; i < m.end; i++) {
			markers.sentence[tokens[i]!.sent]! |= bit;
			markers.clause[tokens[i]!.clause]! |= bit;
		}
		const near = markers.near.get(kind);
		if (near) near.push(m);
		else markers.near.set(kind, [m]);
	}
	return markers;
}

/** Which of the language's scan sets (negators, self, other...) the token is in, as SCAN_ROLES bits. */
function rolesOf(token: Token, sets: ScanSets): number {
	const keys = token.keys;
	let roles = 0;
	for (let k = 0; k < keys.length; k++) roles |= sets.roles.get(keys[k]!) ?? 0;
	return roles;
}

/** Negation or another person governing the phrase: inside its gaps, or walking back over filler words. */
function subjectGuard(m: Match, tokens: Token[], c: CompiledLexicon, checkOther: boolean): 'neg' | 'other' | null {
	const sets = c.scan.get(m.phrase.lang);
	if (!sets) return null;
	for (const gi of m.gaps) {
		const roles = rolesOf(tokens[gi]!, sets);
		if (roles & SCAN_ROLES.negators) return 'neg';
		if (checkOther && roles & SCAN_ROLES.other) return 'other';
	}
	const clause = tokens[m.start]!.clause;
	for (let i = m.start - 1, steps = 0; i >= 0 && steps < 5; i--, steps++) {
		const token = tokens[i]!;
		if (token.clause !== clause) break;
		const roles = rolesOf(token, sets);
		if (roles & SCAN_ROLES.negators) return 'neg';
		if (roles & SCAN_ROLES.self) return null;
		if (checkOther && roles & SCAN_ROLES.other) return 'other';
		if (roles & SCAN_ROLES.coord) return checkOther ? coordinatedSubject(tokens, i, clause, sets) : null;
		if (!(roles & SCAN_ROLES.transparent)) return null;
	}
	return null;
}

/**
 * "she has the pills and will take them": the verb after "and" shares the subject of the one before, the nearest
 * subject pronoun before the coordinator in the clause (up to 8 words back). Nouns and object pronouns are passed
 * over: "mom yelled at me again and want to die" and "I love my mom and want to die" stay about me.
 */
function coordinatedSubject(tokens: Token[], coord: number, clause: number, sets: ScanSets): 'other' | null {
	for (let i = coord - 1; i >= 0 && coord - i <= 8; i--) {
		const token = tokens[i]!;
		if (token.clause !== clause) return null;
		const roles = rolesOf(token, sets);
		if (!(roles & SCAN_ROLES.subjects)) continue;
		return roles & SCAN_ROLES.self ? null : 'other';
	}
	return null;
}

function present(look: Lookup, m: Match, tokens: Token[], markers: Markers): boolean {
	switch (look.scope) {
		case 'message':
			return (markers.message & look.bit) !== 0;
		case 'sentence':
			return (markers.sentence[tokens[m.start]!.sent]! & look.bit) !== 0;
		case 'clause':
			for (let i = m.start; i < m.end; i++) if (markers.clause[tokens[i]!.clause]! & look.bit) return true;
			return false;
		case 'near': {
			const first = tokens[m.start]!.clause;
			const last = tokens[m.end - 1]!.clause;
			for (const g of markers.near.get(look.kind) ?? []) {
				const clause = tokens[g.start]!.clause;
				if (g.start <= m.end - 1 + look.reach && g.end - 1 >= m.start - look.reach && clause >= first && clause <= last) return true;
			}
			return false;
		}
	}
}

function guardApplies(guard: Guard, m: Match, tokens: Token[], markers: Markers): boolean {
	return (
		present(guard, m, tokens, markers) &&
		guard.requires.every((look) => present(look, m, tokens, markers)) &&
		!guard.cancel.some((look) => present(look, m, tokens, markers))
	);
}

interface Live {
	spec: SignalSpec;
	lang: string;
	level: CrisisLevel;
	/** levelRank(level). */
	rank: number;
	sent: number;
	tp: boolean;
}

function lower(level: CrisisLevel, steps: number): CrisisLevel {
	return LEVELS[Math.max(0, levelRank(level) - steps)]!;
}

interface GroupResult {
	level: CrisisLevel;
	categories: Set<CrisisCategory>;
	contributors: Set<Live>;
	usedTime: Set<string>;
}

function assessGroup(live: Live[], times: Markers['times']): GroupResult {
	const result: GroupResult = { level: 'none', categories: new Set(), contributors: new Set(), usedTime: new Set() };
	const concern = levelRank('concern');
	const high = levelRank('high');
	const contribute = (l: Live, category: CrisisCategory = l.spec.cat): void => {
		result.contributors.add(l);
		result.categories.add(category);
	};
	for (const l of live) {
		if (l.rank >= concern) {
			result.level = maxLevel(result.level, l.level);
			contribute(l);
		}
	}
	// Explicit intent to use a means on oneself ("use the gun on myself") counts as ideation whatever its category.
	const suicidal = live.filter((l) => (SUICIDAL.has(l.spec.cat) || (l.spec.intent && l.rank >= high)) && l.rank >= concern);
	const explicit = suicidal.filter((l) => l.rank >= high);
	const plans = live.filter((l) => l.spec.plan);
	/** Preparation beyond having something at hand: acquiring, stockpiling, a noose, a note (level concern or more). */
	const prepared = plans.filter((l) => l.rank >= concern);
	const vague = live.filter((l) => l.spec.vague);
	/** Intent to act on something unnamed: "do it", "jump" (vague), "take them", "use it" (use). */
	const acting = live.filter((l) => l.spec.vague || l.spec.use);
	const intent = explicit.some((l) => l.spec.intent) || (suicidal.length > 0 && acting.length > 0);
	const anchors = new Set([...suicidal, ...vague, ...prepared].map((l) => l.sent));
	const near = (sent: number): boolean => anchors.has(sent) || anchors.has(sent - 1) || anchors.has(sent + 1);
	const strong = times.filter((t) => !t.weak && near(t.sent));
	const weak = times.filter((t) => t.weak && near(t.sent));
	const raise = (level: CrisisLevel): void => {
		result.level = maxLevel(result.level, level);
	};

	if (live.some((l) => l.spec.cat === 'attempt' && l.rank >= high)) raise('imminent');
	// Means at hand or prepared, with ideation, a goodbye (even a bare "bye") or an intent to act: a plan.
	const farewell = live.filter((l) => l.spec.cat === 'goodbye');
	if (plans.length > 0 && (suicidal.length > 0 || acting.length > 0 || farewell.length > 0)) {
		raise('imminent');
		for (const l of [...plans, ...acting, ...farewell]) contribute(l);
	}
	// Ideation (even indirect, or a goodbye) with an intent to act: "everyone is better off without me. gonna do it".
	if (suicidal.length > 0 && acting.length > 0) {
		raise('high');
		for (const l of acting) contribute(l, 'suicidal_ideation');
	}
	let timed = false;
	if (strong.length > 0 && (explicit.length > 0 || intent)) {
		raise('imminent');
		timed = true;
	} else if (weak.length > 0 && intent && explicit.length > 0) {
		raise('imminent');
		timed = true;
	} else if (strong.length > 0 && suicidal.length > 0) {
		raise('high');
		timed = true;
	} else if (strong.length > 0 && vague.length > 0) {
		raise('concern');
		timed = true;
	}
	// Preparation with a time: a noose or a note ready (high) and "tonight" is imminent; a purchase or a stockpile and
	// "tonight" is high. A weak time ("today", "now") says when it was done as often as when it will be: no change.
	const nearAny = (list: Live[]): ((t: Markers['times'][number]) => boolean) => {
		const sents = new Set(list.map((l) => l.sent));
		return (t) => sents.has(t.sent) || sents.has(t.sent - 1) || sents.has(t.sent + 1);
	};
	const preparedTime = prepared.length > 0 ? times.filter(nearAny(prepared)) : [];
	if (preparedTime.some((t) => !t.weak)) {
		raise(prepared.some((l) => l.rank >= high) ? 'imminent' : 'high');
		timed = true;
		for (const t of preparedTime) if (!t.weak) result.usedTime.add(`${t.lang}:time`);
	}
	// Means in hand and a time, nothing else: "i have the rope. tonight." is preparation with the means and a date: high
	// ("tonight" alone is not a plan, and means alone are everyday).
	const held = plans.filter((l) => l.spec.held);
	const nearHeld = held.length > 0 ? nearAny(held) : null;
	const heldTime = nearHeld ? times.filter((t) => !t.weak && nearHeld(t)) : [];
	if (heldTime.length > 0 && levelRank(result.level) < levelRank('high')) {
		raise('high');
		for (const l of held) contribute(l);
		for (const t of heldTime) result.usedTime.add(`${t.lang}:time`);
	}
	if (timed) {
		result.categories.add('time_bound_intent');
		for (const l of acting) contribute(l, 'time_bound_intent');
		for (const t of [...strong, ...weak]) result.usedTime.add(`${t.lang}:time`);
	}
	return result;
}

/** The rule screen alone: phrases, guards and the rubric above. `screen` adds the model's reading. */
export function screenRules(text: string): Assessment {
	return assessTokens(lexicon(), tokensOf(text));
}

function tokensOf(text: unknown): Token[] {
	return prepare(lexicon(), typeof text === 'string' ? text : String(text ?? ''));
}

function assessTokens(c: CompiledLexicon, tokens: Token[]): Assessment {
	if (tokens.length === 0) return { level: 'none', categories: [], thirdParty: false, language: [], evidence: [] };
	// Most messages hold no signal at all: then no marker can matter and the answer is none.
	const matches = findSignals(c, tokens);
	if (matches.length === 0) return { level: 'none', categories: [], thirdParty: false, language: [], evidence: [] };
	const markers = collectMarkers(findMarkers(c, tokens), tokens);

	const evidence = new Set<string>();
	const note = (item: string): void => {
		evidence.add(item);
	};
	const live: Live[] = [];
	const seen = new Set<number>();
	/** Readings counted so far: phrase, subject and (with times) sentence, with the guards that lowered it. */
	const readings = new Set<number>();
	const timed = markers.times.length > 0;
	for (const m of matches) {
		const spec = m.phrase.signal;
		if (!spec) continue;
		if (spec.bare && tokens.length > BARE_MAX_TOKENS) continue;
		if (spec.requires && !(markers.message & kindBit(spec.requires))) continue;
		// One reading per phrase and place: the same signal found from two start words counts once.
		const place = m.end * 65536 + m.phrase.serial;
		if (seen.has(place)) continue;
		seen.add(place);

		let tp = spec.tp === true;
		if (!tp && tokens[m.start]!.quoted && markers.message & kindBit('report')) tp = true; // she said "I want to die"
		// Another match of a phrase that already counted changes nothing (where it is only matters for times, so then per
		// sentence): skipping it keeps long repetitive messages fast. One that counted at full strength is skipped before
		// its guards are read; otherwise, after, when the same guards lowered it ("kms jk" said 600 times is one reading).
		const strength = (m.phrase.serial * 2 + (tp ? 1 : 0)) * (tokens.length + 1) + (timed ? tokens[m.start]!.sent + 1 : 0);
		if (readings.has(strength * MARKER_MASKS)) continue;
		const guards = guardsOf(spec);
		let dropped: string | null = null;
		let steps = 0;
		const downs: string[] = [];
		let downMask = 0;
		if (guards.neg || guards.other) {
			const who = subjectGuard(m, tokens, c, guards.other && !tp);
			if (who === 'neg' && guards.neg) dropped = 'negated';
			else if (who === 'other') dropped = 'other';
		}
		for (const guard of guards.markers) {
			if (dropped) break;
			if (!guardApplies(guard, m, tokens, markers)) continue;
			if (guard.effect === 'drop') dropped = guard.kind;
			else if (guard.dropWith && guardApplies(guard.dropWith, m, tokens, markers)) dropped = `${guard.kind}+${guard.dropWith.kind}`;
			else {
				steps++;
				downs.push(guard.kind);
				downMask |= guard.bit;
			}
		}
		if (dropped) {
			note(`${m.phrase.id}!${dropped}`);
			continue;
		}
		const reading = strength * MARKER_MASKS + downMask;
		if (readings.has(reading)) continue;
		readings.add(reading);
		const level = lower(spec.level, steps);
		note(downs.length > 0 ? `${m.phrase.id}~${downs.join('~')}` : m.phrase.id);
		live.push({ spec, lang: m.phrase.lang, level, rank: levelRank(level), sent: tokens[m.start]!.sent, tp });
	}

	const self = assessGroup(
		live.filter((l) => !l.tp),
		markers.times,
	);
	const other = assessGroup(
		live.filter((l) => l.tp),
		markers.times,
	);
	const tpLevel: CrisisLevel = other.level === 'imminent' ? 'imminent' : levelRank(other.level) >= 1 ? 'concern' : 'none';
	const thirdParty = tpLevel !== 'none';
	const help = live.filter((l) => !l.tp && l.spec.cat === 'help_seeking');
	for (const l of help) self.contributors.add(l);

	const categories = CATEGORIES.filter(
		(cat) => self.categories.has(cat) || (cat === 'third_party' && thirdParty) || (cat === 'help_seeking' && help.length > 0),
	);
	const languages = new Set<string>();
	for (const l of self.contributors) languages.add(l.lang);
	if (thirdParty) for (const l of other.contributors) languages.add(l.lang);
	for (const t of [...self.usedTime, ...(thirdParty ? other.usedTime : [])]) note(t);

	return {
		level: maxLevel(self.level, tpLevel),
		categories,
		thirdParty,
		language: [...languages].sort(),
		evidence: [...evidence],
	};
}

/**
 * The screen: the rules, then the model (model.ts) for what the rules did not find. The model may raise a message
 * the rules left at none to concern, or to high when its high head agrees; it never reaches imminent (that needs the
 * explicit plan, means or time the rules read). It lowers only a `concern` it is nearly sure is no crisis
 * (CONCERN_VETO), never `high` or `imminent`. Someone else in danger is raised the same way, marked third party (so
 * the reply is about helping them): to high only when the high head agrees.
 */
export function screen(text: string): Assessment {
	const { rules, words, features } = modelInput(text);
	if (tooFewWordsForModel(words)) return rules;
	const model = loadModel();
	return withModel(rules, scoreWords(model, words, features), model);
}

/** What the model reads of a text, exactly as `screen` builds it (also what it is trained on): one tokenisation. */
export function modelInput(text: string): { rules: Assessment; words: Word[]; features: number[] } {
	const tokens = tokensOf(text);
	const rules = assessTokens(lexicon(), tokens);
	return { rules, words: modelWords(tokens), features: ruleFeatures(rules) };
}

export function withModel(rules: Assessment, scores: Scores, model: Pick<CrisisModel, 'heads'>): Assessment {
	if (concernVetoed(rules.level, scores.risk)) {
		const help = rules.categories.filter((cat) => cat === 'help_seeking');
		return { ...rules, level: 'none', categories: help, thirdParty: false, evidence: [...rules.evidence, 'model:none'] };
	}
	if (scores.risk < model.heads.risk.threshold) return rules;
	const third = scores.third >= model.heads.third.threshold;
	const selfAtRisk = rules.level !== 'none' && rules.categories.some((cat) => cat !== 'third_party' && cat !== 'help_seeking');
	const level: CrisisLevel = scores.high >= model.heads.high.threshold ? 'high' : 'concern';
	if (levelRank(level) <= levelRank(rules.level)) return rules;
	if (third && !selfAtRisk) {
		return {
			...rules,
			level,
			thirdParty: true,
			categories: CATEGORIES.filter((cat) => cat === 'third_party' || rules.categories.includes(cat)),
			evidence: [...rules.evidence, `model:third_party:${level}`],
		};
	}
	const category: CrisisCategory = level === 'high' ? 'suicidal_ideation' : 'indirect_ideation';
	return {
		...rules,
		level,
		categories: CATEGORIES.filter((cat) => cat === category || rules.categories.includes(cat)),
		evidence: [...rules.evidence, `model:${level}`],
	};
}

export interface ModerationScores {
	selfHarm: number;
	selfHarmIntent: number;
	selfHarmInstructions: number;
}

/** Scores (0..1, as the moderation API reports them) at which an AI moderation result raises the level. */
export const MODERATION_THRESHOLDS = Object.freeze({
	high: { selfHarmIntent: 0.8, selfHarm: 0.9 },
	concern: { selfHarmIntent: 0.3, selfHarm: 0.4, selfHarmInstructions: 0.4 },
});

/**
 * Folds an AI moderation result into an assessment. It may raise the level (to concern or high, never to imminent:
 * that needs the explicit plan or time the screen itself found), never lower it; null (the call failed) changes nothing.
 * When the screen found only worry about someone else, the scores describe that person: the level stays at concern.
 */
export function mergeModeration(a: Assessment, m: ModerationScores | null): Assessment {
	if (!m) return a;
	const score = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
	const t = MODERATION_THRESHOLDS;
	let raised: CrisisLevel = 'none';
	if (score(m.selfHarmIntent) >= t.high.selfHarmIntent || score(m.selfHarm) >= t.high.selfHarm) raised = 'high';
	else if (
		score(m.selfHarmIntent) >= t.concern.selfHarmIntent ||
		score(m.selfHarm) >= t.concern.selfHarm ||
		score(m.selfHarmInstructions) >= t.concern.selfHarmInstructions
	) {
		raised = 'concern';
	}
	const onlyOthers = a.thirdParty && !a.categories.some((cat) => cat !== 'third_party' && cat !== 'help_seeking');
	if (onlyOthers && levelRank(raised) > levelRank('concern')) raised = 'concern';
	if (levelRank(raised) <= levelRank(a.level)) return a;
	return { ...a, level: raised, evidence: [...a.evidence, `moderation:${raised}`] };
}
