import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDeliveryActivities } from '../../activities/deliveries';
import type { Config } from '../../core/config';
import { deliveryWorkflowId } from '../../core/webhooks/deliveryWorkflowContract';
import { requestReplay } from '../../core/webhooks/replays';
import { maxJitterMs, SPEC_RETRY_DELAYS_MS } from '../../core/webhooks/retrySchedule';
import { verifySignature } from '../../core/webhooks/signPayload';
import { emitJobCompletedWith } from '../../core/webhooks/webhookEvents';
import { registerEndpoint, retireEndpoint, rotateSecret } from '../../core/webhooks/webhookEndpoints';
import { systemDestinationLookup } from '../../core/outbound/destinationResolver';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { testConfig } from '../support/testConfig';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTenant, type TestTenant } from '../support/fixtures';
import { installTestRuntime } from '../support/testRuntime';
import { testLogger } from '../support/capturedLogs';
import { createDeps } from '../../core/deps';
import { OutboundConnections } from '../../core/outbound/outboundConnections';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

/**
 * The delivery workflow on the time-skipping server, with the full spec schedule (no
 * override), real activities, the real store and a real HTTPS receiver: 21 hours of retries
 * run in seconds, and every attempt's due time is read back from its delivery record.
 */
let testStore: TestStore;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let config: Config;
let receiver: HttpsReceiver;
const outbound = new OutboundConnections();

const counts = { requested: 2, delivered: 1, not_found: 1, failed: 0, reused: 0, cancelled: 0, pending: 0 };
const envNow = async () => new Date(await env.currentTimeMs());

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  config = testConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile });
  testStore = await openTestStore(config);
  installTestRuntime();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.TEST_TEMPORAL_TEST_SERVER! } },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    // Attempts see the test server's clock: signature timestamps and secret windows skip with it.
    activities: createDeliveryActivities(createDeps(config, { logger: testLogger(config.logLevel), store: testStore.handle, outbound }), {
      attemptTime: envNow,
    }),
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await receiver?.close();
  outbound.close();
  await testStore.close();
});

async function tenantWithEndpoint(): Promise<{ tenant: TestTenant; endpointId: string; secret: string }> {
  const tenant = await createTenant();
  const reg = await registerEndpoint(
    testStore.stores,
    tenant,
    `${receiver.url}/hook/${tenant.workspaceId}`,
    {
      lookupAll: systemDestinationLookup,
      allowedCidrs: config.webhooks.allowedCidrs,
      purposeKeys: purposeKeysOf(config),
    },
    new Date(),
  );
  return { tenant, endpointId: reg.endpoint.endpoint_id, secret: reg.secret };
}

async function emit(tenant: TestTenant, jobId: string) {
  return emitJobCompletedWith(
    {
      stores: testStore.stores,
      client: env.client,
      idKey: config.secretsKey,
      taskQueue: config.temporal.taskQueue,
      searchAttributes: false,
      now: () => new Date(),
    },
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      jobId,
      status: 'partial',
      counts,
      resultExpiresAt: new Date(Date.now() + 7 * 86400_000),
      completedAt: new Date(),
    },
  );
}

const forWorkspace = (tenant: TestTenant) => receiver.requests.filter((r) => r.path.endsWith(tenant.workspaceId));
const records = async (eventId: string) =>
  (await testStore.stores.webhooks.deliveries.deliveriesOfEvent(eventId)).sort((a, b) => a.replay - b.replay || a.attempt - b.attempt);

