import { inspect, stripVTControlCharacters } from 'node:util';
import { LogLevel } from '@sapphire/framework';
import { Logger } from '@sapphire/plugin-logger';
import type { Config } from './config.ts';

const LEVELS = { debug: LogLevel.Debug, info: LogLevel.Info, warn: LogLevel.Warn, error: LogLevel.Error } as const;

export function logLevel(level: Config['logLevel']): LogLevel {
	return LEVELS[level];
}

/** `LOG_FORMAT`: `pretty` (coloured lines for a terminal, plugin-logger's own) or `json` (one object per line). */
export function createLogger(level: Config['logLevel'], format: Config['logFormat'] = 'pretty'): Logger {
	return format === 'json' ? new JsonLogger({ level: logLevel(level) }) : new Logger({ level: logLevel(level), join: ' ' });
}

const NAMES = new Map<LogLevel, string>([
	[LogLevel.Trace, 'trace'],
	[LogLevel.Debug, 'debug'],
	[LogLevel.Info, 'info'],
	[LogLevel.Warn, 'warn'],
	[LogLevel.Error, 'error'],
	[LogLevel.Fatal, 'fatal'],
]);

/**
 * The error ids Haven puts in its lines: `error id <uuid>` (HTTP failures, src/lib/api/http-error.ts) and
 * `[error <8 hex>]` (the bot's funnel, src/lib/discord/interaction-errors.ts).
 */
const ERROR_ID = /\berror(?: id)? `?([0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?)\b/;

export interface JsonLogLine {
	/** ISO 8601, UTC. */
	time: string;
	level: string;
	message: string;
	errorId?: string;
}

/**
 * One JSON object per line, for log collectors: `{"time","level","message"[,"errorId"]}`. The message is the same
 * text the pretty format prints, without colour codes. An Error passed as a value is written as its class, code and
 * stack frames, never its message (a message can quote a query and the user's text with it). Warnings and errors go
 * to stderr, the rest to stdout, as in the pretty format.
 */
export class JsonLogger extends Logger {
	override write(level: LogLevel, ...values: readonly unknown[]): void {
		if (level < this.level) return;
		const line = jsonLogLine(level, values);
		const stream = level >= LogLevel.Warn ? 'error' : 'log';
		this.console[stream]('%s', JSON.stringify(line));
	}
}

export function jsonLogLine(level: LogLevel, values: readonly unknown[], now = new Date()): JsonLogLine {
	const message = stripVTControlCharacters(values.map(describeValue).join(' '));
	const line: JsonLogLine = { time: now.toISOString(), level: NAMES.get(level) ?? 'info', message };
	const errorId = ERROR_ID.exec(message)?.[1];
	if (errorId !== undefined) line.errorId = errorId;
	return line;
}

function describeValue(value: unknown): string {
	if (typeof value === 'string') return value;
	if (value instanceof Error) {
		const code = (value as { code?: unknown }).code;
		const frames = (value.stack ?? '')
			.split('\n')
			.filter((line) => /^\s+at /.test(line))
			.slice(0, 4)
			.map((line) => line.trim().replace(/^at /, ''));
		return `${value.name}${typeof code === 'string' || typeof code === 'number' ? ` (code ${code})` : ''}${frames.length ? ` at ${frames.join(' <- ')}` : ''}`;
	}
	return inspect(value, { colors: false, depth: 0, breakLength: Infinity });
}
