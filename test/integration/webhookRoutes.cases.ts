import { listAuditEvents } from '../../core/audit/auditLog';
import { PERMISSIONS } from '../../core/keys/permissions';
import { takeReplaySlot } from '../../core/webhooks/replayAllowance';
import { registerEndpoint } from '../../core/webhooks/webhookEndpoints';
import { systemDestinationLookup } from '../../core/outbound/destinationResolver';
import { emitJobCompleted } from '../../core/webhooks/jobCompletedEvent';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api as rawApi, apiHonouringRateLimits as api, type HttpResponse } from '../support/http';
import type { HttpsReceiver } from '../support/httpsReceiver';
import type { TestApi } from '../support/testApi';
import { runAdminWith } from '../support/adminCli';
import { eventually } from '../support/eventually';
import { expectProblemResponse } from '../support/problems';
import { emitFinishedJob, startWebhookStack, type WebhookStack } from '../support/webhookStack';

/** Webhook management and delivery routes over HTTP against the real store, Temporal and a worker. */
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

const hookUrl = (tag: string) => `${receiver.url}/hooks/${tag}`;
const register = (t: TestTenant, url: string) => api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url } });

describe('endpoints (SPEC 4.2, DECISIONS.md)', () => {
  test('register returns the secret once; reads never show it; the store holds it sealed', async () => {
    const t = await createTenant();
    const res = await register(t, hookUrl('a'));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      endpoint: {
        endpoint_id: expect.stringMatching(/^we_/),
        url: hookUrl('a'),
        state: 'active',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      secret_id: expect.stringMatching(/^whs_/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(Buffer.from(res.json.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const id = res.json.endpoint.endpoint_id;
    const one = await api(srv.url, 'GET', `/v1/webhook-endpoints/${id}`, { key: t.key });
    expect(one.status).toBe(200);
    expect(one.json).toEqual(res.json.endpoint);
    const list = await api(srv.url, 'GET', '/v1/webhook-endpoints', { key: t.key });
    expect(list.text).not.toContain(res.json.secret);
    expect(one.text).not.toContain('whsec_');
    const raw = await srv.deps.store.connection.db!.collection('webhook_endpoints').findOne({ _id: id as never });
    expect(JSON.stringify(raw)).not.toContain(res.json.secret.slice(6));
  });

  test('a second active endpoint is 409 endpoint_limit_reached; 20 concurrent registrations make exactly one', async () => {
    const t = await createTenant();
    // Over HTTP the operation's own request rate turns some away first (429 rate_limited).
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => rawApi(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url: hookUrl(`race${i}`) } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).length).toBeGreaterThan(0);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect([409, 429]).toContain(r.status);
      expect(r.json.code).toBe(r.status === 409 ? 'endpoint_limit_reached' : 'rate_limited');
    }
    expect(await srv.deps.stores.webhooks.endpoints.endpointsOfWorkspace(t.workspaceId)).toHaveLength(1);
    expectProblemResponse(await register(t, hookUrl('again')), 409, 'endpoint_limit_reached');
    // The store alone decides the race: 20 concurrent registrations behind no rate limit.
    const u = await createTenant();
    const direct = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        registerEndpoint(
          srv.deps.stores,
          u,
          hookUrl(`direct${i}`),
          { lookupAll: systemDestinationLookup, allowedCidrs: ['127.0.0.0/8'], purposeKeys: srv.deps.purposeKeys },
          new Date(),
        ),
      ),
    );
    expect(direct.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of direct) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'endpoint_limit_reached' });
  });

  test.each([
    ['http://example.com/hook'],
    ['https://10.0.0.5/hook'],
    ['https://169.254.169.254/latest'],
    ['https://user:pw@example.com/hook'],
    ['https://example.com:25/hook'],
    ['https://[::1]:8443/hook'],
    ['https://[::127.0.0.1]/h'], // IPv4-compatible ::/96, once accepted
    ['https://[2002:c0a8:101::1]/hook'], // 6to4 embedding a private address
  ])('a refused destination (%s) is 422 webhook_url_not_allowed and persists nothing', async (url) => {
    const t = await createTenant();
    expectProblemResponse(await register(t, url), 422, 'webhook_url_not_allowed');
    expect(await srv.deps.stores.webhooks.endpoints.endpointsOfWorkspace(t.workspaceId)).toHaveLength(0);
  });

  test('the webhooks permission is required (403), and the body is validated (422)', async () => {
    const t = await createTenant();
    const other = await addKey(t, [PERMISSIONS.candidatesSearch]);
    expectProblemResponse(await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: other.key, body: { url: hookUrl('x') } }), 403, 'insufficient_scope');
    expectProblemResponse(await api(srv.url, 'GET', '/v1/webhook-endpoints', { key: other.key }), 403, 'insufficient_scope');
    expectProblemResponse(await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: {} }), 422, 'validation_failed');
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url: hookUrl('x'), workspace_id: t.workspaceId } }),
      422,
      'validation_failed',
    );
  });

  test('a foreign id is the same 404 as an absent one', async () => {
    const owner = await createTenant();
    const stranger = await createTenant();
    const id = (await register(owner, hookUrl('own'))).json.endpoint.endpoint_id;
    const foreign = await api(srv.url, 'GET', `/v1/webhook-endpoints/${id}`, { key: stranger.key });
    const absent = await api(srv.url, 'GET', '/v1/webhook-endpoints/we_doesnotexist0000000000', { key: stranger.key });
    expectProblemResponse(foreign, 404, 'not_found');
    expectProblemResponse(absent, 404, 'not_found');
    expect(foreign.json.detail).toBe(absent.json.detail);
    for (const [method, path] of [
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
    ] as const) {
      const res = await api(srv.url, method, `/v1/webhook-endpoints/${id}${path}`, {
        key: stranger.key,
        body: method === 'PATCH' ? { state: 'disabled' } : {},
      });
      expectProblemResponse(res, 404, 'not_found');
    }
  });

  test('PATCH disables, enables and re-points; cannot retire; DELETE retires and keeps it readable', async () => {
    const t = await createTenant();
    const id = (await register(t, hookUrl('p1'))).json.endpoint.endpoint_id;
    const path = `/v1/webhook-endpoints/${id}`;
    expect((await api(srv.url, 'PATCH', path, { key: t.key, body: { state: 'disabled' } })).json.state).toBe('disabled');
    // while disabled another endpoint may be registered; enabling the first is then 409
    const second = await register(t, hookUrl('p2'));
    expect(second.status).toBe(201);
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: { state: 'active' } }), 409, 'endpoint_limit_reached');
    await api(srv.url, 'DELETE', `/v1/webhook-endpoints/${second.json.endpoint.endpoint_id}`, { key: t.key });
    expect((await api(srv.url, 'PATCH', path, { key: t.key, body: { state: 'active' } })).json.state).toBe('active');
    const repointed = await api(srv.url, 'PATCH', path, { key: t.key, body: { url: hookUrl('p3') } });
    expect(repointed.json.url).toBe(hookUrl('p3'));
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: { url: 'https://192.168.1.1/x' } }), 422, 'webhook_url_not_allowed');
    expect((await api(srv.url, 'GET', path, { key: t.key })).json.url).toBe(hookUrl('p3'));
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: { state: 'retired' } }), 422, 'validation_failed');
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: {} }), 422, 'validation_failed');
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: { colour: 'red' } }), 422, 'validation_failed');

    const retired = await api(srv.url, 'DELETE', path, { key: t.key });
    expect(retired.status).toBe(200);
    expect(retired.json.state).toBe('retired');
    expect((await api(srv.url, 'GET', path, { key: t.key })).json.state).toBe('retired');
    expectProblemResponse(await api(srv.url, 'PATCH', path, { key: t.key, body: { state: 'active' } }), 409, 'endpoint_retired');
    expectProblemResponse(await api(srv.url, 'POST', `${path}/rotate-secret`, { key: t.key, body: {} }), 409, 'endpoint_retired');
    expect((await api(srv.url, 'DELETE', path, { key: t.key })).json.state).toBe('retired');
    // the workspace may register again
    expect((await register(t, hookUrl('p4'))).status).toBe(201);
    const list = await api(srv.url, 'GET', '/v1/webhook-endpoints', { key: t.key });
    expect(list.json.data.map((e: any) => e.state)).toEqual(['active', 'retired', 'retired']);
    expect(list.json.data[0].url).toBe(hookUrl('p4'));
    const page = await api(srv.url, 'GET', '/v1/webhook-endpoints?limit=2', { key: t.key });
    expect(page.json.data).toHaveLength(2);
    const rest = await api(srv.url, 'GET', `/v1/webhook-endpoints?limit=2&cursor=${page.json.next_cursor}`, { key: t.key });
    expect(rest.json.data.map((e: any) => e.endpoint_id)).toEqual([list.json.data[2].endpoint_id]);
    expect(rest.json.next_cursor).toBeNull();
  });

  test('rotate-secret returns the successor once; a second rotation inside 24 h is 409 rotation_in_progress', async () => {
    const t = await createTenant();
    const reg = await register(t, hookUrl('rot'));
    const path = `/v1/webhook-endpoints/${reg.json.endpoint.endpoint_id}/rotate-secret`;
    const before = Date.now();
    const rot = await api(srv.url, 'POST', path, { key: t.key, body: {} });
    expect(rot.status).toBe(200);
    expect(rot.json).toEqual({
      secret_id: expect.stringMatching(/^whs_/),
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: expect.any(String),
    });
    expect(rot.json.secret).not.toBe(reg.json.secret);
    const expires = Date.parse(rot.json.previous_secret_expires_at) - before;
    expect(expires).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(24 * 3600_000 + 5000);
    expectProblemResponse(await api(srv.url, 'POST', path, { key: t.key, body: {} }), 409, 'rotation_in_progress');
    const doc = await srv.deps.stores.webhooks.endpoints.endpointById(reg.json.endpoint.endpoint_id);
    expect(doc?.secrets).toHaveLength(2);
  });
});

