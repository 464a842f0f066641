import pino from 'pino';
import { logger } from '../../core/observability/logger';
import { recordTestLog } from './testLogs';

/**
 * Runs before every integration test file: the process-wide logger the modules not yet handed
 * a logger by their root still use (core/observability/logger.ts) writes into the file's log buffer
 * (printed when a test fails) instead of stdout. Only the destination changes; what is logged,
 * and at which level, is the code's own. pino reads the destination from this symbol on each
 * write, and child loggers inherit it.
 */
(logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (line: string) => recordTestLog(line) };
