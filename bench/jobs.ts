/**
 * Contact-retrieval job benchmark: one large job (default 10,000 people, a batch job over a
 * stored search) on the built-in `local` provider, then the same size on the `http` provider
 * against a loopback provider with 50 ms latency per call. Each run uses a fresh organization
 * (so nobody is `reused`) and its own worker process (`tsx worker/main.ts`).
 *
 *   npx tsx bench/jobs.ts     (starts FerretDB and Temporal unless MONGODB_URI / TEMPORAL_ADDRESS are set)
 *
 * BENCH_PEOPLE (10000), BENCH_CHUNK (default: CONTACT_JOB_CHUNK_SIZE), BENCH_CONCURRENCY
 * (default: CONTACT_JOB_CONCURRENCY), BENCH_PROVIDER_LATENCY_MS (50), BENCH_SKIP_HTTP=1.
 * Prints time to finish and people per second for each provider. Target: >= 2,000 people/s
 * end to end on the local provider.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { loadConfig, type Config } from '../core/config';
import { createBatchContactRetrievalJob } from '../core/jobs/contactRetrievalJobs';
import { tallyJobItems } from '../core/jobs/jobFinish';
import { createApiKey } from '../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import { personIdFor } from '../scripts/seeding/generator';
import { storeSearch } from '../core/talent/searches';
import { seedPeople } from '../scripts/seeding/seedPeople';
import { temporal } from '@temporalio/proto';
import { createOrganization } from '../core/tenancy/provisioning';
import type { BenchFigure } from './benchResults';
import { runBench, startBenchStack, type BenchStops } from './benchStack';
import { startContactProviderServer } from '../test/support/contactProviderServer';
import { closeDeps, createDeps, openDeps, type Deps, type Stores } from '../core/deps';
import { readFileSync } from 'node:fs';
import { processCpuSeconds } from './processCpu';

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 10_000);
/** Unset: the configured defaults (CONTACT_JOB_CHUNK_SIZE, CONTACT_JOB_CONCURRENCY). */
const CHUNK = process.env.BENCH_CHUNK;
const CONCURRENCY = process.env.BENCH_CONCURRENCY;
const LATENCY_MS = Number(process.env.BENCH_PROVIDER_LATENCY_MS ?? 50);
const SEED = 'bench-jobs';
/** How long one job may take before the run fails, naming it (not a wait without end). */
const JOB_LIMIT_MS = Number(process.env.BENCH_JOB_LIMIT_SECONDS ?? 600) * 1000;
/** End to end, acceptance included, on the built-in provider (issue #44 item 4). */
const TARGET_LOCAL_PEOPLE_PER_SECOND = 2_000;

/** What the worker logged last (it logs to stdout), kept to name why it stopped. */
const WORKER_LOG_TAIL = 4096;

/** CPU seconds of a process and every process under it (the worker runs under tsx's own process). */
function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return undefined;
  }
  return children.reduce((sum, child) => sum + (treeCpuSeconds(child) ?? 0), processCpuSeconds(pid) ?? 0);
}

/** The worker runs as its own process, as in production: `tsx worker/main.ts` with this run's settings. */
function startWorkerProcess(env: Record<string, string>): ChildProcess & { logTail: () => string } {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'worker/main.ts'], {
    cwd: join(__dirname, '..'),
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tail = '';
  child.stdout.on('data', (c: Buffer) => (tail = (tail + c.toString()).slice(-WORKER_LOG_TAIL)));
  return Object.assign(child, { logTail: () => tail });
}

/**
 * Waits until the worker polls both its workflow and activity task queues: the job is timed, not
 * the worker's start. Every call has its own limit, so a Temporal that stops answering fails the
 * wait (naming it) instead of holding it past its deadline.
 */
