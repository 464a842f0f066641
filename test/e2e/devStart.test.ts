import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort } from '../../scripts/localServices';
import { portTaken } from '../../scripts/stopReason';
import { eventually } from '../support/eventually';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';
import { uniqueName } from '../support/testConfig';

jest.setTimeout(240_000);

/**
 * `npm run dev` as a new developer runs it, on free ports with its data in
 * a temporary folder: the first start prints a key and a first session (whoami, search, unlock,
 * match, a job and its result) that works exactly as printed; a second start while it runs
 * refuses; a start after it creates no key and prints a ready key-create command; against a
 * store (and Temporal) the person supplied, nothing is started for them and no key is created.
 */
const ROOT = resolve(__dirname, '..', '..');

interface DevRun {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

const runs: DevRun[] = [];
const dirs: string[] = [];

async function startDev(env: Record<string, string>, args: string[] = []): Promise<DevRun> {
  const run = spawnDev(env, args);
  const deadline = Date.now() + 200_000;
  while (!run.output().includes('Ctrl-C stops everything.')) {
    if (run.child.exitCode !== null) throw new Error(`npm run dev exited (${run.child.exitCode}):\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`npm run dev was not ready:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return run;
}

/**
 * A start as the README's `npm run dev` makes it, but under the swc hook the tests' other
 * processes use (dev.ts starts its worker and API under the loader it runs under), cheaper in
 * CPU than tsx's; `npm run dev` itself, npm and tsx included, is the refused second start.
 */
function spawnDev(env: Record<string, string>, args: string[] = [], command: string[] = [process.execPath, ...TYPESCRIPT_NODE_ARGS, 'scripts/dev.ts']): DevRun {
  const child = spawn(command[0], [...command.slice(1), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a failed test still stops every child it started.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const run: DevRun = {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
      // A bounded wait whose timer goes with it, so the file ends once its runs have ended.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone
      }
    },
  };
  runs.push(run);
  return run;
}

async function devEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'talent-dev-'));
  dirs.push(dir);
  return {
    PORT: String(await freePort()),
    DEV_MONGODB_PORT: String(await freePort()),
    DEV_TEMPORAL_PORT: String(await freePort()),
    DEV_TEMPORAL_UI_PORT: String(await freePort()),
    DEV_WORKER_METRICS_PORT: String(await freePort()),
    DEV_MAIL_SMTP_PORT: String(await freePort()),
    DEV_MAIL_UI_PORT: String(await freePort()),
    DEV_DATA_DIR: join(dir, 'data'),
    DEV_ENV_FILE: join(dir, 'dev.env'),
    DEV_SEED_PEOPLE: '60',
    TEMPORAL_TASK_QUEUE: uniqueName('dev'),
    // The warm start has a test of its own; here it would only delay each start.
    API_WARM_START: 'false',
    ...extra,
  };
}

/**
 * The test picks the ports `npm run dev` is told to use; a parallel test worker can bind one of
 * them before dev does. Such a start is tried again on other ports; any other failure is not.
 */
async function startDevOnFreePorts(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; run: DevRun }> {
  for (let attempt = 1; ; attempt++) {
    const env = await devEnv(extra);
    try {
      return { env, run: await startDev(env) };
    } catch (err) {
      if (attempt >= 3 || !portTaken((err as Error).message)) throw err;
    }
  }
}

/** The first session's lines as printed: the indented lines under "A first session", up to the blank line. */
function printedSession(output: string): string[] {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => l.startsWith('A first session'));
  const session: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() === '') break;
    if (l.startsWith('  ')) session.push(l.trim());
  }
  return session;
}

/** Runs the lines in one shell, in order, exactly as printed; returns what each printed. */
function runSession(lines: string[]): string[] {
  const SEP = '=====8<=====';
  const script = lines.join(`\nprintf '\\n${SEP}\\n'\n`);
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout.split(`\n${SEP}\n`).map((s) => s.trim());
}

