import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
/** What the workflow bundle is built from: its sources, what they import, and the locked packages. */
const SOURCE_DIRS = ['workflows', 'core'];
const SOURCE_FILES = ['package-lock.json', 'tsconfig.json'];
/** Older bundles beside the newest few are removed, so switching branches keeps a few and the folder stays small. */
const KEPT_BUNDLES = 3;

type BundleLogger = { warn: (m: string) => void; error: (m: string) => void };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.isFile() && /\.(ts|js|json)$/.test(e.name) ? [path] : [];
  });
}

/** A digest of everything the bundle is built from; any change to them gives another. */
export function workflowSourcesDigest(root = ROOT): string {
  const hash = createHash('sha256');
  const files = [...SOURCE_DIRS.flatMap((d) => sourceFiles(join(root, d))), ...SOURCE_FILES.map((f) => join(root, f))].sort();
  for (const file of files) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

function pruneOlderBundles(dir: string, keep: string): void {
  const bundles = readdirSync(dir)
    .filter((f) => f.endsWith('.js') && f !== keep)
    .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of bundles.slice(KEPT_BUNDLES - 1)) rmSync(join(dir, f), { force: true });
}

/**
 * The path of the workflow code bundled by webpack (`bundleWorkflowCode`), kept in `dir` under the
 * digest of its sources: a start whose sources are unchanged reuses it instead of spending
 * seconds of CPU on bundling again. Written under a temporary name and renamed, so processes
 * bundling at the same time never read half a file.
 */
export async function cachedWorkflowBundle(dir: string, logger: BundleLogger): Promise<{ path: string; built: boolean }> {
  const name = `${workflowSourcesDigest()}.js`;
  const path = join(dir, name);
  if (existsSync(path)) return { path, built: false };
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: logger.warn, error: logger.error },
  });
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  pruneOlderBundles(dir, name);
  return { path, built: true };
}
