import { inspect } from 'node:util';
import { DefaultLogger, Runtime, makeTelemetryFilterString, type LogEntry } from '@temporalio/worker';
import { recordTestLog } from './testLogs';

function record(entry: LogEntry): void {
  const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  const meta = entry.meta && Object.keys(entry.meta).length > 0 ? ` ${inspect(entry.meta, { breakLength: Infinity, depth: 4 })}` : '';
  recordTestLog(`${at} [temporal ${entry.level}] ${entry.message}${meta}`);
}

/**
 * The Temporal runtime of the test process, installed before its first worker. The SDK's log
 * (worker state, and "Activity failed" for every failure a test causes on purpose) goes to the
 * test file's log buffer, shown only when a test fails. Core's own warnings are dropped: in
 * tests they concern the test servers (the time-skipping server advertises fewer capabilities
 * than a real server); core errors still reach stderr.
 */
export function installTestRuntime(): void {
  if (Runtime._instance !== undefined) return;
  Runtime.install({ logger: new DefaultLogger('INFO', record), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
}