afterAll(async () => {
  for (const r of runs) await r.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('the first start prints a key, a first session that works as printed and local webhooks that arrive verified; the next start makes no key and says how', async () => {
  const { env, run: first } = await startDevOnFreePorts();
  const out = first.output();
  // A second start while this one runs, with the README's command, says so and exits, leaving this one running.
  const refused = spawnDev(env, [], ['npm', 'run', 'dev']);
  const refusedCode = await new Promise<number | null>((r) => refused.child.once('exit', (code) => r(code)));
  expect({ code: refusedCode, output: refused.output() }).toEqual({
    code: 1,
    output: expect.stringContaining('[dev] the service is already running (pid '),
  });
  expect(out).toContain('A development key was created');
  // How to trust the development certificate for an integrator's own HTTPS receiver.
  expect(out).toMatch(/^ {2}certificate \S+webhook-cert\.pem$/m);
  expect(out).toMatch(/curl --cacert \S+webhook-cert\.pem …, or NODE_EXTRA_CA_CERTS=\S+webhook-cert\.pem for Node\./);
  // Long steps report their time (seeding off a terminal: a line every few seconds, then this).
  expect(out).toMatch(/seeding people: done in \d+\.\d s, 60\n/);
  expect(out).toMatch(/\[dev\] ready in \d+\.\d s/);
  // Mailpit runs beside the Temporal UI, and its web UI's API answers where the start says.
  const mailUrl = `http://127.0.0.1:${env.DEV_MAIL_UI_PORT}`;
  expect(out).toContain(`Mail (Mailpit) ${mailUrl}`);
  // The console on a host name, where browsers offer passkeys.
  expect(out).toContain(`Console        http://localhost:${env.PORT}/console`);
  expect((await fetch(`${mailUrl}/api/v1/info`)).status).toBe(200);
  const key = /^\s+(sk_live_ext_\S+)$/m.exec(out)?.[1];
  expect(key).toBeDefined();
  const session = printedSession(out);
  expect(session[0]).toBe(`export API_KEY=${key}`);
  const answers = runSession(session);
  const [, whoami, search, unlock, match, jobId, waited, job, result] = answers;
  expect(JSON.parse(whoami).key_id).toMatch(/^key_/);
  expect(JSON.parse(search).data.length).toBeGreaterThan(0);
  const personId = JSON.parse(unlock).profile.person_id as string;
  expect(personId).toMatch(/^per_/);
  // Found at the default min_confidence, and the person the session is about.
  expect(JSON.parse(match).data[0]).toMatchObject({ person_id: personId, confidence: expect.any(Number) });
  expect(JSON.parse(match).data[0].confidence).toBeGreaterThanOrEqual(0.8);
  expect(jobId).toMatch(/^job_/);
  // The session waits for the job: what it reads next is the finished job and its whole result.
  expect(waited).toBe('');
  expect(JSON.parse(job)).toMatchObject({ job_id: jobId, counts: { requested: 1 } });
  expect(JSON.parse(job).status).not.toBe('running');
  expect(JSON.parse(result)).toMatchObject({ job_id: jobId, items: [{ person_id: personId }] });
  // Run again as printed: the fixed idempotency keys replay every paid answer.
  const replayed = runSession(session);
  expect(replayed[5]).toBe(jobId);
  expect(JSON.parse(replayed[2]).receipt_id).toBe(JSON.parse(search).receipt_id);

  // The operator CLI finds the store of this start (non-default ports) through the settings file.
  const settings = readFileSync(env.DEV_ENV_FILE, 'utf8');
  expect(settings).toContain(`MONGODB_URI=mongodb://127.0.0.1:${env.DEV_MONGODB_PORT}/talent`);
  expect(settings).toContain(`TEMPORAL_ADDRESS=127.0.0.1:${env.DEV_TEMPORAL_PORT}`);
  expect(settings).toContain(`BASE_URL=http://127.0.0.1:${env.PORT}\nAUTH_URL=http://localhost:${env.PORT}\nMCP_URL=http://127.0.0.1:${env.PORT}`);
  expect(settings).not.toContain(key);
  expect(settings).toMatch(/^DEV_WEBHOOK_CERT_FILE=\S+webhook-cert\.pem$/m);

  // Local webhooks as printed: listen in one terminal, trigger in another; the delivery arrives
  // verified, over HTTPS to loopback, which this start's worker trusts.
  const printedCommand = (words: string) =>
    out
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith(`npm run --silent admin -- ${words}`))!;
  const cliEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DEV_ENV_FILE: env.DEV_ENV_FILE, TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE };
  const listen = spawn('sh', ['-c', `exec ${printedCommand('webhook listen')}`], { cwd: ROOT, env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let heard = '';
  listen.stdout!.on('data', (c: Buffer) => (heard += c.toString()));
  listen.stderr!.on('data', (c: Buffer) => (heard += c.toString()));
  try {
    await eventually('listen to be ready', async () => heard.includes('listening on') || listen.exitCode !== null, { timeoutMs: 60_000 });
    const triggered = spawnSync('sh', ['-c', printedCommand('webhook trigger')], { cwd: ROOT, env: cliEnv, encoding: 'utf8' });
    expect({ status: triggered.status, stderr: triggered.stderr }).toEqual({ status: 0, stderr: '' });
    const triggeredJob = JSON.parse(triggered.stdout).job_id as string;
    await eventually('the delivery to be printed', async () => heard.includes(`"job_id":"${triggeredJob}"`), { timeoutMs: 60_000, intervalMs: 250 });
    expect(heard).toMatch(/evt_\S+ attempt 1 verified\n/);
    // The worker's metrics, printed beside the API's, counted that job and its delivery.
    const metricsUrl = /Worker metrics (\S+)/.exec(out)![1];
    expect(metricsUrl).toBe(`http://127.0.0.1:${env.DEV_WORKER_METRICS_PORT}/metrics`);
    // The receiver prints the delivery before the worker has read its answer and counted it.
    const succeeded = /^webhook_delivery_attempts_total\{outcome="succeeded",error_code=""\} [1-9]/m;
    const workerMetrics = await eventually(
      'the worker to count the delivery',
      async () => {
        const text = await (await fetch(metricsUrl)).text();
        return succeeded.test(text) ? text : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(workerMetrics).toMatch(/^contact_jobs_finished_total\{status="completed"\} [1-9]/m);
    expect(workerMetrics).toMatch(succeeded);
  } finally {
    process.kill(-listen.pid!, 'SIGINT');
    await new Promise((r) => listen.once('exit', r));
  }
  await first.stop();

  const second = await startDev(env);
  const again = second.output();
  expect(again).not.toContain('A development key was created');
  expect(again).not.toMatch(/sk_live_ext_/);
  expect(again).toMatch(/key create --org org_\S+ --workspace ws_\S+ --scopes /);
  // The printed operator command works as printed in another shell (no exports): the CLI reads
  // the dev settings file (DEV_ENV_FILE stands in for .local/dev.env) for this start's store.
  const keyCreate = again
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('npm run --silent admin -- key create'))!;
  const made = spawnSync('sh', ['-c', keyCreate], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DEV_ENV_FILE: env.DEV_ENV_FILE },
    encoding: 'utf8',
  });
  expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });
  const newKey = JSON.parse(made.stdout).key as string;
  const r = spawnSync('sh', ['-c', `${session[1]} -o /dev/null -w '%{http_code}'`], { encoding: 'utf8', env: { PATH: process.env.PATH, API_KEY: newKey } });
  expect(r.stdout).toBe('200');
  await second.stop();
});

