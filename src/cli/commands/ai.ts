import { InvalidArgumentError, type Command } from 'commander';
import { changeAiState, isValidModel, readAiState, type AiState } from '../../lib/operations/ai-switch.ts';
import { withDatabase } from '../context.ts';
import { examples } from '../output.ts';

/**
 * `haven ai status|on|off|model [name]`: the owners' AI switch without Discord. A running Haven reads it again within
 * its cache time (5 s), no restart needed.
 */

function describe(state: AiState, model: string, keySet: boolean): string {
	const lines = [
		`AI: ${state.enabled ? 'on' : 'off (fixed replies only)'}${keySet ? '' : ' (but OPENAI_API_KEY is not set here)'}`,
		`Model: ${state.model ?? `${model} (OPENAI_MODEL)`}`,
	];
	if (state.updatedAt) lines.push(`Changed: ${state.updatedAt}${state.updatedBy ? ` by ${state.updatedBy}` : ' from the command line'}`);
	return lines.join('\n');
}

const modelName = (value: string) => {
	if (!isValidModel(value)) throw new InvalidArgumentError('must be 1 to 100 letters, digits and . _ - : / characters');
	return value;
};

export default function register(program: Command): void {
	const ai = program.command('ai').description('turn AI features on or off, or change the chat model, while Haven runs');
	examples(ai, ['haven ai status', 'haven ai off              # fixed replies only, at once', 'haven ai model gpt-4.1-mini']);
	const show = (json: boolean | undefined, state: AiState, model: string, keySet: boolean) =>
		console.log(json ? JSON.stringify(state, null, 2) : describe(state, model, keySet));

	examples(ai.command('status'), ['haven ai status --json'])
		.description('whether AI is on, and the model')
		.option('--json', 'print JSON')
		.action(async (options: { json?: boolean }) => {
			await withDatabase(async (db, config) =>
				show(options.json, await readAiState(db.orm.em.fork()), config.openai.model, Boolean(config.openai.apiKey)),
			);
		});

	for (const [name, enabled] of [
		['on', true],
		['off', false],
	] as const) {
		examples(ai.command(name), [`haven ai ${name}`])
			.description(enabled ? 'turn AI features on' : 'turn AI features off: fixed replies, POST /v1/chat answers 503')
			.option('--json', 'print JSON')
			.action(async (options: { json?: boolean }) => {
				await withDatabase(async (db, config) =>
					show(
						options.json,
						await changeAiState(db.orm.em.fork(), { enabled, by: null }),
						config.openai.model,
						Boolean(config.openai.apiKey),
					),
				);
			});
	}

	examples(ai.command('model'), ['haven ai model gpt-4.1', 'haven ai model              # back to OPENAI_MODEL'])
		.description('use this chat model instead of OPENAI_MODEL; without a name, back to OPENAI_MODEL')
		.argument('[name]', 'model name', modelName)
		.option('--json', 'print JSON')
		.action(async (name: string | undefined, options: { json?: boolean }) => {
			await withDatabase(async (db, config) =>
				show(
					options.json,
					await changeAiState(db.orm.em.fork(), { model: name ?? null, by: null }),
					config.openai.model,
					Boolean(config.openai.apiKey),
				),
			);
		});
}
