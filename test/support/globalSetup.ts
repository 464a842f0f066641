import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../../scripts/localStack';
import { installConformanceRuntime } from '../../scripts/conformanceRuntime';
import { BINARIES, installChromium, installSchemathesis, WORKFLOW_BUNDLES, type RunningService } from '../../scripts/localServices';
import { cachedWorkflowBundle } from '../../worker/workflowBundle';

/**
 * Starts MongoDB-wire storage (FerretDB) and a Temporal dev server on free loopback ports for
 * the integration suites, unless MONGODB_URI / TEMPORAL_ADDRESS point at running ones. Each
 * test file then uses its own database and task queue, so files never share state.
 */
const bundleLogger = {
  warn: (m: string) => process.stderr.write(`[workflow bundle] ${m}\n`),
  error: (m: string) => process.stderr.write(`[workflow bundle] ${m}\n`),
};

export default async function globalSetup(): Promise<void> {
  const say = (m: string) => process.stderr.write(`[test services] ${m}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'talent-test-'));
  // The workflow code, bundled once for every test file's in-process workers (and kept for the
  // next run and `npm run dev` while its sources do not change), while the services start.
  const bundled = cachedWorkflowBundle(WORKFLOW_BUNDLES, bundleLogger);
  // The browser tests' Chromium, installed (where it is missing) while the services start too.
  const browser = installChromium(say);
  // Awaited below; a failure meanwhile must not end the process as an unhandled rejection.
  bundled.catch(() => undefined);
  browser.catch(() => undefined);
  // The contract test's fuzzer and the MCP conformance suite's Node 22, installed (where missing)
  // one after the other in the background once the services are installed: on a fresh clone they
  // use the CPU the services' start leaves idle. Each test waits for its own on its install lock,
  // and installs it again (failing with its message) if this failed; the global teardown waits.
  const installTestTools = () => {
    (globalThis as { __testToolInstalls?: Promise<void> }).__testToolInstalls = installSchemathesis(say, { quiet: true })
      .catch(() => undefined)
      .then(() => installConformanceRuntime(say, { quiet: true }))
      .then(
        () => undefined,
        () => undefined,
      );
  };
  const started: RunningService[] = [];
  try {
    const stack = await startLocalStack({
      onInstalled: installTestTools,
      dir,
      mongodbUri: process.env.MONGODB_URI || undefined,
      temporalAddress: process.env.TEMPORAL_ADDRESS || undefined,
      installTemporalAlways: true,
      log: say,
      services: started,
    });
    // The sign-in tests drive a real browser; a missing one fails the run here, never skips them.
    process.env.TEST_CHROMIUM_PATH = await browser;
    process.env.TEST_MONGODB_BASE = stack.storeBase;
    process.env.TEST_TEMPORAL_ADDRESS = stack.temporalAddress;
    process.env.TEST_TEMPORAL_TEST_SERVER = BINARIES.temporalTestServer;
    process.env.TEST_WORKFLOW_BUNDLE = (await bundled).path;
  } catch (err) {
    // jest runs no global teardown after a failed set-up: what started stops here, and the
    // installs in the background finish (and release their locks) before the run ends.
    await Promise.all(started.map((s) => s.stop()));
    await (globalThis as { __testToolInstalls?: Promise<void> }).__testToolInstalls;
    throw err;
  }
  process.env.TEST_SERVICES_DIR = dir;
  writeFileSync(join(dir, 'pids.json'), JSON.stringify(started.map((s) => s.child.pid)));
  (globalThis as { __testServices?: RunningService[] }).__testServices = started;
}
