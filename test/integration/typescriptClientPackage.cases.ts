import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The typed client as a package: `npm pack` in clients/typescript builds it to JavaScript with
 * type declarations, and the tarball installs with `npm install` into an empty project offline
 * (its dependencies packed from this checkout's node_modules, so no registry is asked), where
 * it is required, imported, and type-checked against.
 */
const ROOT = resolve(__dirname, '..', '..');
const CLIENT = join(ROOT, 'clients', 'typescript');
let dir: string;

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    // What npm says besides its answer (the build script's banners) is kept from the run's
    // output; a failing command's error carries it.
    stdio: ['ignore', 'pipe', 'pipe'],
    // The root's node_modules/.bin gives prepack its tsc, as in a checkout.
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'client-package-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(CLIENT, 'dist'), { recursive: true, force: true });
});

test('npm pack builds JavaScript and declarations; the tarball installs offline and imports, with types', () => {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], CLIENT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0].files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/client.d.ts', 'package.json']));
  // Its dependencies, as tarballs from this checkout: the install needs no registry.
  npm(['pack', '--pack-destination', dir, ...['openapi-fetch', 'openapi-typescript-helpers'].map((dep) => join(ROOT, 'node_modules', dep))], dir);
  const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  expect(tarballs).toHaveLength(3);

  const app = join(dir, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'client-consumer', version: '1.0.0', private: true }));
  npm(['install', '--offline', ...tarballs.map((t) => join(dir, t))], app);
  expect(existsSync(join(app, 'node_modules', '@talent-platform', 'client', 'dist', 'index.js'))).toBe(true);

  const required = execFileSync(
    process.execPath,
    [
      '-e',
      "const c = require('@talent-platform/client'); const t = c.createTalentClient({ apiKey: 'sk_live_ext_x', baseUrl: 'http://127.0.0.1:1' }); console.log(typeof c.createTalentClient, typeof c.ProblemError, typeof t.whoami)",
    ],
    { cwd: app, encoding: 'utf8' },
  );
  expect(required.trim()).toBe('function function function');
  const imported = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { createTalentClient, ProblemError } from '@talent-platform/client'; console.log(typeof createTalentClient, ProblemError.name)",
    ],
    { cwd: app, encoding: 'utf8' },
  );
  expect(imported.trim()).toBe('function ProblemError');

  // The declarations type a caller's code: a wrong body is a compile error, a right one is not.
  writeFileSync(
    join(app, 'ok.ts'),
    "import { createTalentClient, type ProblemCode } from '@talent-platform/client';\n" +
      "const c = createTalentClient({ apiKey: 'k' });\nexport const run = () => c.searchCandidates({ query: 'rust', page_size: 5 });\nexport const code: ProblemCode = 'insufficient_credits';\n",
  );
  writeFileSync(
    join(app, 'bad.ts'),
    "import { createTalentClient } from '@talent-platform/client';\nexport const run = () => createTalentClient({ apiKey: 'k' }).searchCandidates({ page_size: 'five' });\n",
  );
  // One compiler run over both files (each run costs a second or two of loading): every error
  // it reports is in bad.ts.
  let reported = '';
  try {
    execFileSync(
      process.execPath,
      [
        require.resolve('typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--skipLibCheck',
        '--types',
        'node',
        '--typeRoots',
        join(ROOT, 'node_modules', '@types'),
        'ok.ts',
        'bad.ts',
      ],
      { cwd: app, encoding: 'utf8' },
    );
  } catch (err) {
    reported = String((err as { stdout?: string }).stdout);
  }
  const errors = reported.split('\n').filter((line) => /error TS/.test(line));
  expect(errors.filter((line) => !line.startsWith('bad.ts('))).toEqual([]);
  expect(errors.length).toBeGreaterThan(0);
});
