import pino from 'pino';
import { logger } from '../../core/observability/logger';

export interface CapturedLog {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * Runs `body` with our logger writing into a list instead of its destination and returns the
 * lines it wrote, so a test that provokes a logged failure asserts the line instead of printing
 * it. pino reads the destination from this symbol on each write (test/support/logBufferSetup.ts).
 */
export async function capturedLogs(body: () => Promise<void>): Promise<CapturedLog[]> {
  const holder = logger as unknown as Record<symbol, unknown>;
  const destination = holder[pino.symbols.streamSym];
  const lines: CapturedLog[] = [];
  holder[pino.symbols.streamSym] = { write: (line: string) => lines.push(JSON.parse(line) as CapturedLog) };
  try {
    await body();
  } finally {
    holder[pino.symbols.streamSym] = destination;
  }
  return lines;
}
