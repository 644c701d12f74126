import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { isSupportedCountry, renderCrisisReply } from '../../lib/crisis/resources.ts';
import { screen } from '../../lib/crisis/screen.ts';
import { examples } from '../output.ts';

export interface ScreenOptions {
	reply?: boolean;
	country?: string;
}

/** One JSON line for a text: the assessment, never the text itself (it may be someone's crisis). */
export function screenLine(text: string, options: ScreenOptions = {}): string {
	const a = screen(text);
	const out: Record<string, unknown> = {
		level: a.level,
		categories: a.categories,
		thirdParty: a.thirdParty,
		language: a.language,
		evidence: a.evidence,
	};
	if (options.reply) out.reply = renderCrisisReply(a, options.country);
	return JSON.stringify(out);
}

export default function register(program: Command): void {
	const command = program
		.command('screen')
		.description('screen text for crisis signals offline (no database or configuration): one JSON line per text, without the text')
		.argument('[text...]', 'the text to screen; without it, every line of standard input is screened')
		.option('--reply', 'add the crisis reply the bot would send')
		.option('--country <code>', 'country of the resources in --reply (ISO 3166-1 alpha-2; default international)')
		.action(async (words: string[], options: ScreenOptions) => {
			if (options.country && !isSupportedCountry(options.country)) {
				console.error(`haven screen: no resources for country "${options.country}", using the international directory`);
			}
			if (words.length > 0) {
				process.stdout.write(`${screenLine(words.join(' '), options)}\n`);
				return;
			}
			if (process.stdin.isTTY) console.error('Screening each line of standard input (end with Ctrl-D).');
			for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
				process.stdout.write(`${screenLine(line, options)}\n`);
			}
		});
	examples(command, [
		'haven screen "I can\'t do this anymore"',
		'haven screen --reply --country GB "..."',
		'haven screen < messages.txt | jq -r .level',
	]);
}
