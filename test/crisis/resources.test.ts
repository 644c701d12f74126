import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
	INTERNATIONAL,
	isSupportedCountry,
	listCountries,
	MAX_REPLY_LENGTH,
	normalizeCountry,
	renderCrisisReply,
	renderResourcesOnly,
	resourcesFor,
	validateResources,
} from '../../src/lib/crisis/resources.ts';
import { screen, type Assessment, type CrisisLevel } from '../../src/lib/crisis/screen.ts';

const file = JSON.parse(readFileSync(new URL('../../src/lib/crisis/resources.json', import.meta.url), 'utf8'));
const REQUIRED = ['US', 'CA', 'GB', 'IE', 'AU', 'NZ', 'IN', 'DE', 'FR', 'ES', 'IT', 'NL', 'BR', 'MX', 'JP', INTERNATIONAL];
const assessment = (level: CrisisLevel, extra: Partial<Assessment> = {}): Assessment => ({
	level,
	categories: level === 'none' ? [] : ['suicidal_ideation'],
	thirdParty: false,
	language: ['en'],
	evidence: [],
	...extra,
});

describe('the hotline directory', () => {
	test('is valid: every service has a source URL and an ISO lastVerified date', () => {
		assert.deepEqual(validateResources(file), []);
		for (const code of Object.keys(file.countries)) {
			for (const s of file.countries[code].services) {
				assert.match(s.source, /^https?:\/\//, `${code} ${s.name}`);
				assert.match(s.lastVerified, /^\d{4}-\d{2}-\d{2}$/, `${code} ${s.name}`);
			}
		}
	});

	test('fails validation when an entry lacks its source or lastVerified date', () => {
		const broken = structuredClone(file);
		delete broken.countries.US.services[0].source;
		delete broken.countries.GB.services[0].lastVerified;
		const problems = validateResources(broken);
		assert.ok(problems.some((p) => p.startsWith('countries.US.services[0]') && p.includes('source')));
		assert.ok(problems.some((p) => p.startsWith('countries.GB.services[0]') && p.includes('lastVerified')));
		const noFallback = structuredClone(file);
		delete noFallback.countries.INTL;
		assert.ok(validateResources(noFallback).includes('no INTL fallback entry'));
	});

	test('covers the required countries, each with an emergency number', () => {
		for (const code of REQUIRED) {
			assert.ok(isSupportedCountry(code), code);
			const r = resourcesFor(code);
			assert.ok(r.services.length > 0, code);
			if (code !== INTERNATIONAL) assert.ok(r.emergency.length > 0, code);
		}
	});

	test('lists the current national numbers first', () => {
		const primary = (code: string): string => resourcesFor(code).services[0]!.phone?.[0] ?? '';
		assert.equal(primary('US'), '988');
		assert.deepEqual(resourcesFor('US').services[0]!.text, { to: '988' });
		assert.equal(primary('CA'), '988');
		assert.equal(primary('GB'), '116 123');
		assert.equal(primary('IE'), '116 123');
		assert.equal(primary('AU'), '13 11 14');
		assert.equal(primary('NZ'), '1737');
		assert.equal(primary('FR'), '3114');
		assert.equal(primary('ES'), '024');
		assert.equal(primary('BR'), '188');
		assert.equal(primary('NL'), '113');
		assert.equal(primary('IN'), '14416');
		assert.equal(primary('DE'), '0800 111 0 111');
		assert.equal(primary('MX'), '800 911 2000');
		assert.deepEqual(resourcesFor('US').emergency, ['911']);
		assert.deepEqual(resourcesFor('GB').emergency, ['999', '112']);
		assert.deepEqual(resourcesFor('AU').emergency, ['000']);
		assert.deepEqual(resourcesFor('NZ').emergency, ['111']);
		assert.match(resourcesFor(null).services[0]!.url, /findahelpline\.com/);
	});

	test('never lists a retired number', () => {
		const text = JSON.stringify(file);
		for (const retired of ['1-800-273-8255', '1-800-273-TALK', '1-833-456-4566', '0800 58 58 58']) assert.ok(!text.includes(retired), retired);
	});

	test('resolves codes case-insensitively, with aliases, and falls back to INTL', () => {
		assert.equal(normalizeCountry(' us '), 'US');
		assert.equal(normalizeCountry('uk'), 'GB');
		assert.equal(normalizeCountry('ZZ'), null);
		assert.equal(resourcesFor('zz').code, INTERNATIONAL);
		assert.equal(resourcesFor(undefined).code, INTERNATIONAL);
		assert.equal(isSupportedCountry('toString'), false);
		const list = listCountries();
		assert.equal(list.at(-1)!.code, INTERNATIONAL);
		assert.equal(new Set(list.map((c) => c.code)).size, list.length);
		assert.ok(list.length >= REQUIRED.length);
	});
});

describe('renderCrisisReply', () => {
	test('gives each country its own numbers', () => {
		const reply = (code: string) => renderCrisisReply(assessment('high'), code);
		assert.match(reply('US'), /\*\*988\*\*/);
		assert.match(reply('CA'), /988\.ca/);
		assert.match(reply('GB'), /116 123/);
		assert.match(reply('GB'), /SHOUT\*\* to \*\*85258/);
		assert.match(reply('AU'), /13 11 14/);
		assert.match(reply('FR'), /3114/);
		assert.match(reply('JP'), /0120-279-338/);
		assert.doesNotMatch(reply('GB'), /988/);
		assert.match(reply('zz'), /findahelpline\.com/);
	});

	test('says plainly to contact emergency services now when imminent', () => {
		const us = renderCrisisReply(screen("I'm going to kill myself tonight"), 'US');
		assert.match(us, /^\*\*If you might act on these thoughts soon, please call 911 now\*\*/);
		assert.match(renderCrisisReply(assessment('imminent'), 'GB'), /call 999 or 112 now/);
		assert.match(renderCrisisReply(assessment('imminent'), 'AU'), /call 000 now/);
		assert.match(renderCrisisReply(assessment('imminent'), null), /local emergency number/);
		assert.doesNotMatch(renderCrisisReply(assessment('high'), 'US'), /now\*\*/);
	});

	test('guides someone worried about another person', () => {
		const a = screen('my friend says she wants to kill herself');
		const text = renderCrisisReply(a, 'US');
		assert.match(text, /Ask them directly/);
		assert.match(text, /\*\*988\*\*/);
		const urgent = renderCrisisReply(screen('my friend just told me she took a whole bottle of pills'), 'US');
		assert.match(urgent, /If they are in immediate danger, call 911 now/);
		assert.match(renderCrisisReply(assessment('concern'), 'US', { audience: 'third_party' }), /Ask them directly/);
		const gentle = renderCrisisReply(assessment('concern'), 'US');
		assert.match(gentle, /Can I ask: are you having thoughts/, 'concern asks instead of assuming');
		assert.match(gentle, /If I've read you wrong, that's okay/);
		assert.match(gentle, /988/, 'and still offers the lines');
		assert.doesNotMatch(gentle, /call 911 now/i, 'without the emergency wording of imminent');
		assert.doesNotMatch(renderCrisisReply(screen('my friend wants to die and I want to die too'), 'US'), /Ask them directly/);
	});

	test('stays within the Discord limit for every country, level and audience, and is deterministic', () => {
		for (const { code } of listCountries()) {
			for (const level of ['none', 'concern', 'high', 'imminent'] as const) {
				for (const audience of ['self', 'third_party'] as const) {
					const text = renderCrisisReply(assessment(level), code, { audience });
					assert.ok(text.length <= MAX_REPLY_LENGTH, `${code} ${level} ${audience}: ${text.length}`);
					assert.equal(text, renderCrisisReply(assessment(level), code, { audience }));
				}
			}
			assert.ok(renderResourcesOnly(code).length <= MAX_REPLY_LENGTH);
		}
	});

	test('takes every number from the data file', () => {
		for (const { code } of listCountries()) {
			const r = resourcesFor(code);
			const allowed = [
				...r.emergency,
				...r.services.flatMap((s) => [
					s.name,
					...(s.phone ?? []),
					s.text?.to ?? '',
					s.hours,
					s.note ?? '',
					s.audience ?? '',
					s.url,
					s.chat ?? '',
				]),
				r.emergencyNote ?? '',
			];
			for (const text of [renderCrisisReply(assessment('imminent'), code), renderResourcesOnly(code)]) {
				let rest = text;
				for (const piece of allowed.filter(Boolean).sort((a, b) => b.length - a.length)) rest = rest.split(piece).join('');
				assert.doesNotMatch(rest, /\d/, `${code}: a digit outside the data: ${rest}`);
			}
		}
	});

	test('renders resources for /crisis without a message', () => {
		const text = renderResourcesOnly('NZ');
		assert.match(text, /1737/);
		assert.match(text, /In an emergency, call \*\*111\*\*/);
	});
});