async function workerReady({ config, temporal: clients }: Pick<Deps, 'config' | 'temporal'>, worker: ReturnType<typeof startWorkerProcess>): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (worker.exitCode !== null) throw new Error(`the worker process exited with code ${worker.exitCode} before it polled: ${worker.logTail()}`);
    const polled = await Promise.all(
      [temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY].map(
        async (taskQueueType) => {
          const r = await clients.call(`a description of task queue ${config.temporal.taskQueue}`, (client) =>
            client.workflowService.describeTaskQueue({
              namespace: config.temporal.namespace,
              taskQueue: { name: config.temporal.taskQueue },
              taskQueueType,
            }),
          );
          return (r.pollers?.length ?? 0) > 0;
        },
      ),
    );
    if (polled.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('the worker did not start polling within 120 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The job's end, read every 50 ms; past `limitMs` the run fails naming the job and where it stood. */
async function jobFinished(stores: Stores, jobId: string, limitMs: number): Promise<NonNullable<Awaited<ReturnType<typeof readJob>>>> {
  const deadline = Date.now() + limitMs;
  let lastReport = performance.now();
  for (;;) {
    const job = await readJob(stores, jobId);
    if (!job) throw new Error(`job ${jobId} is gone`);
    if (job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish within ${limitMs / 1000} s: ${JSON.stringify(await tallyJobItems(stores, jobId))}`);
    if (process.env.BENCH_LOG && performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      process.stderr.write(`[bench] ${jobId}: ${JSON.stringify(await tallyJobItems(stores, jobId))}\n`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function readJob(stores: Stores, jobId: string) {
  return stores.jobs.findJob({ _id: jobId });
}

/** One run's stack: its own settings (provider, task queue) over the store the root opened. */
async function runOnce(
  label: string,
  root: Deps,
  config: Config,
  env: Record<string, string>,
  personIds: string[],
  storePid: number | undefined,
): Promise<BenchFigure> {
  const deps = createDeps(config, { store: root.store });
  const worker = startWorkerProcess(env);
  try {
    const booting = performance.now();
    await workerReady(deps, worker);
    process.stderr.write(`[bench] ${label}: worker polling after ${((performance.now() - booting) / 1000).toFixed(1)} s\n`);
    const org = await createOrganization(deps.stores, `bench jobs ${label}`, PEOPLE * 2);
    const key = await createApiKey(deps.stores, {
      orgId: org.org_id,
      workspaceId: org.workspace_id,
      applicationId: org.application_id,
      scopes: [...ALL_PERMISSIONS],
      audience: config.apiAudience,
    });
    const principal = {
      keyId: key.key_id,
      orgId: org.org_id,
      workspaceId: org.workspace_id,
      applicationId: org.application_id,
      familyId: key.family_id,
      audience: config.apiAudience,
      scopes: [...ALL_PERMISSIONS],
    };
    const search = await storeSearch(
      deps.stores,
      { orgId: org.org_id, fingerprint: `bench-${label}`, params: {}, personIds, total: personIds.length },
      Date.now(),
    );
    // CPU of each process while the job runs: where its time goes on a machine it shares.
    const cpu = () => ({ bench: process.cpuUsage(), worker: treeCpuSeconds(worker.pid), store: processCpuSeconds(storePid) });
    const cpuBefore = cpu();
    const started = performance.now();
    const view = await createBatchContactRetrievalJob(deps, {
      principal,
      searchId: search.searchId,
      limit: personIds.length,
      fields: ['email', 'phone'],
    });
    const accepted = performance.now();
    process.stderr.write(`[bench] ${label}: job ${view.job_id} accepted\n`);
    const job = await jobFinished(deps.stores, view.job_id, JOB_LIMIT_MS);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpu();
    const spent = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '?' : `${(b - a).toFixed(1)} s`);
    const benchCpu = process.cpuUsage(cpuBefore.bench);
    const cpuText = `CPU: acceptance and polling (this process) ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s, worker ${spent(cpuBefore.worker, cpuAfter.worker)}, store ${spent(cpuBefore.store, cpuAfter.store)}`;
    const c = job.counts!;
    process.stdout.write(
      `${label.padEnd(22)} ${String(personIds.length).padStart(6)} people  accepted in ${(accepted - started).toFixed(0)} ms  ` +
        `finished in ${seconds.toFixed(2)} s  ${(personIds.length / seconds).toFixed(0)} people/s  ` +
        `status ${job.status}  delivered ${c.delivered} not_found ${c.not_found} failed ${c.failed}\n  ${cpuText}\n`,
    );
    const perSecond = personIds.length / seconds;
    return {
      measure: `${personIds.length}-person job, ${label}, end to end (accepted in ${(accepted - started).toFixed(0)} ms)`,
      figure: `${perSecond.toFixed(0)} people/s (${seconds.toFixed(2)} s, ${job.status}, delivered ${c.delivered}); ${cpuText}`,
      target: label === 'local provider' ? `>= ${TARGET_LOCAL_PEOPLE_PER_SECOND} people/s` : undefined,
      met: label === 'local provider' ? perSecond >= TARGET_LOCAL_PEOPLE_PER_SECOND && job.status === 'completed' : undefined,
    };
  } finally {
    await stopWorker(worker);
    await deps.temporal.close();
  }
}

/** SIGTERM, then SIGKILL if the worker has not ended within its own shutdown limit and a margin. */
async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((r) => worker.once('exit', r));
  worker.kill('SIGTERM');
  const timer = setTimeout(() => worker.kill('SIGKILL'), 70_000);
  await exited;
  clearTimeout(timer);
}

async function measure(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const {
    mongodbUri: mongo,
    temporalAddress: temporal,
    storePid,
  } = await startBenchStack(dir, 'bench_jobs', stops, (m) => process.stderr.write(`[services] ${m}\n`));
  const provider = await startContactProviderServer({ token: 'bench-provider-token', latencyMs: LATENCY_MS });
  const base = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongo,
    TEMPORAL_ADDRESS: temporal,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // The benchmark measures speed, not the daily delivery quota (2,000 by default: a 10,000-person
    // job would end partial with most people failed on the quota).
    SEARCH_DELIVERY_QUOTA_PER_DAY: String(PEOPLE * 4),
    ...(CHUNK ? { CONTACT_JOB_CHUNK_SIZE: CHUNK } : {}),
    ...(CONCURRENCY ? { CONTACT_JOB_CONCURRENCY: CONCURRENCY } : {}),
  };
  const localEnv = { ...base, TEMPORAL_TASK_QUEUE: `bench-jobs-local-${Date.now()}` };
  const httpEnv = {
    ...base,
    TEMPORAL_TASK_QUEUE: `bench-jobs-http-${Date.now()}`,
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: 'bench-provider-token',
  };
  const local = loadConfig(localEnv);
  const http = loadConfig(httpEnv);
  const deps = await openDeps(local);
  const seedStarted = performance.now();
  await seedPeople(deps.stores, { purposeKeys: deps.purposeKeys, count: PEOPLE, seed: SEED });
  process.stderr.write(`[bench] ${PEOPLE} people seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`);
  const personIds = Array.from({ length: PEOPLE }, (_, i) => personIdFor(deps.purposeKeys, SEED, i));
  process.stdout.write(`contact-retrieval jobs: chunk ${local.contactJobs.chunkSize}, ${local.contactJobs.concurrency} chunks in flight\n`);
  try {
    const figures = [await runOnce('local provider', deps, local, localEnv, personIds, storePid)];
    if (!process.env.BENCH_SKIP_HTTP) figures.push(await runOnce(`http provider ${LATENCY_MS} ms`, deps, http, httpEnv, personIds, storePid));
    return figures;
  } finally {
    await provider.close();
    await closeDeps(deps);
  }
}

runBench('jobs', measure);
