/**
 * The vetted hotline directory (resources.json) and the deterministic crisis replies built from it. Every phone number
 * in a reply comes from the data file; the templates here hold none.
 */
import data from './resources.json' with { type: 'json' };
import { CATEGORIES, levelRank, type Assessment, type CrisisCategory } from './types.ts';

export interface CrisisService {
	name: string;
	/** Numbers to call, the first one preferred. */
	phone?: string[];
	/** SMS (or `via` another messenger): send `keyword` (if any) to `to`. */
	text?: { to: string; keyword?: string; via?: string };
	chat?: string;
	hours: string;
	url: string;
	/** The service's own site, where its details were checked. */
	source: string;
	/** ISO date of that check. */
	lastVerified: string;
	/** Who it is for, when not everyone ("under 19s"). */
	audience?: string;
	languages?: string[];
	note?: string;
}

export interface CountryResources {
	/** ISO 3166-1 alpha-2, or INTL for the international fallback. */
	code: string;
	name: string;
	/** Emergency numbers, the first one preferred; empty for INTL. */
	emergency: string[];
	/** Said instead of a number when there is none (INTL). */
	emergencyNote?: string;
	services: CrisisService[];
}

interface ResourceFile {
	lastReviewed: string;
	aliases: Record<string, string>;
	countries: Record<string, Omit<CountryResources, 'code'>>;
}

