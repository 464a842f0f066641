/**
 * The log lines of one test file, kept in memory instead of written out: a green run stays
 * quiet, and test/support/logBufferEnvironment.ts prints them when a test of the file fails.
 * TEST_SHOW_LOGS=1 writes every line as it comes instead (for watching a test run).
 * The buffer lives on the test file's global, which that environment creates and reads.
 */
const MAX_LINES = 2000;

export function recordTestLog(line: string): void {
  const buffer = (globalThis as { __testLogs?: string[] }).__testLogs;
  if (!buffer || process.env.TEST_SHOW_LOGS) {
    process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
    return;
  }
  buffer.push(line.replace(/\n$/, ''));
  if (buffer.length > MAX_LINES) buffer.splice(0, buffer.length - MAX_LINES);
}
