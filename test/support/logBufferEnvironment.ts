import { PerformanceObserver } from 'node:perf_hooks';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';

/**
 * Performance observers started while a test file runs (prom-client's default metrics start
 * one for garbage collections when core/observability/metrics.ts loads). Node keeps an observing
 * observer, and through its callback the whole module registry of the file that started it,
 * alive for the rest of the worker process: each file's modules would stay in the worker's
 * heap. The worker runs one file at a time, so what is observing at the file's end is its own.
 */
const observing = new Set<PerformanceObserver>();
const observe = PerformanceObserver.prototype.observe;
PerformanceObserver.prototype.observe = function observeAndRemember(this: PerformanceObserver, ...args: Parameters<typeof observe>) {
  observing.add(this);
  return observe.apply(this, args);
};

/**
 * The tests' environment: Node's, plus a log buffer on the test file's global (filled by
 * test/support/testLogs.ts). When a test or a hook fails, the lines logged since the last
 * failure are printed under its name; when everything passes nothing is. At the file's end the
 * performance observers it started stop, so the worker lets go of the file's modules.
 */
export default class LogBufferEnvironment extends TestEnvironment {
  private readonly buffer: string[] = [];

  override async setup(): Promise<void> {
    await super.setup();
    this.global.__testLogs = this.buffer;
  }

  override async teardown(): Promise<void> {
    for (const observer of observing) observer.disconnect();
    observing.clear();
    await super.teardown();
  }

  handleTestEvent(event: Circus.Event): void {
    if (event.name === 'test_done' && event.test.errors.length > 0) this.flush(`test "${event.test.name}" failed`);
    if (event.name === 'hook_failure') this.flush(`${event.hook.type} hook failed`);
  }

  private flush(why: string): void {
    if (this.buffer.length === 0) return;
    const lines = this.buffer.splice(0, this.buffer.length);
    process.stderr.write(`\n── logs (${why}; ${lines.length} lines) ──\n${lines.join('\n')}\n── end of logs ──\n`);
  }
}
