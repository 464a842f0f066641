import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { creditBalance } from '../../core/credits/credits';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { createTenant, insertTestPeople } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { sharedSettings } from '../support/testConfig';
import { eventually } from '../support/eventually';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';

/**
 * A worker killed mid-job (SIGKILL: no draining) and a new one started: the job finishes with
 * every count right and every delivered record charged exactly once.
 */
const root = join(__dirname, '..', '..');
const TOKEN = 'restart-provider-token';
let provider: ContactProviderServer;
let srv: TestApi;
const children: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'worker/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      MONGODB_URI: srv.config.mongodbUri,
      TEMPORAL_ADDRESS: srv.config.temporal.address,
      TEMPORAL_TASK_QUEUE: srv.config.temporal.taskQueue,
      SECRETS_ENCRYPTION_KEY: srv.config.secretsKey.toString('base64'),
      ...sharedSettings(srv.config),
      CONTACT_PROVIDER: 'http',
      CONTACT_PROVIDER_URL: provider.url,
      CONTACT_PROVIDER_TOKEN: TOKEN,
      CONTACT_PROVIDER_TIMEOUT_MS: '2000',
      // The bundle the global set-up built: each process skips the seconds of webpack it would spend.
      WORKER_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE!,
      // The job's workflow goes on at the new worker a second after the killed one stopped answering.
      WORKER_STICKY_QUEUE_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', () => undefined);
  children.push(child);
  return child;
}

beforeAll(async () => {
  provider = await startContactProviderServer({ token: TOKEN, latencyMs: 250 });
  srv = await startTestApi({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: TOKEN,
    CONTACT_PROVIDER_TIMEOUT_MS: '2000',
    CONTACT_JOB_CHUNK_SIZE: '5',
    CONTACT_JOB_CONCURRENCY: '2',
    // What the killed worker held goes to the new one once these pass: the chunks it ran (no
    // heartbeat) and the workflow task it had taken, if the kill came in the middle of one.
    CONTACT_JOB_HEARTBEAT_TIMEOUT_MS: '3000',
    CONTACT_JOB_WORKFLOW_TASK_TIMEOUT_MS: '2000',
  });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await srv?.close();
  await provider?.close();
});

async function settled(jobId: string): Promise<number> {
  return (await srv.deps.stores.jobs.itemsOfJob(jobId)).filter((i) => i.outcome !== 'pending').length;
}

test('a worker killed mid-job and restarted finishes the job with every count right and no double charge', async () => {
  const t = await createTenant({ credits: 500 });
  const people = Array.from({ length: 80 }, (_, i) => `per_restart${String(i).padStart(6, '0')}`);
  await insertTestPeople(srv.deps.stores, people);
  const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: t.key, body: { person_ids: people }, idempotencyKey: `restart-${Date.now()}` });
  expect(res.status).toBe(202);
  const jobId = res.json.job_id as string;

  const first = startWorkerProcess();
  await eventually('the first worker to settle ten people', async () => (await settled(jobId)) >= 10, { timeoutMs: 60_000 });
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const atKill = await settled(jobId);
  expect(atKill).toBeLessThan(80);
  expect((await srv.deps.stores.jobs.findJob({ _id: jobId }))!.status).toBe('running');
  // A running job's counts come from its finished chunks: never more than was settled.
  const running = await api(srv.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: t.key });
  const k = running.json.counts;
  expect(k.delivered + k.not_found + k.failed + k.reused + k.cancelled + k.pending).toBe(80);
  expect(k.delivered + k.not_found).toBeLessThanOrEqual(atKill);

  startWorkerProcess();
  await eventually('the job to finish after the restart', async () => (await srv.deps.stores.jobs.findJob({ _id: jobId }))!.status !== 'running', {
    timeoutMs: 60_000,
    intervalMs: 200,
  });

  const job = (await srv.deps.stores.jobs.findJob({ _id: jobId }))!;
  const expectedFound = people.filter((p) => providerAnswerFor(p).status === 'found').length;
  expect(job.status).toBe('completed');
  expect(job.counts).toEqual({ requested: 80, delivered: expectedFound, not_found: 80 - expectedFound, failed: 0, reused: 0, cancelled: 0, pending: 0 });
  // One charge per chunk, each paying exactly the records it delivered, whatever was retried.
  const charges = await srv.deps.stores.credits.ledgerEntriesUnderChargeKeyPrefix(`job:${jobId}:`);
  expect(charges.reduce((s, c) => s + c.amount, 0)).toBe(expectedFound);
  expect(new Set(charges.map((c) => c.chargeKey)).size).toBe(charges.length);
  expect(await creditBalance(srv.deps, t.orgId)).toBe(500 - expectedFound);
  const delivered = (await srv.deps.stores.jobs.itemsOfJob(jobId)).filter((i) => i.outcome === 'delivered');
  expect(delivered).toHaveLength(expectedFound);
  const paid = new Map(charges.map((c) => [c.receiptId, c.amount]));
  const deliveredPerReceipt = new Map<string, number>();
  for (const d of delivered) deliveredPerReceipt.set(d.receiptId!, (deliveredPerReceipt.get(d.receiptId!) ?? 0) + 1);
  for (const [receipt, n] of deliveredPerReceipt) expect(paid.get(receipt)).toBe(n);
});
