import { createLogger, type Logger } from '../../core/observability/logger';
import { recordTestLog } from './testLogs';

export interface CapturedLog {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * A logger that writes into the test file's log buffer (printed when a test fails, see
 * test/support/logBufferEnvironment.ts) instead of stdout: what a test's app logs is kept, not
 * printed. `TEST_LOG_LEVEL` sets its level (default `info`).
 */
export function testLogger(level = process.env.TEST_LOG_LEVEL || 'info'): Logger {
  return createLogger({ level, destination: { write: (line) => recordTestLog(line) } });
}

/**
 * A logger that keeps its lines in a list, so a test that provokes a logged failure asserts
 * the line instead of printing it.
 */
export function capturingLogger(): { logger: Logger; lines: CapturedLog[] } {
  const lines: CapturedLog[] = [];
  return { logger: createLogger({ level: 'info', destination: { write: (line) => lines.push(JSON.parse(line) as CapturedLog) } }), lines };
}