async function deadLettered(t: TestTenant, tag: string) {
  receiver.respond((req) => (req.path.includes('/dead/') ? { status: 500 } : { status: 200 }));
  const reg = await register(t, hookUrl(`dead/${tag}`));
  const { eventId } = await emitFinishedJob(srv, t, tag, counts);
  const dead = await eventually('the event to dead-letter', async () => {
    const res = await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}&status=dead_lettered`, { key: t.key });
    return res.json.data.length === 1 ? res.json.data[0] : undefined;
  });
  return { eventId, endpointId: reg.json.endpoint.endpoint_id as string, dead };
}

/** One dead-lettered event shared by the read-only tests and the cap test (each run of nine attempts costs seconds). */
let shared: Promise<{ t: TestTenant; eventId: string; endpointId: string; dead: any }> | undefined;
function sharedDeadLetter() {
  shared ??= (async () => {
    const t = await createTenant();
    return { t, ...(await deadLettered(t, 'shared')) };
  })();
  return shared;
}

describe('deliveries and replays (SPEC 3.2, 4.2, 8.1)', () => {
  test('nine attempt records, newest first, filtered and paged; tenant-scoped', async () => {
    const { t, eventId, endpointId, dead } = await sharedDeadLetter();
    expect(dead).toMatchObject({
      event_id: eventId,
      endpoint_id: endpointId,
      attempt: 9,
      replay: 0,
      status: 'dead_lettered',
      response_status: 500,
      error_code: 'http_status',
      next_attempt_at: null,
    });
    const all = await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}&limit=100`, { key: t.key });
    expect(all.json.data.map((d: any) => d.attempt)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all.json.next_cursor).toBeNull();
    const failed = await api(srv.url, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpointId}&status=failed`, { key: t.key });
    expect(failed.json.data).toHaveLength(8);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResponse = await api(srv.url, 'GET', `/v1/webhook-deliveries?limit=4${cursor ? `&cursor=${cursor}` : ''}`, { key: t.key });
      expect(res.status).toBe(200);
      seen.push(...res.json.data.map((d: any) => d.attempt));
      cursor = res.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const one = await api(srv.url, 'GET', `/v1/webhook-deliveries/${dead.delivery_id}`, { key: t.key });
    expect(one.json).toEqual(dead);
    expectProblemResponse(await api(srv.url, 'GET', '/v1/webhook-deliveries?cursor=notacursor', { key: t.key }), 400, 'invalid_cursor');
    // A forged position outside the Date range is refused like any other forged cursor, not a 500.
    for (const list of ['webhook_deliveries', 'webhook_endpoints']) {
      const forged = Buffer.from(`{"s":"${list}","p":{"t":1e300,"id":"x"}}`).toString('base64url');
      expectProblemResponse(await api(srv.url, 'GET', `/v1/${list.replace('_', '-')}?cursor=${forged}`, { key: t.key }), 400, 'invalid_cursor');
    }
    expectProblemResponse(await api(srv.url, 'GET', '/v1/webhook-deliveries?limit=101', { key: t.key }), 422, 'validation_failed');
    const stranger = await createTenant();
    expectProblemResponse(await api(srv.url, 'GET', `/v1/webhook-deliveries/${dead.delivery_id}`, { key: stranger.key }), 404, 'not_found');
    expect((await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}`, { key: stranger.key })).json.data).toEqual([]);
    expectProblemResponse(await api(srv.url, 'POST', `/v1/webhook-deliveries/${dead.delivery_id}/replays`, { key: stranger.key, body: {} }), 404, 'not_found');
  });

  test('operators find dead-lettered events in the CLI and through the search attributes', async () => {
    const { t, eventId, endpointId } = await sharedDeadLetter();
    const r = await runAdminWith(srv.deps, ['webhook', 'dead-letters', '--org', t.orgId]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.dead_letters).toEqual([
      expect.objectContaining({ event_id: eventId, workflow_id: `webhook-event:${eventId}`, org_id: t.orgId, endpoint_id: endpointId, replays: 0 }),
    ]);
    // The Temporal UI filter an operator would type
    const client = await srv.deps.temporal.client();
    const query = `DeliveryStatus = "dead_lettered" AND EndpointId = "${endpointId}" AND OrgId = "${t.orgId}"`;
    // Visibility is updated a moment after the workflow's search attributes.
    const ids = await eventually(
      "the workflow in the operator's filter",
      async () => {
        const found: string[] = [];
        for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
        return found.length ? found : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(ids).toEqual([`webhook-event:${eventId}`]);
  });

  test('operators tell delivered events from dead-lettered ones through the search attributes', async () => {
    const dead = await sharedDeadLetter();
    const t = await createTenant();
    const reg = await register(t, hookUrl('ok/at-once'));
    expect(reg.status).toBe(201);
    const { eventId } = await emitFinishedJob(srv, t, 'at_once', counts);
    const client = await srv.deps.temporal.client();
    const list = async (query: string) => {
      const found: string[] = [];
      for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
      return found.sort();
    };
    const orgs = `OrgId IN ("${t.orgId}", "${dead.t.orgId}")`;
    // The delivered event's workflow is Completed and `succeeded`; the dead letter waits for a
    // replay, Running and `dead_lettered`.
    const succeeded = await eventually(
      "the delivered event in the operator's filter",
      async () => {
        const ids = await list(`ExecutionStatus = "Completed" AND DeliveryStatus = "succeeded" AND ${orgs}`);
        return ids.length ? ids : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(succeeded).toEqual([`webhook-event:${eventId}`]);
    expect(await list(`DeliveryStatus = "dead_lettered" AND ${orgs}`)).toEqual([`webhook-event:${dead.eventId}`]);
    expect(await list(`ExecutionStatus = "Running" AND ${orgs}`)).toEqual([`webhook-event:${dead.eventId}`]);
  });

  test('replay: dead-lettered only; a fresh run delivers the same bytes; the same delivery cannot replay twice', async () => {
    const t = await createTenant();
    const { eventId, dead } = await deadLettered(t, 'replay');
    const firstBody = receiver.requests.find((r) => r.headers['webhook-id'] === eventId)!.body;
    const notDead = (await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}&status=failed&limit=1`, { key: t.key })).json.data[0];
    expectProblemResponse(
      await api(srv.url, 'POST', `/v1/webhook-deliveries/${notDead.delivery_id}/replays`, { key: t.key, body: {} }),
      409,
      'replay_not_allowed',
    );
    receiver.respond(() => ({ status: 200 }));
    const res = await api(srv.url, 'POST', `/v1/webhook-deliveries/${dead.delivery_id}/replays`, { key: t.key, body: {} });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ event_id: eventId, replay: 1, status: 'replaying' });
    expectProblemResponse(
      await api(srv.url, 'POST', `/v1/webhook-deliveries/${dead.delivery_id}/replays`, { key: t.key, body: {} }),
      409,
      'replay_not_allowed',
    );
    // The one replay made (not the two refused) is in the audit log as this key's.
    expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, t.orgId, { action: 'webhook_delivery.replayed' })).data).toEqual([
      expect.objectContaining({ actor: `key:${t.keyId}`, target: dead.delivery_id, after: expect.objectContaining({ event_id: eventId, replay: 1 }) }),
    ]);
    const replayed: any[] = await eventually(
      'the replay to succeed',
      async () => {
        const data = (await api(srv.url, 'GET', `/v1/webhook-deliveries?event_id=${eventId}&status=succeeded`, { key: t.key })).json.data;
        return data.length ? data : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toMatchObject({ replay: 1, attempt: 1 });
    const sent = receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);
    expect(sent).toHaveLength(10);
    expect(new Set(sent.map((r) => r.body))).toEqual(new Set([firstBody]));
  });

  test('more than 10 replays for one endpoint in the trailing hour is 429 webhook_replay_cap', async () => {
    const { t, endpointId, dead } = await sharedDeadLetter();
    for (let i = 0; i < 10; i++) expect((await takeReplaySlot(srv.deps.stores, endpointId, new Date())).ok).toBe(true);
    const res = await api(srv.url, 'POST', `/v1/webhook-deliveries/${dead.delivery_id}/replays`, { key: t.key, body: {} });
    expectProblemResponse(res, 429, 'webhook_replay_cap');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  test('emission is idempotent: the same job gives the same event and one workflow', async () => {
    const t = await createTenant();
    receiver.respond(() => ({ status: 200 }));
    await register(t, hookUrl('idem'));
    const input = {
      orgId: t.orgId,
      workspaceId: t.workspaceId,
      jobId: `job_idem_${Date.now()}`,
      status: 'completed' as const,
      counts,
      resultExpiresAt: null,
      completedAt: new Date(),
    };
    const results = await Promise.all([
      emitJobCompleted(srv.config, input, { temporal: srv.deps.temporal, now: srv.deps.now, stores: srv.deps.stores }),
      emitJobCompleted(srv.config, input, { temporal: srv.deps.temporal, now: srv.deps.now, stores: srv.deps.stores }),
      emitJobCompleted(srv.config, input, { temporal: srv.deps.temporal, now: srv.deps.now, stores: srv.deps.stores }),
    ]);
    expect(new Set(results.map((r) => r.eventId)).size).toBe(1);
    expect(results.every((r) => r.deliveryStarted)).toBe(true);
    // Waits for the attempt's record (written after its POST) instead of a fixed pause: one POST, one record.
    await eventually(
      'the delivery to succeed',
      async () => (await srv.deps.stores.webhooks.deliveries.deliveriesOfEvent(results[0].eventId)).some((d) => d.status === 'succeeded'),
      {
        timeoutMs: 10_000,
      },
    );
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] === results[0].eventId)).toHaveLength(1);
    expect(await srv.deps.stores.webhooks.deliveries.deliveriesOfEvent(results[0].eventId)).toHaveLength(1);
    expect((await srv.deps.stores.webhooks.events.eventsOfOrganizations([t.orgId])).filter((e) => e.jobId === input.jobId)).toHaveLength(1);
    const body = JSON.parse(receiver.requests.find((r) => r.headers['webhook-id'] === results[0].eventId)!.body);
    expect(body.data).not.toHaveProperty('result_expires_at');
    expect(body.data.result_url).toBe(`/v1/job-results/${input.jobId}`);
  });

  test('no active endpoint means no delivery', async () => {
    const t = await createTenant();
    const res = await emitFinishedJob(srv, t, 'none', counts, { status: 'failed', resultExpiresAt: null });
    expect(res.deliveryStarted).toBe(false);
    expect(res.eventId).toMatch(/^evt_/);
  });
});
