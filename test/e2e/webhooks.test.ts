import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { temporal } from '@temporalio/proto';
import { deliveryWorkflowId } from '../../core/webhooks/deliveryWorkflowContract';
import { systemDestinationLookup } from '../../core/outbound/destinationResolver';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { apiHonouringRateLimits as api } from '../support/http';
import { RECEIVER_HOST_NAME, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../support/httpsReceiver';
import { startTestApi, type TestApi } from '../support/testApi';
import { sharedSettings } from '../support/testConfig';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { eventually } from '../support/eventually';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';
import { emitFinishedJob } from '../support/webhookStack';

/**
 * Webhooks end to end: the real API over HTTP, a real worker on the dev Temporal server, and a
 * real HTTPS receiver on loopback trusted through WEBHOOK_EXTRA_CA_FILE. Verification is done
 * with the independent `standardwebhooks` package, as a customer's receiver would.
 */
let srv: TestApi;
let worker: TestWorker;
let receiver: HttpsReceiver;
/** What answers this file's API and worker's DNS lookups: the system, unless a test answers instead. */
let answering: LookupAll | undefined;
const destinationLookup: LookupAll = (host) => (answering ?? systemDestinationLookup)(host);

// Short schedule (RETRY_DELAYS_MS); the third gap is long enough to bring a receiver back up.
const DELAYS = '300,300,2000,300,300,300,300,300';
const counts = { requested: 2, delivered: 1, not_found: 1, failed: 0, reused: 0, cancelled: 0, pending: 0 };

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile, RETRY_DELAYS_MS: DELAYS }, undefined, {
    destinationLookup,
  });
  worker = await startTestWorker(srv.config, { destinationLookup });
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
  await receiver?.close();
});

async function registered(t: TestTenant, url: string): Promise<{ endpointId: string; secret: string }> {
  const res = await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url } });
  expect(res.status).toBe(201);
  return { endpointId: res.json.endpoint.endpoint_id, secret: res.json.secret };
}

function emit(t: TestTenant, tag: string) {
  return emitFinishedJob(srv, t, tag, counts);
}

const at = (path: string) => receiver.requests.filter((r) => r.path === path);
const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});
const EventType = temporal.api.enums.v1.EventType;
const attempts = async (eventId: string) =>
  (await srv.deps.stores.webhooks.deliveries.deliveriesOfEvent(eventId)).sort((a, b) => a.replay - b.replay || a.attempt - b.attempt);

test('an emitted event arrives and verifies with the standardwebhooks package, with old and new secret during rotation', async () => {
  const t = await createTenant();
  const { endpointId, secret: oldSecret } = await registered(t, `${receiver.url}/e2e/rotation`);
  const rot = await api(srv.url, 'POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { key: t.key, body: {} });
  expect(rot.status).toBe(200);
  const { eventId, deliveryStarted } = await emit(t, 'rot');
  expect(deliveryStarted).toBe(true);
  const [req] = await eventually('the POST', () => (at('/e2e/rotation').length ? at('/e2e/rotation') : undefined));
  expect(req.method).toBe('POST');
  expect(req.headers['content-type']).toBe('application/json');
  expect(req.headers['webhook-id']).toBe(eventId);
  expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
  const payload = { ...(new Webhook(oldSecret).verify(req.body, headersOf(req)) as object) } as any;
  expect(new Webhook(rot.json.secret).verify(req.body, headersOf(req))).toEqual(payload);
  expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(req.body, headersOf(req))).toThrow();
  expect(payload).toMatchObject({
    type: 'job.completed',
    id: eventId,
    data: { type: 'contact_retrieval', status: 'completed', counts, result_url: expect.stringMatching(/^\/v1\/job-results\/job_rot/) },
  });
  expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  const rows = await eventually('the record', async () => {
    const r = await attempts(eventId);
    return r[0]?.status === 'succeeded' ? r : undefined;
  });
  expect(rows).toHaveLength(1);
});

