import { listAuditEvents } from '../../core/audit/auditLog';
import { createDeps, type Deps } from '../../core/deps';
import { newId } from '../../core/ids';
import { REPLAYS_PER_HOUR, REPLAY_ALLOWANCE_WINDOW_MS } from '../../core/webhooks/replayAllowance';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { deadLetterAwaitingReplay, endDeadLetterWorkflows } from '../support/deadLetters';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startSignInApi } from '../support/signInApi';
import { serveApp, type TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';

/**
 * The replay allowance is exact under concurrency (SPEC 8.1: 10 replays per endpoint per hour):
 * 50 parallel replay requests, from the console and from /v1, spread over two API replicas,
 * several of them for the same dead letter, admit exactly 10 replays, and the deliveries page
 * then says none is left. The allowance lives in the store (core/webhooks/replayAllowance.ts),
 * so the replicas share it.
 *
 * Each event's delivery workflow is started on a task queue no worker polls
 * (test/support/deadLetters.ts): it takes the replay signal, and no attempt is sent.
 */
const EVENTS = 11;
const REQUESTS = 50;

let srv: TestApi;
let replica: { url: string; deps: Deps; close: () => Promise<void> };
let tenant: TestTenant;
let admin: ConsoleSession;
const endpointId = newId('we');
const deadLetters: { eventId: string; deliveryId: string }[] = [];

beforeAll(async () => {
  srv = await startSignInApi();
  replica = await serveApp(createDeps(srv.config, { logger: testLogger(), store: srv.deps.store }));
  tenant = await createTenant();
  admin = await consoleSession(srv, tenant, 'admin');
  await srv.deps.stores.webhooks.endpoints.insertEndpoint({
    _id: endpointId,
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    url: 'https://receiver.example/hooks',
    state: 'active',
    activeSlot: tenant.workspaceId,
    secrets: [],
  });
  for (let i = 0; i < EVENTS; i++)
    deadLetters.push(await deadLetterAwaitingReplay(srv.deps.temporal, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, endpointId }));
});
afterAll(async () => {
  if (srv)
    await endDeadLetterWorkflows(
      srv.deps.temporal,
      deadLetters.map((d) => d.eventId),
    );
  await replica?.close();
  await replica?.deps.temporal.close();
  await srv?.close();
});

type Outcome = { via: 'console' | 'v1'; admitted: boolean; refusal: string | null };

/** A replay request, by the console or by /v1, on one replica; what it answered. */
async function replay(i: number): Promise<Outcome> {
  const { deliveryId } = deadLetters[i % EVENTS];
  const base = i % 4 < 2 ? srv.url : replica.url;
  if (i % 2 === 0) {
    const res = await admin.post(`${base}/console/webhooks/deliveries/${deliveryId}/replay`);
    if (res.status === 303) return { via: 'console', admitted: true, refusal: null };
    return { via: 'console', admitted: false, refusal: `${res.status} ${/<p role="alert"[^>]*>([^<]*)</.exec(res.text)?.[1] ?? ''}` };
  }
  const res = await api(base, 'POST', `/v1/webhook-deliveries/${deliveryId}/replays`, { key: tenant.key, body: {} });
  if (res.status === 202) return { via: 'v1', admitted: true, refusal: null };
  return { via: 'v1', admitted: false, refusal: `${res.status} ${res.json?.code}` };
}

test(`${REQUESTS} parallel replays over ${EVENTS} dead letters, console and /v1 on two replicas: exactly ${REPLAYS_PER_HOUR} admitted`, async () => {
  const outcomes = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => replay(i)));
  const admitted = outcomes.filter((o) => o.admitted);
  expect(admitted).toHaveLength(REPLAYS_PER_HOUR);
  // Every refusal says why: the allowance, a dead letter another request is replaying, or the
  // /v1 operation's own request rate (which refuses before the allowance is asked).
  for (const o of outcomes.filter((x) => !x.admitted)) {
    if (o.via === 'v1') expect(['429 webhook_replay_cap', '409 replay_not_allowed', '429 rate_limited']).toContain(o.refusal);
    else expect(o.refusal).toMatch(/^(429 More than 10 replays|409 This (delivery is already being replayed|event has been replayed since))/);
  }
  expect(outcomes.filter((o) => o.refusal?.startsWith('429') && !o.refusal.endsWith('rate_limited')).length).toBeGreaterThan(0);

  // The store agrees: ten events replaying, ten slots used this hour, ten audit entries.
  const events = await srv.deps.stores.webhooks.events.eventsOfOrganizations([tenant.orgId]);
  expect(events.filter((e) => e.status === 'replaying')).toHaveLength(REPLAYS_PER_HOUR);
  const hourAgo = new Date(Date.now() - REPLAY_ALLOWANCE_WINDOW_MS);
  expect((await srv.deps.stores.webhooks.replaySlots.slotsOf(endpointId)).filter((s) => s.usedAt > hourAgo)).toHaveLength(REPLAYS_PER_HOUR);
  expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'webhook_delivery.replayed' })).data).toHaveLength(
    REPLAYS_PER_HOUR,
  );

  // So does the page.
  const page = await admin.get(`/console/webhooks/deliveries?workspace=${tenant.workspaceId}`);
  expect(page.text).toContain('Replays left this hour: 0');
});
