import type { Command } from 'commander';
import { readEnvironment } from '../../lib/core/config.ts';
import { runDoctor, type DoctorReport } from '../../lib/operations/doctor.ts';
import { ExitCode, type ExitCodeValue } from '../exit-codes.ts';
import { examples, printJson } from '../output.ts';

/** The exit code of a report: the first failing check decides (configuration 3, database 4, migrations 6, else 5). */
export function doctorExitCode(report: DoctorReport): ExitCodeValue {
	const failed = report.checks.find((check) => check.verdict === 'fail');
	if (!failed) return ExitCode.ok;
	if (failed.name === 'configuration') return ExitCode.config;
	if (failed.name === 'database') return ExitCode.databaseUnreachable;
	if (failed.name === 'migrations') return ExitCode.notMigrated;
	return ExitCode.partial;
}

export default function register(program: Command): void {
	const command = program
		.command('doctor')
		.description(
			'check this deployment: configuration, database and migrations, encryption, the Discord token, the AI key, the status endpoint (reads only)',
		)
		.option('--production', 'judge as NODE_ENV=production would, whatever NODE_ENV says')
		.option('--json', 'print the report as JSON: {production, ok, exitCode, checks: [{name, verdict, detail}]}')
		.option('--timeout <ms>', 'deadline of each network check', (value) => Math.max(100, Number(value) || 10_000), 10_000)
		.action(async (options: { production?: boolean; json?: boolean; timeout: number }) => {
			const report = await runDoctor(readEnvironment(), { production: options.production, timeoutMs: options.timeout });
			const exitCode = doctorExitCode(report);
			if (options.json) printJson({ ...report, exitCode });
			else {
				const width = Math.max(...report.checks.map((check) => check.name.length));
				for (const check of report.checks) console.log(`${check.verdict.padEnd(7)} ${check.name.padEnd(width)}  ${check.detail}`);
				const count = (verdict: string) => report.checks.filter((check) => check.verdict === verdict).length;
				console.log(
					`${report.ok ? 'Ready' : 'Not ready'}${report.production ? ' for production' : ''}: ${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail, ${count('skipped')} skipped`,
				);
			}
			process.exitCode = exitCode;
		});
	examples(command, [
		'haven doctor',
		'haven doctor --production          # as NODE_ENV=production would judge it',
		'haven doctor --json | jq -r \'.checks[] | select(.verdict == "fail") | .name\'',
	]);
}