test('a receiver down for three attempts then up gets the identical body and webhook-id', async () => {
  const t = await createTenant();
  const own = await startHttpsReceiver();
  try {
    const { secret } = await registered(t, `${own.url}/e2e/down`);
    await own.down();
    const { eventId } = await emit(t, 'down');
    await eventually('three refused attempts', async () => {
      const rows = await attempts(eventId);
      return rows.filter((r) => r.status === 'failed').length >= 3 ? rows : undefined;
    });
    await own.up();
    const [req] = await own.waitForRequests(1);
    const rows = await eventually('success', async () => {
      const r = await attempts(eventId);
      return r.some((x) => x.status === 'succeeded') ? r : undefined;
    });
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'succeeded']);
    expect(rows.slice(0, 3).every((r) => r.errorCode === 'connection_refused')).toBe(true);
    expect(own.requests).toHaveLength(1);
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(req.body, headersOf(req))).toMatchObject({ id: eventId });
    // the body is the one fixed at first emission
    const stored = await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}`, { key: t.key });
    expect(stored.json.data).toHaveLength(4);
    expect(JSON.parse(req.body).timestamp).toBeDefined();
  } finally {
    await own.close();
  }
});

test('a redirect is a failed attempt and is never followed', async () => {
  const t = await createTenant();
  receiver.respond((req) => (req.path === '/e2e/redirect' ? { status: 302, headers: { Location: `${receiver.url}/e2e/elsewhere` } } : { status: 200 }));
  const { endpointId } = await registered(t, `${receiver.url}/e2e/redirect`);
  const { eventId } = await emit(t, 'redir');
  const first = await eventually('the first record', async () => {
    const r = await attempts(eventId);
    return r[0] && r[0].status !== 'pending' ? r[0] : undefined;
  });
  expect(first).toMatchObject({ status: 'failed', errorCode: 'redirect', responseStatus: 302 });
  await api(srv.url, 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: t.key, body: { state: 'disabled' } });
  // a disabled endpoint: later attempts send nothing and record endpoint_inactive
  const sent = at('/e2e/redirect').length;
  const inactive = await eventually('an endpoint_inactive attempt', async () => {
    const r = await attempts(eventId);
    return r.find((x) => x.errorCode === 'endpoint_inactive');
  });
  expect(inactive.status).toMatch(/failed|dead_lettered/);
  expect(at('/e2e/redirect').length).toBeLessThanOrEqual(sent + 1);
  // Checked once a later attempt has run (no fixed wait): the redirect was never followed.
  expect(at('/e2e/elsewhere')).toHaveLength(0);
  receiver.respond(() => ({ status: 200 }));
});

test('each attempt reads the endpoint afresh: a re-pointed endpoint gets the next attempt at its new URL', async () => {
  const t = await createTenant();
  receiver.respond((req) => (req.path === '/e2e/old' ? { status: 500 } : { status: 200 }));
  const { endpointId } = await registered(t, `${receiver.url}/e2e/old`);
  const { eventId } = await emit(t, 'repoint');
  await eventually('the failed first attempt', async () => {
    const r = await attempts(eventId);
    return r[0]?.status === 'failed' ? r : undefined;
  });
  const patched = await api(srv.url, 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: t.key, body: { url: `${receiver.url}/e2e/new` } });
  expect(patched.status).toBe(200);
  const [req] = await eventually('the POST at the new URL', () => (at('/e2e/new').length ? at('/e2e/new') : undefined));
  expect(req.headers['webhook-id']).toBe(eventId);
  expect(req.body).toBe(at('/e2e/old')[0].body);
  const rows = await eventually('success', async () => {
    const r = await attempts(eventId);
    return r.some((x) => x.status === 'succeeded') ? r : undefined;
  });
  expect(rows.map((r) => r.status)).toEqual(['failed', 'succeeded']);
});

test('DNS is checked on every attempt and the approved address is pinned', async () => {
  let answer = '93.184.216.34';
  const lookup: LookupAll = async (host) => {
    if (host === 'rebind.test') return [{ address: answer, family: 4 }];
    if (host === RECEIVER_HOST_NAME) return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  answering = lookup;
  try {
    // public at registration, private (metadata) at send time: refused at send time
    const t = await createTenant();
    await registered(t, `https://rebind.test:${receiver.port}/e2e/rebind`);
    answer = '169.254.169.254';
    const { eventId } = await emit(t, 'rebind');
    const first = await eventually('the first record', async () => {
      const r = await attempts(eventId);
      return r[0] && r[0].status !== 'pending' ? r[0] : undefined;
    });
    expect(first).toMatchObject({ status: 'failed', errorCode: 'destination_refused', responseStatus: null });
    expect(at('/e2e/rebind')).toHaveLength(0);

    // a name resolving to an allowed address: the request goes to that address, TLS verified for the name
    const u = await createTenant();
    await registered(u, `https://${RECEIVER_HOST_NAME}:${receiver.port}/e2e/pinned`);
    const pinned = await emit(u, 'pin');
    const [req] = await eventually('the pinned POST', () => (at('/e2e/pinned').length ? at('/e2e/pinned') : undefined));
    expect(req.headers.host).toBe(`${RECEIVER_HOST_NAME}:${receiver.port}`);
    expect(req.headers['webhook-id']).toBe(pinned.eventId);
  } finally {
    answering = undefined;
  }
});

