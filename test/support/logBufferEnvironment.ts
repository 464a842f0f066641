import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';

/**
 * The integration tests' environment: Node's, plus a log buffer on the test file's global
 * (filled by test/support/testLogs.ts). When a test or a hook fails, the lines logged since
 * the last failure are printed under its name; when everything passes nothing is.
 */
export default class LogBufferEnvironment extends TestEnvironment {
  private readonly buffer: string[] = [];

  override async setup(): Promise<void> {
    await super.setup();
    this.global.__testLogs = this.buffer;
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
