import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createActivities } from '../../activities';
import type { Config } from '../../core/config';
import { charge, creditBalance } from '../../core/credits/credits';
import { createContactRetrievalJob, type JobStarter } from '../../core/jobs/contactRetrievalJobs';
import { readJobResult } from '../../core/jobs/jobResults';
import { contactRetrievalWorkflowId, RESULT_PURGE_AFTER_MS, RESULT_RETENTION_MS, resultRetentionWorkflowId } from '../../core/jobs/jobRules';
import { jobSlotHolders } from '../../core/jobs/jobSlots';
import { startContactRetrievalWorkflowWith } from '../../core/jobs/jobWorkflows';
import { openTestStore, type TestStore } from '../support/testStore';
import { SA } from '../../core/temporal/searchAttributes';
import { createTemporalClients, type TemporalClients } from '../../core/temporal/client';
import { personIdFor } from '../../scripts/seeding/generator';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, keyPrincipalOf, type TestTenant } from '../support/fixtures';
import { testConfig, uniqueName } from '../support/testConfig';
import { eventually } from '../support/eventually';
import { startBundleWorker, startTimeSkipping, type RunningWorker } from '../support/timeSkipping';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

/**
 * The contact-retrieval workflow on the time-skipping test server, with the real activities
 * against the real store and the built-in `local` provider over seeded people: every final
 * status, the 24 h expiry and the 7-day retention.
 */
const SEED = 'wf-test';
let env: TestWorkflowEnvironment;
/**
 * A client that never unlocks time skipping. Waiting on a job through `env.client` lets the
 * test server jump to the next timer as soon as the job is done: a retention timer of an
 * earlier job, or this job's own 7-day one, which would strip the result before the test
 * reads it. Only the test of the 24 h deadline waits through `env.client`.
 */
let realTime: Client;
let config: Config;
let store: TestStore;
/** The activities' Temporal clients, which a job's `job.completed` emission takes its client from. */
let temporal: TemporalClients;
let found: string[];
let missing: string[];
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  config = testConfig({ CONTACT_JOB_CHUNK_SIZE: '4', CONTACT_JOB_CONCURRENCY: '2' });
  store = await openTestStore(config);
  temporal = createTemporalClients(config);
  const purposeKeys = purposeKeysOf(config);
  await seedPeople(store.stores, { purposeKeys, count: 80, seed: SEED });
  // Jobs accept only people of sources the organization may use: the built-in one here.
  const seeded = Array.from({ length: 80 }, (_, i) => personIdFor(purposeKeys, SEED, i));
  const builtIn = new Set([...(await store.stores.talent.sourcesOfPeople(seeded))].filter(([, source]) => source === BUILT_IN_SOURCE_ID).map(([id]) => id));
  const all = seeded.filter((p) => builtIn.has(p));
  const withContacts = await store.stores.talent.personIdsWithProviderContacts(all);
  found = all.filter((p) => withContacts.has(p));
  missing = all.filter((p) => !withContacts.has(p));
  expect(found.length).toBeGreaterThan(33);
  expect(missing.length).toBeGreaterThan(0);
  env = await startTimeSkipping();
  realTime = new Client({ connection: env.connection, namespace: env.namespace });
  await startWorker(queues.main);
  // The chunk step fails as if our store were down: it is retried (with backoff) until the deadline.
  await startWorker(queues.outage, {
    processContactChunk: async () => {
      outageAttempts++;
      throw new Error('store unavailable');
    },
  });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await env?.teardown();
  await temporal?.close();
  await store.close();
});

/**
 * Two workers for the whole file, kept running: each finished job leaves a retention workflow
 * on its queue, and the test server only skips time while no workflow task is left waiting.
 */
const workers: RunningWorker[] = [];
const queues = { main: uniqueName('wf'), outage: uniqueName('wf-outage') };
let outageAttempts = 0;

async function startWorker(taskQueue: string, override: Record<string, unknown> = {}) {
  workers.push(
    await startBundleWorker(env, taskQueue, { ...createActivities(createDeps(config, { temporal, logger: testLogger(), store: store.handle })), ...override }),
  );
}

async function withWorker<T>(fn: (taskQueue: string) => Promise<T>, queue: keyof typeof queues = 'main'): Promise<T> {
  return fn(queues[queue]);
}

function starter(taskQueue: string, opts: { cancelAtStart?: boolean } = {}): JobStarter {
  return { start: (input) => startContactRetrievalWorkflowWith(env.client, taskQueue, input, opts), running: async () => true };
}

/**
 * Dependencies whose clock is the test server's: a job counts its 24 h deadline from its
 * acceptance, and once a test has skipped time, the wall clock is that much behind the
 * workflow's (a job accepted on it would be past its deadline as it starts). The server's clock
 * runs at the wall clock's pace while no skipping client waits.
 */