/** A real worker process on the test's task queue, to be killed with SIGKILL. */
function spawnWorkerProcess(): ChildProcess {
  const c = srv.config;
  return spawn(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'test/e2e/webhooksWorkerProcess.ts'], {
    cwd: resolve(__dirname, '../..'),
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      MONGODB_URI: c.mongodbUri,
      TEMPORAL_ADDRESS: c.temporal.address,
      TEMPORAL_TASK_QUEUE: c.temporal.taskQueue,
      SECRETS_ENCRYPTION_KEY: c.secretsKey.toString('base64'),
      ...sharedSettings(c),
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
      RETRY_DELAYS_MS: DELAYS,
      TEST_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE,
    },
  });
}

// A process start and a sticky-queue hand-over take a while on a busy 2-core machine.
test('a worker killed between attempts loses nothing', async () => {
  const t = await createTenant();
  let calls = 0;
  receiver.respond((req) => {
    if (req.path !== '/e2e/restart') return { status: 200 };
    calls += 1;
    return calls === 1 ? { status: 503 } : { status: 200 };
  });
  const { secret } = await registered(t, `${receiver.url}/e2e/restart`);
  // Only the worker process serves the queue for the first attempt.
  await worker.stop();
  const child = spawnWorkerProcess();
  const exited = new Promise<NodeJS.Signals | null>((res) => child.once('exit', (_code, signal) => res(signal)));
  try {
    const { eventId } = await emit(t, 'restart');
    await eventually(
      'the failed first attempt',
      async () => {
        const r = await attempts(eventId);
        return r[0]?.status === 'failed' ? r : undefined;
      },
      { timeoutMs: 120_000 },
    );
    // Between attempts: the workflow has started its 300 ms retry timer.
    const client = await srv.deps.temporal.client();
    const history = client.workflow.getHandle(deliveryWorkflowId(eventId));
    const recorded = async (type: temporal.api.enums.v1.EventType) => ((await history.fetchHistory()).events ?? []).some((e) => e.eventType === type);
    await eventually('the retry timer to start', () => recorded(EventType.EVENT_TYPE_TIMER_STARTED), { timeoutMs: 120_000 });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // The timer comes due while no worker runs (the server records it), and nothing is sent.
    await eventually('the retry timer to fire while no worker runs', () => recorded(EventType.EVENT_TYPE_TIMER_FIRED), { timeoutMs: 30_000 });
    expect(at('/e2e/restart')).toHaveLength(1);
    worker = await startTestWorker(srv.config, { destinationLookup });
    const rows = await eventually(
      'the second attempt',
      async () => {
        const r = await attempts(eventId);
        return r[1]?.status === 'succeeded' ? r : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(rows.map((r) => r.attempt)).toEqual([1, 2]);
    const sent = at('/e2e/restart');
    expect(sent).toHaveLength(2);
    expect(sent[1].body).toBe(sent[0].body);
    expect(sent[1].headers['webhook-id']).toBe(eventId);
    expect(new Webhook(secret).verify(sent[1].body, headersOf(sent[1]))).toMatchObject({ id: eventId });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (worker.worker.getState() !== 'RUNNING') worker = await startTestWorker(srv.config, { destinationLookup });
  }
}, 300_000);

test("a finished job's event arrives", async () => {
  const t = await createTenant({ credits: 100 });
  const { secret } = await registered(t, `${receiver.url}/e2e/job`);
  await insertTestPeople(srv.deps.stores, ['per_webhookE2E000001A', 'per_webhookE2E000002A']);
  const job = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: t.key,
    body: { person_ids: ['per_webhookE2E000001A', 'per_webhookE2E000002A'], fields: ['email'] },
    idempotencyKey: `webhook-e2e-${Date.now()}`,
  });
  expect(job.status).toBe(202);
  const [req] = await eventually('the job.completed POST', () => (at('/e2e/job').length ? at('/e2e/job') : undefined), { timeoutMs: 60_000 });
  const event = new Webhook(secret).verify(req.body, headersOf(req)) as any;
  expect(event).toMatchObject({
    type: 'job.completed',
    data: { job_id: job.json.job_id, type: 'contact_retrieval', result_url: `/v1/job-results/${job.json.job_id}` },
  });
  expect(['completed', 'partial', 'failed']).toContain(event.data.status);
  expect(Object.keys(event.data.counts).sort()).toEqual(['cancelled', 'delivered', 'failed', 'not_found', 'pending', 'requested', 'reused']);
  expect(req.body).not.toMatch(/per_webhookE2E/);
  const result = await api(srv.url, 'GET', event.data.result_url, { key: t.key });
  expect(result.status).toBe(200);
  expect(result.json.job_id).toBe(job.json.job_id);
});