test('an always-failing receiver gets exactly nine attempts on the spec schedule, then dead-letter', async () => {
  const { tenant, secret } = await tenantWithEndpoint();
  receiver.respond((req) => (req.path.endsWith(tenant.workspaceId) ? { status: 500 } : { status: 200 }));
  const { eventId, deliveryStarted } = await emit(tenant, `job_fail_${Date.now()}`);
  expect(deliveryStarted).toBe(true);
  const handle = env.client.workflow.getHandle(deliveryWorkflowId(eventId));
  // Past the 21 hours of retries but inside the 7-day replay window.
  await env.sleep(24 * 3600_000);

  const got = forWorkspace(tenant);
  expect(got).toHaveLength(9);
  const rows = await records(eventId);
  expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(rows.map((r) => r.status)).toEqual([...Array(8).fill('failed'), 'dead_lettered']);
  expect(rows.every((r) => r.errorCode === 'http_status' && r.responseStatus === 500)).toBe(true);
  for (let i = 1; i < rows.length; i++) {
    const gap = rows[i].scheduledAt.getTime() - rows[i - 1].scheduledAt.getTime();
    const base = SPEC_RETRY_DELAYS_MS[i - 1];
    expect(gap).toBeGreaterThanOrEqual(base);
    // jitter bound plus the real time the attempt itself took
    expect(gap).toBeLessThanOrEqual(base + maxJitterMs(base) + 5_000);
    expect(rows[i - 1].nextAttemptAt).not.toBeNull();
  }
  expect(rows[8].nextAttemptAt).toBeNull();
  // identical body and webhook-id on every attempt; a fresh, valid signature each time
  expect(new Set(got.map((r) => r.body)).size).toBe(1);
  expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
  expect(got[0].headers['webhook-id']).toBe(eventId);
  expect(JSON.parse(got[0].body).id).toBe(eventId);
  for (const r of got) {
    expect(verifySignature(secret, eventId, Number(r.headers['webhook-timestamp']), r.body, String(r.headers['webhook-signature']))).toBe(true);
  }
  const stamps = got.map((r) => Number(r.headers['webhook-timestamp']));
  expect(stamps[8] - stamps[0]).toBeGreaterThanOrEqual(74_555 - 2);
  const event = await testStore.stores.webhooks.events.eventById(eventId);
  expect(event?.status).toBe('dead_lettered');
  // still open, waiting for a replay
  expect((await handle.describe()).status.name).toBe('RUNNING');

  // the replay window is the result retention: after 7 days the workflow closes and a replay is refused
  expect(await handle.result()).toBe('dead_lettered');
  await expect(requestReplay(testStore.stores, tenant.workspaceId, rows[8]._id, env.client, new Date())).rejects.toMatchObject({ code: 'replay_not_allowed' });
  const after = await testStore.stores.webhooks.events.eventById(eventId);
  expect(after).toMatchObject({ status: 'dead_lettered', replays: 0 });
});

test('success on attempt k stops at k', async () => {
  const { tenant } = await tenantWithEndpoint();
  let seen = 0;
  receiver.respond((req) => {
    if (!req.path.endsWith(tenant.workspaceId)) return { status: 200 };
    seen += 1;
    return seen < 4 ? { status: 503 } : { status: 204 };
  });
  const { eventId } = await emit(tenant, `job_k_${Date.now()}`);
  expect(await env.client.workflow.getHandle(deliveryWorkflowId(eventId)).result()).toBe('succeeded');
  expect(forWorkspace(tenant)).toHaveLength(4);
  const rows = await records(eventId);
  expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'succeeded']);
  expect(rows[3].responseStatus).toBe(204);
});

test('a replay after dead-letter is a fresh run of the same body and webhook-id', async () => {
  const { tenant } = await tenantWithEndpoint();
  let up = false;
  receiver.respond((req) => (!req.path.endsWith(tenant.workspaceId) || up ? { status: 200 } : { status: 500 }));
  const { eventId } = await emit(tenant, `job_replay_${Date.now()}`);
  await env.sleep(24 * 3600_000);
  const rows = await records(eventId);
  expect(rows).toHaveLength(9);
  const dead = rows[8];
  expect(dead.status).toBe('dead_lettered');

  // only the dead-lettered delivery may be replayed
  await expect(requestReplay(testStore.stores, tenant.workspaceId, rows[3]._id, env.client, new Date())).rejects.toMatchObject({ code: 'replay_not_allowed' });
  up = true;
  const accepted = await requestReplay(testStore.stores, tenant.workspaceId, dead._id, env.client, new Date());
  expect(accepted).toMatchObject({ event_id: eventId, replay: 1, status: 'replaying' });
  // the same dead-lettered delivery cannot start a second replay
  await expect(requestReplay(testStore.stores, tenant.workspaceId, dead._id, env.client, new Date())).rejects.toMatchObject({ code: 'replay_not_allowed' });

  expect(await env.client.workflow.getHandle(deliveryWorkflowId(eventId)).result()).toBe('succeeded');
  const got = forWorkspace(tenant);
  expect(got).toHaveLength(10);
  expect(got[9].body).toBe(got[0].body);
  expect(got[9].headers['webhook-id']).toBe(eventId);
  const after = await records(eventId);
  expect(after[9]).toMatchObject({ replay: 1, attempt: 1, status: 'succeeded' });
});

