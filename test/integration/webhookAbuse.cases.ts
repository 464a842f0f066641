import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { deliveryWorkflowId, REPLAY_SIGNAL } from '../../core/webhooks/deliveryWorkflowContract';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { sendAttempt } from '../../core/webhooks/sendAttempt';
import { createTenant, type TestTenant } from '../support/fixtures';
import { apiHonouringRateLimits as api } from '../support/http';
import { RECEIVER_HOST_NAME, type HttpsReceiver } from '../support/httpsReceiver';
import type { TestApi } from '../support/testApi';
import { eventually } from '../support/eventually';
import { emitFinishedJob, startWebhookStack, type WebhookStack } from '../support/webhookStack';

/**
 * Webhook delivery attempts: the attempt checks that the endpoint belongs to the
 * event's workspace, and the 15 s attempt budget covers DNS too. Real store, Temporal server,
 * worker and HTTPS receiver.
 */
let srv: TestApi;
let stack: WebhookStack | undefined;
let receiver: HttpsReceiver;

const counts = { requested: 1, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 };

beforeAll(async () => {
  stack = await startWebhookStack({ RETRY_DELAYS_MS: '10,10,10,10,10,10,10,10' });
  ({ srv, receiver } = stack);
});
afterAll(async () => {
  await stack?.close();
});

async function registered(t: TestTenant, path: string): Promise<string> {
  const res = await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url: `${receiver.url}${path}` } });
  expect(res.status).toBe(201);
  return res.json.endpoint.endpoint_id as string;
}

describe('the attempt activity trusts run.endpointId', () => {
  test("a forged replay signal naming another tenant's endpoint sends nothing there: every attempt fails with endpoint_mismatch", async () => {
    receiver.respond((r) => (r.path.startsWith('/victim-a/') ? { status: 500 } : { status: 200 }));
    const a = await createTenant();
    const b = await createTenant();
    await registered(a, '/victim-a/hook');
    const foreignEndpoint = await registered(b, '/tenant-b/hook');
    const { eventId } = await emitFinishedJob(srv, a, 'forged', counts);
    await eventually(
      'the event to dead-letter',
      async () => (await srv.deps.stores.webhooks.deliveries.deliveriesOfEvent(eventId)).some((d) => d.status === 'dead_lettered' && d.replay === 0),
      {
        timeoutMs: 60_000,
      },
    );

    // Someone with access to Temporal signals a replay to tenant B's endpoint.
    const client = await srv.deps.temporal.client();
    await client.workflow.getHandle(deliveryWorkflowId(eventId)).signal(REPLAY_SIGNAL, { replay: 1, endpointId: foreignEndpoint });
    const attempts = await eventually(
      'the forged run to end',
      async () => {
        const docs = (await srv.deps.stores.webhooks.deliveries.deliveriesOfEvent(eventId)).filter((d) => d.replay === 1);
        return docs.some((d) => d.status === 'dead_lettered') ? docs : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(attempts).toHaveLength(9);
    expect(attempts.every((d) => d.errorCode === 'endpoint_mismatch' && d.responseStatus === null)).toBe(true);
    // The records stay the event's tenant's; tenant B's receiver never saw the event.
    expect(attempts.every((d) => d.orgId === a.orgId && d.workspaceId === a.workspaceId)).toBe(true);
    expect(receiver.requests.filter((r) => r.path.startsWith('/tenant-b/'))).toHaveLength(0);
    const listed = await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}&limit=100`, { key: a.key });
    expect(listed.json.data.filter((d: any) => d.replay === 1).every((d: any) => d.error_code === 'endpoint_mismatch')).toBe(true);
  });
});

describe('DNS lookups have no time limit and the 15 s attempt timer starts after DNS', () => {
  const ca = () => [...rootCertificates, readFileSync(receiver.caFile, 'utf8')];
  const req = (url: string) => ({ url, headers: { 'content-type': 'application/json', 'webhook-id': 'evt_dns' }, body: '{}' });

  test('a slow DNS answer is part of the attempt budget: DNS + a slow receiver time out at the budget, not after it', async () => {
    receiver.respond(() => 'hang');
    const slowDns: LookupAll = async () => {
      // A slow DNS answer is the point of this test: the fixed delay is the answer's latency.
      await new Promise((r) => setTimeout(r, 700));
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const out = await sendAttempt(req(`https://${RECEIVER_HOST_NAME}:${receiver.port}/slow`), {
      lookupAll: slowDns,
      allowedCidrs: ['127.0.0.0/8'],
      ca: ca(),
      connections: srv.deps.outbound,
      timeoutMs: 1000,
    });
    expect(out).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(out.durationMs).toBeGreaterThanOrEqual(990);
    expect(out.durationMs).toBeLessThan(1500);
  });

  test('a DNS lookup that never answers is a timeout at the budget', async () => {
    const before = receiver.requests.length;
    const silentDns: LookupAll = () => new Promise(() => undefined);
    const out = await sendAttempt(req(`https://${RECEIVER_HOST_NAME}:${receiver.port}/never`), {
      lookupAll: silentDns,
      allowedCidrs: ['127.0.0.0/8'],
      ca: ca(),
      connections: srv.deps.outbound,
      timeoutMs: 500,
    });
    expect(out).toMatchObject({ ok: false, errorCode: 'timeout', address: null });
    expect(out.durationMs).toBeGreaterThanOrEqual(490);
    expect(out.durationMs).toBeLessThan(1500);
    expect(receiver.requests.length).toBe(before);
  });
});
