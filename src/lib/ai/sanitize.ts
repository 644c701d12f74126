/** What replaces a phone number or hotline the model wrote; Haven sends vetted numbers itself. */
export const NUMBER_PLACEHOLDER = 'a local helpline';

// Vanity toll-free numbers such as 1-800-273-TALK or 1-800-SUICIDE (run first: letters would split them).
const VANITY = /\b1[ .-]?8(?:00|33|44|55|66|77|88)[ .-]?[A-Z0-9]{3}[ .-]?[A-Z0-9]{3,4}\b/g;
// Digit runs with phone separators; the replacer decides whether the run is long enough to be a phone number.
const DIGIT_RUN = /(?<![\w+])\+?\(?\d[\d \t().-]{4,}\d(?!\w)/g;
// Crisis short codes that are too short for DIGIT_RUN: 988 / 9-8-8, 911, 999, 112, 116 xxx, text lines, AU/NZ lines.
const SHORT_CODES = /(?<![\w+.-])(?:9[ .-]?8[ .-]?8|911|999|112|116[ .-]?(?:123|111|006|117)|741741|85258|686868|13[ .-]?11[ .-]?14|1737)(?![\w-])/g;
// Any remaining number of 3+ digits shortly after a word like "call" or "text".
const CONTEXT_NUMBER = /\b(call|text|dial|ring|phone|sms|whatsapp|hotline|helpline|lifeline|number)\b([^\d\n]{0,24}?)\+?\d(?:[ .-]?\d){2,}/gi;

const MENTIONS: Array<[RegExp, string]> = [
	[/@(everyone|here)\b/gi, '$1'],
	[/<@!?\d+>/g, 'someone'],
	[/<@&\d+>/g, 'a role'],
	[/<#\d+>/g, 'a channel'],
];

function replaceDigitRun(match: string): string {
	const digits = match.replace(/\D/g, '').length;
	const trimmed = match.trim();
	// ISO dates and year ranges are long digit runs too.
	if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed) || /^\d{4} ?- ?\d{4}$/.test(trimmed)) return match;
	return digits >= 7 || (trimmed.startsWith('+') && digits >= 6) ? NUMBER_PLACEHOLDER : match;
}

export function stripPhoneNumbers(text: string): string {
	return text
		.replace(VANITY, NUMBER_PLACEHOLDER)
		.replace(DIGIT_RUN, replaceDigitRun)
		.replace(SHORT_CODES, NUMBER_PLACEHOLDER)
		.replace(CONTEXT_NUMBER, (_m, word: string, gap: string) => `${word}${gap}${NUMBER_PLACEHOLDER}`);
}

export function stripMentions(text: string): string {
	return MENTIONS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

/** Cuts to at most maxLength characters at a sentence (else word) boundary and marks the cut with an ellipsis. */
export function truncate(text: string, maxLength: number): string {
	if (text.length <= maxLength) return text;
	if (maxLength <= 1) return '…'.slice(0, Math.max(0, maxLength));
	let head = text.slice(0, maxLength - 1);
	if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1); // never split a surrogate pair (emoji)
	const floor = Math.floor(head.length / 2);
	let cut = -1;
	for (const m of head.matchAll(/[.!?](?=\s)|\n/g)) if (m.index >= floor) cut = m.index + 1;
	if (cut < 0) {
		const space = head.search(/\s\S*$/);
		if (space >= floor) cut = space;
	}
	const kept = cut < 0 ? head : head.slice(0, cut);
	return kept.replace(/[\s.,;:-]+$/, '') + '…';
}

/**
 * Makes model output safe to post: no phone or hotline numbers, no mention syntax,
 * tidy whitespace, and at most maxLength characters (Discord allows 2000).
 */
export function sanitizeReply(text: string, maxLength = 1900): string {
	// Mentions first: their snowflake ids would otherwise look like phone numbers.
	const cleaned = stripPhoneNumbers(stripMentions(text))
		.replace(/\r\n?/g, '\n')
		.replace(/[ \t]+\n/g, '\n')
		.replace(/\n{3,}/g, '\n\n')
		.trim();
	return truncate(cleaned, maxLength);
}