async function onServerClock() {
  const ahead = (await env.currentTimeMs()) - Date.now();
  return createDeps(config, { logger: testLogger(), now: () => Date.now() + ahead, store: store.handle });
}

async function runJob(t: TestTenant, personIds: string[], taskQueue: string, opts: { cancelAtStart?: boolean; skipTime?: boolean } = {}) {
  const view = await createContactRetrievalJob(
    await onServerClock(),
    { principal: keyPrincipalOf(t), personIds, fields: ['email', 'phone'] },
    starter(taskQueue, opts),
  );
  const handle = (opts.skipTime ? env.client : realTime).workflow.getHandle(contactRetrievalWorkflowId(view.job_id));
  const finished = await handle.result();
  return { jobId: view.job_id, finished, handle };
}

async function expectSettled(t: TestTenant, jobId: string) {
  const job = (await store.stores.jobs.findJob({ _id: jobId }))!;
  const c = job.counts!;
  expect(c.delivered! + c.not_found! + c.failed! + c.reused! + c.cancelled! + c.pending!).toBe(c.requested);
  expect(c.pending).toBe(0);
  expect((await store.stores.jobs.itemsOfJob(jobId)).filter((i) => i.outcome === 'pending')).toHaveLength(0);
  expect((await jobSlotHolders(store.stores, t.orgId)).map((h) => h.jobId)).not.toContain(jobId);
  expect(await jobCharged(jobId)).toBe(c.delivered);
  return job;
}

test('completed: delivered and not_found people, search attributes for operators, retention scheduled', async () => {
  const t = await createTenant({ credits: 100 });
  const people = [...found.slice(0, 9), ...missing.slice(0, 2)];
  await withWorker(async (tq) => {
    const { jobId, finished, handle } = await runJob(t, people, tq);
    expect(finished).toMatchObject({ status: 'completed', counts: { requested: 11, delivered: 9, not_found: 2, failed: 0 } });
    expect(finished.resultExpiresAt).not.toBeNull();
    await expectSettled(t, jobId);
    expect(await creditBalance({ stores: store.stores, now: Date.now }, t.orgId)).toBe(91);
    const d = await handle.describe();
    expect(d.typedSearchAttributes.get(SA.jobStatus)).toBe('completed');
    expect(d.typedSearchAttributes.get(SA.orgId)).toBe(t.orgId);
    expect(d.typedSearchAttributes.get(SA.workspaceId)).toBe(t.workspaceId);
    expect(d.typedSearchAttributes.get(SA.jobId)).toBe(jobId);
    const retention = await env.client.workflow.getHandle(resultRetentionWorkflowId(jobId)).describe();
    expect(retention.status.name).toBe('RUNNING');
  });
});

test('partial: credits run out mid-job, the rest fail with insufficient_credits and nothing more is charged', async () => {
  const t = await createTenant({ credits: 6 });
  await withWorker(async (tq) => {
    const { jobId, finished } = await runJob(t, found.slice(0, 16), tq);
    expect(finished.status).toBe('partial');
    expect(finished.counts).toMatchObject({ requested: 16, delivered: 6, failed: 10 });
    await expectSettled(t, jobId);
    expect(await creditBalance({ stores: store.stores, now: Date.now }, t.orgId)).toBe(0);
    expect((await store.stores.jobs.itemsOfJob(jobId)).filter((i) => i.outcome === 'failed' && i.reason === 'insufficient_credits')).toHaveLength(10);
  });
});

test('failed: nobody could be processed; the job carries no result', async () => {
  const t = await createTenant({ credits: 1 });
  await withWorker(async (tq) => {
    const start = starter(tq);
    const view = await createContactRetrievalJob(
      await onServerClock(),
      { principal: keyPrincipalOf(t), personIds: found.slice(20, 26), fields: ['email'] },
      {
        ...start,
        start: async (input) => {
          // The credit goes elsewhere between acceptance and the first charge.
          await charge(
            { stores: store.stores, now: Date.now },
            { orgId: t.orgId, familyId: t.familyId, amount: 1, operation: 'test.spend', chargeKey: `spend:${t.orgId}` },
          );
          await start.start(input);
        },
      },
    );
    const finished = await realTime.workflow.getHandle(contactRetrievalWorkflowId(view.job_id)).result();
    expect(finished).toMatchObject({ status: 'failed', counts: { requested: 6, failed: 6, delivered: 0 }, resultExpiresAt: null });
    await expectSettled(t, view.job_id);
  });
});

test('cancelled: people not yet processed become cancelled', async () => {
  const t = await createTenant({ credits: 100 });
  await withWorker(async (tq) => {
    const { jobId, finished } = await runJob(t, found.slice(0, 8), tq, { cancelAtStart: true });
    expect(finished).toMatchObject({ status: 'cancelled', counts: { requested: 8, cancelled: 8, delivered: 0 }, resultExpiresAt: null });
    await expectSettled(t, jobId);
    expect(await creditBalance({ stores: store.stores, now: Date.now }, t.orgId)).toBe(100);
  });
});

