import pino from 'pino';
import { logSettings } from '../config';

/**
 * Structured JSON logs. Nothing logs headers, bodies or query strings; the redact list is a
 * second line of defence for credentials that might reach a log object by mistake.
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers',
  '*.headers',
  'key',
  'secret',
  '*.secret',
  'client_secret',
  '*.client_secret',
  'access_token',
  'refresh_token',
  'token',
  '*.token',
  'body',
  '*.body',
];

export type Logger = pino.Logger;

/** A line sink: stdout unless a root (or a test) names another. */
export interface LogDestination {
  write(line: string): void;
}

/**
 * The logger of one composition root (api/server.ts, worker/main.ts, the operator CLI, the seed,
 * a benchmark's stack, a test). Everything below a root logs through this logger or a child of
 * it that already carries the request, organization or operation, so no module holds a logger
 * of its own and a test reads what its own app logged.
 */
export function createLogger(options: { level?: string; service?: string; destination?: LogDestination } = {}): Logger {
  const settings = logSettings();
  const config: pino.LoggerOptions = {
    level: options.level ?? settings.level,
    base: { service: options.service ?? settings.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}

/**
 * The one process-wide logger left, for the modules test/unit/moduleState.test.ts names as not
 * yet handed a logger by their root; no other module may import it.
 */
export const logger = createLogger();
