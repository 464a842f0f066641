import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedWorkflowBundle, workflowSourcesDigest } from '../../worker/workflowBundle';

/** A checkout's worth of bundle sources: workflows/, core/, the lockfile and tsconfig. */
function sources(): string {
  const root = mkdtempSync(join(tmpdir(), 'bundle-sources-'));
  mkdirSync(join(root, 'workflows'));
  mkdirSync(join(root, 'core', 'jobs'), { recursive: true });
  writeFileSync(join(root, 'workflows', 'index.ts'), "export * from './contactRetrieval';\n");
  writeFileSync(join(root, 'core', 'jobs', 'jobRules.ts'), 'export const JOB_DEADLINE_MS = 1;\n');
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  return root;
}

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

test('the digest is the same for the same sources and changes with any of them', () => {
  const a = sources();
  const b = sources();
  roots.push(a, b);
  expect(workflowSourcesDigest(a)).toBe(workflowSourcesDigest(b));
  writeFileSync(join(b, 'core', 'jobs', 'jobRules.ts'), 'export const JOB_DEADLINE_MS = 2;\n');
  expect(workflowSourcesDigest(b)).not.toBe(workflowSourcesDigest(a));
  const c = sources();
  roots.push(c);
  writeFileSync(join(c, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
  expect(workflowSourcesDigest(c)).not.toBe(workflowSourcesDigest(a));
  const d = sources();
  roots.push(d);
  writeFileSync(join(d, 'core', 'jobs', 'workflowInput.ts'), 'export {};\n');
  expect(workflowSourcesDigest(d)).not.toBe(workflowSourcesDigest(a));
});

test("a bundle of this checkout's digest is reused, not built again", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
  roots.push(dir);
  const path = join(dir, `${workflowSourcesDigest()}.js`);
  writeFileSync(path, '/* bundled */');
  const logger = { warn: jest.fn(), error: jest.fn() };
  await expect(cachedWorkflowBundle(dir, logger)).resolves.toEqual({ path, built: false });
  expect(logger.error).not.toHaveBeenCalled();
});
