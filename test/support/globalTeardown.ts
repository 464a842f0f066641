import { rmSync } from 'node:fs';
import type { RunningService } from '../../scripts/localServices';

export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as { __testServices?: RunningService[] }).__testServices ?? [];
  await Promise.all(started.map((s) => s.stop()));
  // A short run on a fresh clone ends before them; stopped half way, they would leave their install locks behind.
  await (globalThis as { __testToolInstalls?: Promise<void> }).__testToolInstalls;
  if (process.env.TEST_SERVICES_DIR && !process.env.KEEP_TEST_SERVICES_DIR) {
    rmSync(process.env.TEST_SERVICES_DIR, { recursive: true, force: true });
  }
}