test('during a rotation both secrets sign for 24 hours, then only the new one', async () => {
  const { tenant, endpointId, secret: oldSecret } = await tenantWithEndpoint();
  receiver.respond((req) => (req.path.endsWith(tenant.workspaceId) ? { status: 500 } : { status: 200 }));
  const rotatedAt = await envNow();
  const rotation = await rotateSecret(testStore.stores, tenant, endpointId, purposeKeysOf(config), rotatedAt);
  expect(new Date(rotation.previous_secret_expires_at).getTime()).toBe(rotatedAt.getTime() + 24 * 3600_000);
  // a second rotation inside the window is refused
  await expect(rotateSecret(testStore.stores, tenant, endpointId, purposeKeysOf(config), await envNow())).rejects.toMatchObject({
    code: 'rotation_in_progress',
  });
  await env.sleep(4 * 3600_000);
  const { eventId } = await emit(tenant, `job_rot_${Date.now()}`);
  await env.sleep(24 * 3600_000);

  const got = forWorkspace(tenant);
  expect(got).toHaveLength(9);
  const windowEnd = Math.floor(rotatedAt.getTime() / 1000) + 24 * 3600;
  let inside = 0;
  let outside = 0;
  for (const r of got) {
    const ts = Number(r.headers['webhook-timestamp']);
    const header = String(r.headers['webhook-signature']);
    expect(verifySignature(rotation.secret, eventId, ts, r.body, header)).toBe(true);
    if (ts < windowEnd) {
      inside += 1;
      expect(header.split(' ')).toHaveLength(2);
      expect(verifySignature(oldSecret, eventId, ts, r.body, header)).toBe(true);
    } else {
      outside += 1;
      expect(header.split(' ')).toHaveLength(1);
      expect(verifySignature(oldSecret, eventId, ts, r.body, header)).toBe(false);
    }
  }
  expect(inside).toBe(8);
  expect(outside).toBe(1);
  // after the window a new rotation is allowed again
  await expect(rotateSecret(testStore.stores, tenant, endpointId, purposeKeysOf(config), await envNow())).resolves.toMatchObject({
    secret: expect.stringMatching(/^whsec_/),
  });
});

test("a replay goes to the workspace's current active endpoint, with the same body and webhook-id", async () => {
  const { tenant, endpointId } = await tenantWithEndpoint();
  receiver.respond(() => ({ status: 500 }));
  const { eventId } = await emit(tenant, `job_moved_${Date.now()}`);
  await env.sleep(24 * 3600_000);
  const rows = await records(eventId);
  expect(rows).toHaveLength(9);
  // the workspace replaces its endpoint, then replays
  await retireEndpoint(testStore.stores, tenant, endpointId, new Date());
  const next = await registerEndpoint(
    testStore.stores,
    tenant,
    `${receiver.url}/moved/${tenant.workspaceId}`,
    {
      lookupAll: systemDestinationLookup,
      allowedCidrs: config.webhooks.allowedCidrs,
      purposeKeys: purposeKeysOf(config),
    },
    new Date(),
  );
  receiver.respond(() => ({ status: 200 }));
  const accepted = await requestReplay(testStore.stores, tenant.workspaceId, rows[8]._id, env.client, new Date());
  expect(accepted.endpoint_id).toBe(next.endpoint.endpoint_id);
  expect(await env.client.workflow.getHandle(deliveryWorkflowId(eventId)).result()).toBe('succeeded');
  const moved = receiver.requests.filter((r) => r.path === `/moved/${tenant.workspaceId}`);
  expect(moved).toHaveLength(1);
  expect(moved[0].body).toBe(forWorkspace(tenant)[0].body);
  expect(moved[0].headers['webhook-id']).toBe(eventId);
  expect(
    verifySignature(next.secret, eventId, Number(moved[0].headers['webhook-timestamp']), moved[0].body, String(moved[0].headers['webhook-signature'])),
  ).toBe(true);
  const after = await records(eventId);
  expect(after[9]).toMatchObject({ replay: 1, attempt: 1, status: 'succeeded', endpointId: next.endpoint.endpoint_id });
});
