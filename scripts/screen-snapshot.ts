/**
 * Records or checks the full `screen()` result of every corpus message, every adversarial input and each adversarial
 * input with a crisis appended: a change to the engine or the normaliser that should not change behaviour must leave
 * this snapshot identical.
 *   node scripts/screen-snapshot.ts write <file.json>
 *   node scripts/screen-snapshot.ts check <file.json>    (exits 1 on any difference)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadCorpus } from '../src/lib/crisis/eval.ts';
import { screen } from '../src/lib/crisis/screen.ts';
import { ADVERSARIAL } from '../test/crisis/adversarial.ts';

const [mode, file] = process.argv.slice(2);
if ((mode !== 'write' && mode !== 'check') || !file) {
	console.error('usage: node scripts/screen-snapshot.ts write|check <file.json>');
	process.exit(2);
}

const inputs: [string, string][] = [
	...loadCorpus().map((e, i): [string, string] => [`corpus ${i + 1}`, e.text]),
	...Object.entries(ADVERSARIAL).map(([name, text]): [string, string] => [`adversarial ${name}`, text]),
	...Object.entries(ADVERSARIAL).map(([name, text]): [string, string] => [
		`adversarial ${name} + crisis`,
		`${text}\nI am going to kill myself tonight`,
	]),
];
const results: Record<string, unknown> = {};
for (const [name, text] of inputs) results[name] = screen(text);

if (mode === 'write') {
	writeFileSync(file, `${JSON.stringify(results, null, '\t')}\n`);
	console.log(`${inputs.length} results written to ${file}`);
} else {
	const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
	const names = new Set([...Object.keys(expected), ...Object.keys(results)]);
	let differences = 0;
	for (const name of names) {
		const before = JSON.stringify(expected[name]);
		const after = JSON.stringify(results[name]);
		if (before === after) continue;
		differences++;
		if (differences <= 20) console.log(`${name}:\n  before ${before}\n  after  ${after}`);
	}
	console.log(`${names.size} results compared, ${differences} differences`);
	process.exitCode = differences === 0 ? 0 : 1;
}
