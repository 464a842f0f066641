import { contactRetrievalWorkflowId } from '../../core/jobs/jobRules';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { startMetricsServer } from '../../worker/metricsServer';
import { eventually } from '../support/eventually';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';

/**
 * An operator follows a job from the worker's logs and metrics: one line per job state change
 * and per delivery attempt, each with the ids to search by, and the worker's /metrics endpoint
 * with jobs by status, attempts by outcome and their duration, dead letters and the credits
 * jobs charged.
 */
let srv: TestApi;
let worker: TestWorker;
let receiver: HttpsReceiver;
let tenant: TestTenant;
let metrics: Awaited<ReturnType<typeof startMetricsServer>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile });
  worker = await startTestWorker(srv.config);
  metrics = await startMetricsServer(srv.config, 0);
  tenant = await createTenant({ credits: 100 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 20 });
});
afterAll(async () => {
  await metrics?.close();
  await worker?.stop();
  await srv?.close();
  await receiver?.close();
});

type Line = Record<string, any>;
const logLines = (): Line[] => ((globalThis as { __testLogs?: string[] }).__testLogs ?? []).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);

test('a job and its delivery, followed by their ids in the log lines and counted in the worker metrics', async () => {
  expect((await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: tenant.key, body: { url: `${receiver.url}/hooks` } })).status).toBe(201);
  const people = await srv.deps.stores.talent.personIdsOfSourceAfter(BUILT_IN_SOURCE_ID, '', 3);
  const created = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: tenant.key,
    body: { person_ids: people },
    idempotencyKey: 'observe-job-0001',
  });
  expect(created.status).toBe(202);
  const jobId = created.json.job_id as string;
  const workflowId = contactRetrievalWorkflowId(jobId);

  const attempt = await eventually('the delivery attempt line', async () => logLines().find((l) => l.msg === 'webhook delivery attempt' && l.job_id === jobId));
  const ofJob = logLines().filter((l) => l.job_id === jobId);
  const started = ofJob.filter((l) => l.msg === 'job started');
  const finished = ofJob.filter((l) => l.msg === 'job finished');
  const emitted = ofJob.filter((l) => l.msg === 'job.completed emitted');
  expect(started).toEqual([expect.objectContaining({ job_id: jobId, org_id: tenant.orgId, workflow_id: workflowId, status: 'running' })]);
  expect(finished).toEqual([
    expect.objectContaining({
      job_id: jobId,
      org_id: tenant.orgId,
      workflow_id: workflowId,
      status: 'completed',
      counts: expect.objectContaining({ requested: 3 }),
    }),
  ]);
  expect(emitted).toEqual([
    expect.objectContaining({ job_id: jobId, org_id: tenant.orgId, workflow_id: workflowId, event_id: expect.stringMatching(/^evt_/) }),
  ]);
  expect(attempt).toMatchObject({
    event_id: emitted[0].event_id,
    delivery_id: expect.any(String),
    org_id: tenant.orgId,
    workflow_id: expect.stringContaining(emitted[0].event_id),
    attempt: 1,
    outcome: 'succeeded',
    response_status: 200,
  });
  // A state change is one line: started, finished and emitted appear once each, in that order.
  const order = ofJob.map((l) => l.msg).filter((m) => ['job started', 'job finished', 'job.completed emitted'].includes(m));
  expect(order).toEqual(['job started', 'job finished', 'job.completed emitted']);

  const res = await fetch(`http://${srv.config.host}:${metrics.port}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/^contact_jobs_started_total \d+/m);
  expect(text).toMatch(/^contact_jobs_finished_total\{status="completed"\} [1-9]/m);
  expect(text).toMatch(/^webhook_delivery_attempts_total\{outcome="succeeded",error_code=""\} [1-9]/m);
  expect(text).toMatch(/^webhook_delivery_attempt_duration_seconds_count\{outcome="succeeded"\} [1-9]/m);
  expect(text).toMatch(/^webhook_dead_letters_total 0/m);
  expect(text).toMatch(/^credits_charged_total\{operation="contact_retrieval_jobs.create"\} [1-9]/m);
  expect((await fetch(`http://${srv.config.host}:${metrics.port}/other`)).status).toBe(404);
});
