import { creditBalance } from '../../core/credits/credits';
import { eventually } from '../support/eventually';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';

/**
 * Temporal unreachable (the API reaches it through a proxy that goes down as a dying server
 * does: its connections closed, new ones refused): a job is accepted from the store at once, a
 * cancel is recorded, and once Temporal is back the workflow starter starts both workflows
 * within seconds; the jobs end with an exact ledger.
 */
let temporal: TcpProxy;
let srv: TestApi;
let worker: TestWorker | undefined;
let tenant: TestTenant;

const people = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => `per_tout${tag}${Date.now().toString(36)}${String(i).padStart(4, '0')}A`);

async function createJob(personIds: string[]) {
  await insertTestPeople(srv.deps.stores, personIds);
  const t0 = Date.now();
  const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: tenant.key,
    body: { person_ids: personIds, fields: ['email'] },
    idempotencyKey: `idem-${personIds[0]}`,
  });
  return { res, ms: Date.now() - t0 };
}

async function jobCharged(jobId: string): Promise<number> {
  const entries = await srv.deps.stores.credits.ledgerEntriesUnderChargeKeyPrefix(`job:${jobId}:`);
  return entries.reduce((s, e) => s + Math.abs(e.amount), 0);
}

beforeAll(async () => {
  temporal = await startTcpProxy(process.env.TEST_TEMPORAL_ADDRESS!);
  srv = await startTestApi({
    TEMPORAL_ADDRESS: temporal.address,
    // A request that waited for Temporal would answer after the connection's timeout (1 s); one
    // that answers from the store after its short start wait leaves the rest of that second to a
    // busy machine.
    TEMPORAL_CONNECT_TIMEOUT_MS: '1000',
    TEMPORAL_START_WAIT_MS: '100',
    WORKFLOW_STARTER_INTERVAL_MS: '200',
  });
  tenant = await createTenant({ credits: 1000 });
  await temporal.down();
});

afterAll(async () => {
  await worker?.stop();
  await srv?.close();
  await temporal?.close();
});

test('jobs created and cancelled while Temporal is down are accepted at once and carried out after its return', async () => {
  const before = await creditBalance(srv.deps, tenant.orgId);
  const first = await createJob(people(12, 'a'));
  expect({ status: first.res.status, fast: first.ms < 1000 }).toEqual({ status: 202, fast: true });
  const second = await createJob(people(5, 'b'));
  expect({ status: second.res.status, fast: second.ms < 1000 }).toEqual({ status: 202, fast: true });
  const jobId = first.res.json.job_id as string;
  const cancelledId = second.res.json.job_id as string;

  const t0 = Date.now();
  const cancel = await api(srv.url, 'POST', `/v1/contact-retrieval-jobs/${cancelledId}/cancel`, {
    key: tenant.key,
    idempotencyKey: `idem-cancel-${cancelledId}`,
  });
  expect({ status: cancel.status, fast: Date.now() - t0 < 1000 }).toEqual({ status: 202, fast: true });

  // Recorded, not started: nothing reached Temporal.
  const recorded = await srv.deps.stores.jobs.jobsByIds([jobId, cancelledId]);
  expect(recorded.map((j) => [j.status, j.outboxDue, j.workflowStartedAt])).toEqual([
    ['running', true, null],
    ['running', true, null],
  ]);
  expect((await srv.deps.stores.jobs.findJob({ _id: cancelledId }))!.cancelPending).toBe(true);

  // A worker first, on Temporal's own address (its start, which loads the workflow bundle, is not
  // what is timed), then Temporal comes back for the API on the same address.
  worker = await startTestWorker({ ...srv.config, temporal: { ...srv.config.temporal, address: process.env.TEST_TEMPORAL_ADDRESS! } });
  await temporal.up();
  const back = Date.now();

  const started = await eventually(
    'both workflows to be started from the store',
    async () => {
      const docs = await srv.deps.stores.jobs.jobsByIds([jobId, cancelledId]);
      return docs.every((d) => d.workflowStartedAt) ? docs : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  for (const d of started) expect(d.workflowStartedAt!.getTime() - back).toBeLessThan(5_000);

  const done = await eventually(
    'both jobs to finish',
    async () => {
      const docs = await srv.deps.stores.jobs.jobsByIds([jobId, cancelledId]);
      return docs.every((d) => d.status !== 'running') ? new Map(docs.map((d) => [d._id, d])) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  const job = done.get(jobId)!;
  const cancelled = done.get(cancelledId)!;
  expect(job.status).toBe('completed');
  expect(job.counts!.pending).toBe(0);
  expect(job.counts!.delivered + job.counts!.not_found + job.counts!.failed).toBe(12);
  expect(cancelled.status).toBe('cancelled');
  expect(cancelled.counts).toMatchObject({ cancelled: 5, delivered: 0 });
  expect(cancelled.outboxDue).toBe(false);

  // The ledger: every delivered person charged once, with a receipt; nothing for the cancelled job.
  const receipts = (await srv.deps.stores.jobs.itemsOfJob(jobId)).filter((i) => i.outcome === 'delivered' && i.receiptId != null).length;
  expect({ charged: await jobCharged(jobId), receipts, cancelledCharged: await jobCharged(cancelledId) }).toEqual({
    charged: job.counts!.delivered,
    receipts: job.counts!.delivered,
    cancelledCharged: 0,
  });
  expect(await creditBalance(srv.deps, tenant.orgId)).toBe(before - job.counts!.delivered);
});
