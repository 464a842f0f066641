import { AsyncLocalStorage } from 'node:async_hooks';
import { PerformanceObserver } from 'node:perf_hooks';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import './moduleCodeCache';

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
 * Async-local storages a test file's modules started using (its Temporal clients and workers,
 * jest-circus' own). Node keeps every storage in use in one process-wide list and copies each
 * of them onto every promise and callback the process creates afterwards, so storages left by
 * earlier files would make each later file's every await a little slower, more so the longer
 * the worker has run. At the file's end they are put out of use.
 */
const storagesInUse = new Set<AsyncLocalStorage<unknown>>();
const storagePrototype = AsyncLocalStorage.prototype as AsyncLocalStorage<unknown> & { _enable?: () => void };
const enableStorage = storagePrototype._enable;
// Node versions whose storages live in async context frames keep no such list (and no `_enable`).
if (typeof enableStorage === 'function') {
  storagePrototype._enable = function enableAndRemember(this: AsyncLocalStorage<unknown>) {
    storagesInUse.add(this);
    return enableStorage.call(this);
  };
}

/**
 * The tests' environment: Node's, plus a log buffer on the test file's global (filled by
 * test/support/testLogs.ts). When a test or a hook fails, the lines logged since the last
 * failure are printed under its name; when everything passes nothing is. At the file's end what
 * its modules left to close closes, and the performance observers it started stop and the
 * async-local storages it used are put out of use, so the worker lets go of the file's modules.
 */
export default class LogBufferEnvironment extends TestEnvironment {
  private readonly buffer: string[] = [];

  override async setup(): Promise<void> {
    await super.setup();
    this.global.__testLogs = this.buffer;
  }

  override async teardown(): Promise<void> {
    await this.runFileEnd();
    for (const observer of observing) observer.disconnect();
    observing.clear();
    for (const storage of storagesInUse) storage.disable();
    storagesInUse.clear();
    await super.teardown();
  }

  async handleTestEvent(event: Circus.Event): Promise<void> {
    if (event.name === 'test_done' && event.test.errors.length > 0) this.flush(`test "${event.test.name}" failed`);
    if (event.name === 'hook_failure') this.flush(`${event.hook.type} hook failed`);
    if (event.name === 'run_finish') await this.runFileEnd();
  }

  /** What the file's modules left to close once all of it has run (test/support/browser.ts: the file's Chromium). */
  private async runFileEnd(): Promise<void> {
    const closers = (this.global.__atFileEnd as Array<() => Promise<void>> | undefined) ?? [];
    this.global.__atFileEnd = [];
    for (const close of closers) await close();
  }

  private flush(why: string): void {
    if (this.buffer.length === 0) return;
    const lines = this.buffer.splice(0, this.buffer.length);
    process.stderr.write(`\n── logs (${why}; ${lines.length} lines) ──\n${lines.join('\n')}\n── end of logs ──\n`);
  }
}
