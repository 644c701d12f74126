import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeText, skeleton, tokenize } from '../../src/lib/crisis/normalize.ts';
import { screen } from '../../src/lib/crisis/screen.ts';

const words = (text: string): string[] => tokenize(text).map((t) => t.word);

describe('normalizeText', () => {
	test('removes zero-width and bidi characters and soft hyphens', () => {
		assert.equal(normalizeText('ki\u200bll my\u200dse\u00adlf\u2060\ufeff\u202e'), 'kill myself');
	});
	test('folds Cyrillic and Greek homoglyphs, small capitals and fullwidth letters', () => {
		assert.equal(normalizeText('і wаnt tо kіll mysеlf'), 'i want to kill myself'); // Cyrillic і а о е
		assert.equal(normalizeText('Ι ωant'), 'i want'); // Greek capital iota, omega
		assert.equal(normalizeText('ᴡᴀɴᴛ ᴛᴏ ᴅɪᴇ'), 'want to die');
		assert.equal(normalizeText('ｋｉｌｌ　ｍｅ'), 'kill me');
		assert.equal(normalizeText('𝐝𝐢𝐞 ⓓⓘⓔ'), 'die die');
	});
	test('strips diacritics and zalgo, keeps letters of other scripts', () => {
		assert.equal(normalizeText('dïé suicídio möchte'), 'die suicidio mochte');
		assert.equal(normalizeText('d\u0301\u0302\u0303i\u0305e\u0307'), 'die');
		assert.equal(normalizeText('Straße'), 'strasse');
		assert.equal(normalizeText('死にたい'), '死にたい');
	});
	test('unifies typographic quotes and apostrophes', () => {
		assert.equal(normalizeText('I’m “fine”'), 'i\'m "fine"');
	});
});

describe('skeleton', () => {
	test('collapses repeated letters', () => {
		assert.equal(skeleton('sooo'), 'so');
		assert.equal(skeleton('kiiiill'), 'kil');
		assert.equal(skeleton('die'), 'die');
		assert.equal(skeleton('kkkkk'), 'kkk'); // laughter keeps its shape
	});
});

describe('tokenize', () => {
	test('decodes leetspeak inside words only', () => {
		assert.deepEqual(words('k1ll my$elf su!cide w@nt 3nd'), ['kill', 'myself', 'suicide', 'want', 'end']);
		assert.deepEqual(words('die!!! now $50 @mike'), ['die', 'now', '50', 'mike']);
		const t = tokenize('a1one')[0]!;
		assert.ok(t.forms.includes('alone'), '1 may read as l');
	});
	test('keeps masked letters for the lexicon', () => {
		assert.deepEqual(words('s*icide k**l *hugs*'), ['s*icide', 'k**l', 'hugs']);
	});
	test('joins spaced and dotted letters', () => {
		assert.deepEqual(words('s.u.i.c.i.d.e'), ['suicide']);
		assert.deepEqual(words('k-m-s'), ['kms']);
		assert.deepEqual(words('self-harm'), ['self', 'harm']);
		assert.ok(screen('k i l l  m y s e l f').level === 'high');
	});
	test('joins apostrophes', () => {
		assert.deepEqual(words("don't I'm j'ai"), ['dont', 'im', 'jai']);
	});
	test('maps meaningful emoji to words', () => {
		assert.deepEqual(words('i want to 🔪 myself 💀😂'), ['i', 'want', 'to', 'knife', 'myself', 'skull', 'lol']);
	});
	test('numbers sentences and clauses', () => {
		const t = tokenize('I used to cut, now I am fine. Tonight\nis ok but');
		const at = (w: string) => t.find((x) => x.word === w)!;
		assert.equal(at('used').sent, 0);
		assert.equal(at('tonight').sent, 1);
		assert.equal(at('is').sent, 2);
		assert.notEqual(at('cut').clause, at('fine').clause);
		assert.notEqual(at('ok').clause, at('but').clause);
	});
	test('marks text inside balanced quotes only', () => {
		assert.deepEqual(
			tokenize('she said "i want out" ok').map((t) => t.quoted),
			[false, false, true, true, true, false],
		);
		assert.ok(tokenize('a "stray quote').every((t) => !t.quoted));
	});
	test('is robust to zero-width characters inside phrases', () => {
		assert.equal(screen('i want to d\u200bi\u200be').level, 'high');
		assert.equal(screen('k\u200di\u200dl\u200dl myself').level, 'high');
	});
});