export const INTERNATIONAL = 'INTL';
export const MAX_REPLY_LENGTH = 1900;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Problems in a resource file (empty when it is sound); the module refuses to load a file with any. */
export function validateResources(file: unknown): string[] {
	const problems: string[] = [];
	const f = file as Partial<ResourceFile> | null;
	if (!f || typeof f !== 'object' || !f.countries || typeof f.countries !== 'object') return ['no "countries" object'];
	if (!f.countries[INTERNATIONAL]) problems.push('no INTL fallback entry');
	for (const [code, entry] of Object.entries(f.countries)) {
		const at = `countries.${code}`;
		if (code !== INTERNATIONAL && !/^[A-Z]{2}$/.test(code)) problems.push(`${at}: not an ISO 3166-1 alpha-2 code`);
		if (!entry || typeof entry.name !== 'string' || !entry.name) problems.push(`${at}: no name`);
		if (!Array.isArray(entry?.emergency) || (code !== INTERNATIONAL && entry.emergency.length === 0)) problems.push(`${at}: no emergency number`);
		if (code === INTERNATIONAL && !entry?.emergencyNote) problems.push(`${at}: no emergencyNote`);
		if (!Array.isArray(entry?.services) || entry.services.length === 0) {
			problems.push(`${at}: no services`);
			continue;
		}
		entry.services.forEach((s, i) => {
			const where = `${at}.services[${i}] (${s?.name ?? '?'})`;
			if (!s?.name) problems.push(`${where}: no name`);
			if (!s?.hours) problems.push(`${where}: no hours`);
			for (const key of ['url', 'source'] as const) {
				if (typeof s?.[key] !== 'string' || !/^https?:\/\//.test(s[key])) problems.push(`${where}: ${key} must be a URL`);
			}
			if (typeof s?.lastVerified !== 'string' || !ISO_DATE.test(s.lastVerified) || Number.isNaN(Date.parse(s.lastVerified))) {
				problems.push(`${where}: lastVerified must be an ISO date`);
			}
			if (code !== INTERNATIONAL && !s?.phone?.length && !s?.text && !s?.chat) problems.push(`${where}: no phone, text or chat`);
		});
	}
	for (const [alias, target] of Object.entries(f.aliases ?? {})) {
		if (!f.countries[target]) problems.push(`aliases.${alias}: unknown country ${target}`);
	}
	return problems;
}

const FILE = data as unknown as ResourceFile;
const problems = validateResources(FILE);
if (problems.length > 0) throw new Error(`crisis resources.json is invalid:\n  ${problems.join('\n  ')}`);

/** The canonical code for a country code or alias ("uk" -> "GB"), or null when the directory has no entry. */
export function normalizeCountry(code?: string | null): string | null {
	if (typeof code !== 'string') return null;
	const upper = code.trim().toUpperCase();
	const canonical = FILE.aliases[upper] ?? upper;
	return Object.hasOwn(FILE.countries, canonical) ? canonical : null;
}

export function isSupportedCountry(code: string): boolean {
	return normalizeCountry(code) !== null;
}

/** The resources for a country; unknown or absent countries get the international directory. */
export function resourcesFor(country?: string | null): CountryResources {
	const code = normalizeCountry(country) ?? INTERNATIONAL;
	return { code, ...FILE.countries[code]! };
}

/** Every supported country by name, the international entry last. */
export function listCountries(): { code: string; name: string }[] {
	return Object.entries(FILE.countries)
		.filter(([code]) => code !== INTERNATIONAL)
		.map(([code, entry]) => ({ code, name: entry.name }))
		.sort((a, b) => a.name.localeCompare(b.name, 'en'))
		.concat({ code: INTERNATIONAL, name: FILE.countries[INTERNATIONAL]!.name });
}

/** The countries as the choices of a slash-command option (value: the code), the worldwide directory last. */
export function countryChoices(): { name: string; value: string }[] {
	return listCountries().map(({ code, name }) => ({ name: code === INTERNATIONAL ? 'Worldwide directory' : name, value: code }));
}

export function resourcesLastReviewed(): string {
	return FILE.lastReviewed;
}

function where(r: CountryResources): string {
	return r.code === INTERNATIONAL ? 'worldwide' : `in ${r.name}`;
}

function orList(items: string[]): string {
	return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

function emergencyWords(r: CountryResources, bold = true): string {
	if (r.emergency.length === 0) return r.emergencyNote ?? 'your local emergency number';
	return bold ? `**${orList(r.emergency)}**` : orList(r.emergency);
}

function serviceLine(s: CrisisService): string {
	const ways: string[] = [];
	const phones = s.phone?.map((p) => `**${p}**`) ?? [];
	if (s.text && !s.text.keyword && !s.text.via && s.phone?.[0] === s.text.to) {
		ways.push(`call or text ${phones[0]}`);
		if (phones.length > 1) ways.push(`or call ${orList(phones.slice(1))}`);
	} else {
		if (phones.length) ways.push(`call ${orList(phones)}`);
		if (s.text?.via) ways.push(`${s.text.via} **${s.text.to}**`);
		else if (s.text?.keyword) ways.push(`text **${s.text.keyword}** to **${s.text.to}**`);
		else if (s.text) ways.push(`text **${s.text.to}**`);
	}
	const who = s.audience ? ` (${s.audience})` : '';
	const extra = [s.note, s.hours].filter(Boolean).join(', ');
	const how = ways.length ? `: ${ways.join(', ')}` : '';
	const link = s.chat && s.chat !== s.url ? `<${s.url}> · chat: <${s.chat}>` : `<${s.url}>`;
	return `- **${s.name}**${who}${how}${extra ? ` (${extra})` : ''} · ${link}`;
}

function footer(r: CountryResources): string {
	return r.code === INTERNATIONAL
		? 'Tell me your country with `/crisis` and I can show its helplines.'
		: 'In another country? `/crisis` can show its helplines, or find one at <https://findahelpline.com>.';
}

/** Joins the parts, dropping services from the end (then the footer) until the message fits Discord's limit. */
function assemble(head: string[], r: CountryResources, tail: string[]): string {
	let services = r.services.map(serviceLine);
	let foot = [footer(r)];
	const build = (): string =>
		[...head, ...services, '', ...tail, ...foot]
			.filter((line, i, all) => !(line === '' && all[i - 1] === ''))
			.join('\n')
			.trim();
	let text = build();
	while (text.length > MAX_REPLY_LENGTH && services.length > 1) {
		services = services.slice(0, -1);
		text = build();
	}
	if (text.length > MAX_REPLY_LENGTH) {
		foot = [];
		text = build();
	}
	return text.length > MAX_REPLY_LENGTH ? text.slice(0, MAX_REPLY_LENGTH - 1) + '…' : text;
}

const SELF_CATEGORIES: ReadonlySet<CrisisCategory> = new Set(CATEGORIES.filter((category) => category !== 'third_party'));

/**
 * The private reply to a message that screened as a possible crisis: warm, short, deterministic Discord markdown with
 * the country's resources. Imminent risk says plainly to contact emergency services now; worry about someone else gets
 * guidance on how to help them. At most MAX_REPLY_LENGTH characters.
 */
export function renderCrisisReply(assessment: Assessment, country?: string | null, opts: { audience?: 'self' | 'third_party' } = {}): string {
	const r = resourcesFor(country);
	const forSelf = assessment.categories.some((c) => SELF_CATEGORIES.has(c));
	const audience = opts.audience ?? (assessment.thirdParty && !forSelf ? 'third_party' : 'self');
	const imminent = assessment.level === 'imminent';
	const emergency = emergencyWords(r);
	const emergencyInBold = emergencyWords(r, false);
	const head: string[] = [];
	const tail: string[] = [];

	if (audience === 'third_party') {
		if (imminent) {
			head.push(
				`**If they are in immediate danger, call ${emergencyInBold} now** and stay with them if it is safe to. Don't leave them alone with anything they could use to hurt themselves.`,
				'',
			);
		}
		head.push(
			'Thank you for looking out for them. That matters. Some things that help:',
			'- Ask them directly if they are thinking about suicide. Asking does not put the idea in their head.',
			'- Listen without judging or trying to fix everything, and tell them you care.',
			'- Help them reach one of these services, or a doctor. Offer to sit with them while they call.',
			"- Don't promise to keep it secret if their life is in danger.",
			'',
			`**Crisis lines ${where(r)}**, which also support people worried about someone:`,
		);
		tail.push('Supporting someone is heavy. Please look after yourself too; you can call these lines for yourself as well.');
		return assemble(head, r, tail);
	}

	if (imminent) {
		head.push(
			`**If you might act on these thoughts soon, please call ${emergencyInBold} now** or go to the nearest emergency department. If you can, tell someone near you and move away from anything you could use to hurt yourself.`,
			'',
			`You can also talk to someone right now ${where(r)}:`,
		);
	} else if (levelRank(assessment.level) >= levelRank('high')) {
		head.push(
			"I'm really glad you told me. What you're going through sounds incredibly painful, and you deserve support right now.",
			'',
			`Please reach out to one of these confidential lines ${where(r)}. They are there to listen:`,
		);
	} else if (assessment.level === 'concern') {
		// Concern is the level a sensitive screen reaches on passive wishes and vaguer words, sometimes wrongly: the
		// reply acknowledges, asks instead of assuming, and offers the lines without alarm.
		head.push(
			"It sounds like things are really heavy right now, and you don't have to carry that alone.",
			"Can I ask: are you having thoughts of not wanting to be here, or of hurting yourself? If I've read you wrong, that's okay. You can tell me more either way.",
			'',
			`If those thoughts are there, these people ${where(r)} are there to listen:`,
		);
	} else {
		head.push(`If you ever need someone to talk to, these confidential services ${where(r)} are there to listen:`);
	}
	if (!imminent && levelRank(assessment.level) >= levelRank('concern')) tail.push(`In an emergency, call ${emergency}.`);
	tail.push("You matter, and you don't have to go through this alone.");
	return assemble(head, r, tail);
}

/** `/crisis` without a message: the country's resources and emergency number. */
export function renderResourcesOnly(country?: string | null): string {
	const r = resourcesFor(country);
	return assemble([`**Crisis support ${where(r)}**: confidential, and most lines are free.`], r, [`In an emergency, call ${emergencyWords(r)}.`]);
}
