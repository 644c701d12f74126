import { LogLevel } from '@sapphire/framework';
import { Logger } from '@sapphire/plugin-logger';
import type { Config } from './config.ts';

const LEVELS = { debug: LogLevel.Debug, info: LogLevel.Info, warn: LogLevel.Warn, error: LogLevel.Error } as const;

export function logLevel(level: Config['logLevel']): LogLevel {
	return LEVELS[level];
}

export function createLogger(level: Config['logLevel']): Logger {
	return new Logger({ level: logLevel(level), join: ' ' });
}