test('no key in a store the person supplied, unless asked; supplied services are used as given', async () => {
  const storeUri = `${process.env.TEST_MONGODB_BASE}/${uniqueName('devsupplied')}`;
  const { run } = await startDevOnFreePorts({
    MONGODB_URI: storeUri,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  expect(run.output()).toContain('No development key: MONGODB_URI is yours');
  expect(run.output()).not.toMatch(/sk_live_ext_/);
  expect(run.output()).not.toMatch(/starting FerretDB|starting Temporal/);
  expect(run.output()).toContain(`export TEMPORAL_ADDRESS=${process.env.TEST_TEMPORAL_ADDRESS}`);
  await run.stop();
  const client = await MongoClient.connect(storeUri);
  try {
    expect(await client.db().collection('organizations').countDocuments()).toBe(0);
  } finally {
    await client.close();
  }
});

test('a service that stops while the others start ends the start at once, saying which', async () => {
  const env = await devEnv({
    MONGODB_URI: `${process.env.TEST_MONGODB_BASE}/${uniqueName('devdied')}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  const run = spawnDev(env);
  const exited = new Promise<number | null>((r) => run.child.once('exit', (code) => r(code)));
  await eventually('the worker to be starting', async () => run.output().includes('[dev] starting worker') || run.child.exitCode !== null, {
    timeoutMs: 120_000,
  });
  expect({ exitCode: run.child.exitCode, output: run.output() }).toEqual({ exitCode: null, output: expect.any(String) });
  const temporal = spawnSync('pgrep', ['-f', `start-dev --ip 127.0.0.1 --port ${env.DEV_TEMPORAL_PORT} `], { encoding: 'utf8' }).stdout.trim();
  expect(temporal).toMatch(/^\d+$/);
  const killedAt = Date.now();
  process.kill(Number(temporal), 'SIGKILL');
  // Not the API's readiness wait (up to 120 s): the start ends as soon as Temporal is gone.
  expect(await exited).toBe(1);
  expect(Date.now() - killedAt).toBeLessThan(30_000);
  expect(run.output()).toContain('[dev] temporal exited (SIGKILL) while the others were starting');
  expect(run.output()).not.toContain('Ctrl-C stops everything.');
});