test('expired: a job not finished within 24 h expires through its durable timer', async () => {
  const t = await createTenant({ credits: 100 });
  await withWorker(async (tq) => {
    const before = await env.currentTimeMs();
    const { jobId, finished, handle } = await runJob(t, found.slice(0, 4), tq, { skipTime: true });
    expect(finished).toMatchObject({ status: 'expired', counts: { requested: 4, failed: 4, delivered: 0 }, resultExpiresAt: null });
    expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(DAY);
    expect(outageAttempts).toBeGreaterThan(10);
    expect((await store.stores.jobs.itemsOfJob(jobId)).filter((i) => i.reason === 'job_expired')).toHaveLength(4);
    await expectSettled(t, jobId);
    expect((await handle.describe()).typedSearchAttributes.get(SA.jobStatus)).toBe('expired');
  }, 'outage');
});

test('retention: readable for 7 days, then 409 with the contacts removed, then 410 once purged with the reuse cache', async () => {
  const t = await createTenant({ credits: 100 });
  await withWorker(async (tq) => {
    const { jobId, finished } = await runJob(t, found.slice(30, 33), tq);
    expect(finished).toMatchObject({ status: 'completed', counts: { requested: 3, delivered: 3 } });
    const p = keyPrincipalOf(t);
    const page = await readJobResult(store.stores, purposeKeysOf(config), p, jobId, { limit: 10 }, new Date());
    expect(page.items.map((i) => ({ outcome: i.outcome, reason: i.reason, hasEmail: (i.contacts?.emails.length ?? 0) > 0 }))).toEqual(
      new Array(3).fill({ outcome: 'delivered', reason: null, hasEmail: true }),
    );
    const cached = found.slice(30, 33);
    expect(await store.stores.jobs.retrievedContactsSince(t.orgId, cached, new Date(0))).toHaveLength(3);

    await env.sleep(7 * DAY + 60_000);
    await eventually('the result to expire', async () => !!(await store.stores.jobs.findJob({ _id: jobId }))!.resultExpiredAt, { timeoutMs: 20_000 });
    await expect(readJobResult(store.stores, purposeKeysOf(config), p, jobId, { limit: 10 }, new Date())).rejects.toMatchObject({
      code: 'result_set_expired',
      status: 409,
    });
    const stripped = await store.stores.jobs.itemsOfJob(jobId);
    expect(stripped).toHaveLength(3);
    expect(stripped.every((i) => !i.emails?.length && !i.phones?.length)).toBe(true);

    // The schedule's second step, read from its history rather than skipped to: the test server
    // can stay locked in real time (a minute or more per step) once it has skipped this far, and
    // waiting on an abandoned child's result through the skipping client can hang for good.
    const retention = realTime.workflow.getHandle(resultRetentionWorkflowId(jobId));
    const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + Math.round((t?.nanos ?? 0) / 1e6);
    const firesAt = await eventually('the timer to the purge', async () => {
      const events = (await retention.fetchHistory()).events ?? [];
      const timers = events.flatMap((e) => (e.timerStartedEventAttributes ? [ms(e.eventTime) + ms(e.timerStartedEventAttributes.startToFireTimeout)] : []));
      return timers.length === 2 ? timers : undefined;
    });
    // Each timer fires at its mark counted from the job's completion, whenever it was started.
    const completedAt = Date.parse(finished.completedAt);
    expect(Math.abs(firesAt[0] - (completedAt + RESULT_RETENTION_MS))).toBeLessThan(60_000);
    expect(Math.abs(firesAt[1] - (completedAt + RESULT_PURGE_AFTER_MS))).toBeLessThan(60_000);
    // What the timer then runs: the purge activity, run here as the workflow would.
    await createActivities(createDeps(config, { temporal, logger: testLogger(), store: store.handle })).purgeContactRetrievalResult({ jobId });
    await retention.terminate('the purge ran in the test');
    await expect(readJobResult(store.stores, purposeKeysOf(config), p, jobId, { limit: 10 }, new Date())).rejects.toMatchObject({
      code: 'result_gone',
      status: 410,
    });
    expect(await store.stores.jobs.itemsOfJob(jobId)).toHaveLength(0);
    // The 30-day reuse cache of what this job retrieved goes with it.
    expect(await store.stores.jobs.retrievedContactsSince(t.orgId, cached, new Date(0))).toHaveLength(0);
  });
});

/** Credits charged for a job: the sum of its chunk charges (one ledger entry per chunk). */
async function jobCharged(jobId: string): Promise<number> {
  const entries = await store.stores.credits.ledgerEntriesUnderChargeKeyPrefix(`job:${jobId}:`);
  return entries.reduce((s, e) => s + e.amount, 0);
}
