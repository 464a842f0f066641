import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../core/observability/logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** Routes the Temporal SDK's own logs into our structured JSON log at WARN and above. */
export function sdkLogger(log: Logger): DefaultLogger {
  return new DefaultLogger('WARN', (entry) => {
    log[LEVELS[entry.level]]({ sdk: entry.meta ?? {} }, entry.message);
  });
}
