/** Adversarial 4,000-character inputs, shared by adversarial.test.ts and bench/screen.ts. */
const SIZE = 4000;

function fill(unit: string): string {
	return unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
}

function randomWords(seed: number): string {
	let state = seed;
	const next = (): number => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
	let text = '';
	while (text.length < SIZE) {
		const length = 3 + Math.floor(next() * 10);
		for (let i = 0; i < length; i++) text += String.fromCharCode(97 + Math.floor(next() * 26));
		text += ' ';
	}
	return text.slice(0, SIZE);
}

export const ADVERSARIAL: Record<string, string> = {
	'one letter repeated': 'a'.repeat(SIZE),
	'one symbol repeated': '*'.repeat(SIZE),
	'exclamation marks': '!'.repeat(SIZE),
	'common word': fill('i '),
	'phrase prefixes': fill('i want to want to '),
	'full phrases': fill('i want to die '),
	'phrases with sentences': fill('I want to die. '),
	'third-party gaps': fill('my friend says she said he told me '),
	'spaced letters': fill('k i l l m y s e l f '),
	'dotted letters': fill('s.u.i.c.i.d.e.'),
	masks: fill('s*i*c*i*d*e '),
	typos: fill('suicdie myslef suicidle wnat '),
	'random words': randomWords(7),
	leetspeak: fill('k1ll m3 n0w 4ll '),
	homoglyphs: fill('і wаnt tо kіll mysеlf '),
	'zero-width': fill('k\u200bi\u200bl\u200bl '),
	zalgo: fill('d\u0301\u0302\u0303i\u0305e\u0307 '),
	emoji: fill('💀😂🔪 '),
	quotes: fill('"i want to die" '),
	negations: fill('not '),
	'no spaces': fill('iwanttodie'),
	punctuation: fill('.,!?;:-'),
	'six languages': fill('quiero morir je veux mourir ich will sterben quero morrer voglio morire '),
	numbers: fill('took 40 pills 2019 '),
	'means and times': fill('i have the rope and will use it. tonight. '),
	'long intent run-on': fill('i have the pills and im gonna take them all and '),
	// Hundreds of readings of one phrase, each lowered by a guard (a joke marker): once took 1.1 ms, one evaluation each.
	'phrase and joke repeated': fill('kms jk '),
	'phrase and idiom repeated': fill('kill myself lol '),
};
