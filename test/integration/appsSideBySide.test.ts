import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import type { Config } from '../../core/config';
import { createDeps, type Deps } from '../../core/deps';
import { recordAuditEvent } from '../../core/audit/auditLog';
import { grantCredits } from '../../core/credits/credits';
import { readLimitSettings, setCap } from '../../core/limits/limitSettings';
import { createUser } from '../../core/users/users';
import { invitationMail } from '../../core/mail/mailMessages';
import { queueMail } from '../../core/mail/mailOutbox';
import { openStore } from '../../core/store/connection';
import { UsageCounters } from '../../core/usage/usageCounters';
import { usageSeries } from '../../core/usage/usageSeries';
import { recordAttempt } from '../../core/webhooks/webhookDeliveries';
import { contactRetrievalWorkflowId, emptyCounts, jobOwnerOf } from '../../core/jobs/jobRules';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, keyPrincipalOf, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { expectProblemResponse } from '../support/problems';
import { startTestApi, type TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';

/**
 * Each app lives on what its composition root built (core/deps.ts), not on module state: a
 * second app with other settings, in the same process, answers by its own settings, reads
 * people through its own indexes and keeps the areas whose stores are built on its root's
 * connection in a database of its own.
 */
let first: TestApi;
let second: { url: string; deps: Deps; server: Server };

beforeAll(async () => {
  first = await startTestApi({ SEARCH_DISTINCT_QUERIES_PER_HOUR: '50' });
  await seedPeople(first.deps.stores, { purposeKeys: first.deps.purposeKeys, count: 200 });
  const config: Config = {
    ...first.config,
    authUrl: 'http://auth-second.example',
    searchQuotas: { ...first.config.searchQuotas, distinctQueriesPerHour: 1 },
    // Loopback endpoints: the webhook check registers one without reaching it.
    webhooks: { ...first.config.webhooks, allowedCidrs: ['127.0.0.0/8'] },
  };
  // The areas not yet on a root's connection (test/unit/moduleState.test.ts) share the first app's database.
  const store = await openStore(`${first.config.mongodbUri}_second`, first.config.store);
  const deps = createDeps(config, { logger: testLogger(), store });
  // Fewer people than the first app's: each app's index reads its own database.
  await seedPeople(deps.stores, { purposeKeys: deps.purposeKeys, count: 120 });
  const server = createApp({ deps, probes: { store: store.ping, temporal: async () => true } }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  second = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, deps, server };
});

afterAll(async () => {
  await new Promise<void>((resolve) => second.server.close(() => resolve()));
  await second.deps.store.connection.dropDatabase();
  await second.deps.store.close();
  await first.close();
});

test('each app names its own issuer in its discovery document', async () => {
  const a = await api(first.url, 'GET', '/.well-known/oauth-authorization-server');
  const b = await api(second.url, 'GET', '/.well-known/oauth-authorization-server');
  expect(a.json.issuer).toBe(first.config.authUrl);
  expect(b.json.issuer).toBe('http://auth-second.example');
});

/**
 * A tenant of the first app whose organization, workspace, application and key the second app's
 * database holds too, so one key is answered by both apps.
 */
async function tenantOfBoth(opts: { credits?: number } = {}): Promise<TestTenant> {
  const tenant = await createTenant({ ...opts, stores: first.deps.stores });
  const from = first.deps.stores;
  const to = second.deps.stores;
  const org = (await from.tenancy.findOrganization(tenant.orgId))!;
  await to.tenancy.insertOrganization({ _id: org._id, name: org.name, creditBalance: org.creditBalance });
  await to.tenancy.insertWorkspace({ _id: tenant.workspaceId, orgId: tenant.orgId });
  await to.tenancy.insertApplication({ _id: tenant.applicationId, orgId: tenant.orgId });
  await to.keys.insertKey((await from.keys.findKey(tenant.keyId))!);
  return tenant;
}

test('each app holds searches to its own quota and answers them from its own people index', async () => {
  const tenant = await tenantOfBoth({ credits: 100 });
  const search = (url: string, query: string) =>
    api(url, 'POST', '/v1/candidates/search', {
      key: tenant.key,
      body: { query, page_size: 2 },
      idempotencyKey: `side-${url === first.url ? 'first' : 'second'}-${query}`,
    });
  const found = await search(second.url, 'engineer');
  expect(found.status).toBe(200);
  // The search is stored where its app's people are.
  expect(await second.deps.stores.talent.findSearchRecord(found.json.search_id)).not.toBeNull();
  expect(await first.deps.stores.talent.findSearchRecord(found.json.search_id)).toBeNull();
  // The second app allows one distinct query an hour; the first, fifty.
  expectProblemResponse(await search(second.url, 'manager'), 429, 'distinct_query_cap');
  expect((await search(first.url, 'manager')).status).toBe(200);
  const own = await second.deps.people.search.get();
  expect(own.size).toBe(120);
  expect((await first.deps.people.search.get()).size).toBeGreaterThanOrEqual(200);
});

test('each app keeps its audit log in its own database', async () => {
  const tenant = await tenantOfBoth();
  await recordAuditEvent(first.deps.stores, {
    now: new Date(),
    orgId: tenant.orgId,
    actor: 'operator',
    action: 'budget.set',
    target: tenant.orgId,
    after: { budget: 1 },
  });
  await recordAuditEvent(second.deps.stores, {
    now: new Date(),
    orgId: tenant.orgId,
    actor: 'operator',
    action: 'credits.granted',
    target: tenant.orgId,
    after: { amount: 2 },
  });
  const actions = async (url: string) =>
    ((await api(url, 'GET', '/v1/audit-events', { key: tenant.key })).json.data as Array<{ action: string }>).map((e) => e.action);
  expect(await actions(first.url)).toEqual(['budget.set']);
  expect(await actions(second.url)).toEqual(['credits.granted']);
  expect(second.deps.store.connection.name).toBe(`${first.deps.store.connection.name}_second`);
});

test('each app writes the usage it counted to its own database', async () => {
  const tenant = await createTenant();
  const counters = new UsageCounters(second.deps.stores, { logger: testLogger(), now: second.deps.now });
  counters.countRequest(tenant.orgId, 'whoami', 200, 0);
  await counters.flush({ all: true });
  const query = { orgId: tenant.orgId, granularity: 'day' as const, from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) };
  expect((await usageSeries(second.deps.stores, query, Date.now())).map((p) => [p.operation, p.requests.success])).toEqual([['whoami', 1]]);
  expect(await usageSeries(first.deps.stores, query, Date.now())).toEqual([]);
});

test("each app's mail outbox is in its own database", async () => {
  const to = `side-by-side-${Date.now()}@example.com`;
  await queueMail(
    second.deps.stores,
    second.deps.purposeKeys,
    to,
    invitationMail({ organization: 'Acme', inviter: 'admin@example.com', link: 'https://x.example/l', expiresAt: new Date() }),
    new Date(),
  );
  expect((await second.deps.stores.mail.outboxMailTo(to)).map((m) => m.kind)).toEqual(['invitation']);
  expect(await first.deps.stores.mail.outboxMailTo(to)).toEqual([]);
});

test("each app's idempotency claims are in its own database", async () => {
  const id = `org_side:ws_side:claim-${Date.now()}`;
  const now = new Date();
  const claim = {
    _id: id,
    orgId: 'org_side',
    operation: 'profiles.unlock',
    fingerprint: 'f',
    state: 'in_progress' as const,
    owner: 'o',
    leaseUntil: now,
    createdAt: now,
    expiresAt: now,
  };
  expect(await second.deps.stores.idempotency.insertClaim(claim)).toBe(true);
  expect(await second.deps.stores.idempotency.findClaim(id)).toMatchObject({ owner: 'o' });
  expect(await first.deps.stores.idempotency.findClaim(id)).toBeNull();
});

test("each app's credit ledger is in its own database", async () => {
  const tenant = await createTenant({ credits: 3, stores: second.deps.stores });
  expect(await grantCredits(second.deps, tenant.orgId, 7)).toEqual({ org_id: tenant.orgId, balance: 10 });
  const kinds = async (deps: Deps) => (await deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).map((e) => e.kind).sort();
  expect(await kinds(second.deps)).toEqual(['grant', 'opening']);
  expect(await kinds(first.deps)).toEqual([]);
});

test("each app's organizations, workspaces and keys are in its own database", async () => {
  const tenant = await createTenant({ stores: second.deps.stores });
  expect(await second.deps.stores.tenancy.findOrganization(tenant.orgId)).toMatchObject({ _id: tenant.orgId });
  expect(await first.deps.stores.tenancy.findOrganization(tenant.orgId)).toBeNull();
  expect(await second.deps.stores.tenancy.workspaceExistsInOrg(tenant.orgId, tenant.workspaceId)).toBe(true);
  expect(await first.deps.stores.tenancy.workspaceExistsInOrg(tenant.orgId, tenant.workspaceId)).toBe(false);
  expect(await first.deps.stores.keys.findKey(tenant.keyId)).toBeNull();
  expect((await api(second.url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
  expectProblemResponse(await api(first.url, 'GET', '/v1/whoami', { key: tenant.key }), 401, 'invalid_api_key');
});

test("each app's OAuth clients and signing keys are in its own database", async () => {
  const res = await fetch(`${second.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Side by side', redirect_uris: ['https://side.example.com/cb'] }),
  });
  expect(res.status).toBe(201);
  const clientId = ((await res.json()) as { client_id: string }).client_id;
  expect(await second.deps.stores.oauth.findPublicClient(clientId)).toMatchObject({ kind: 'dynamic', clientName: 'Side by side' });
  expect(await first.deps.stores.oauth.findPublicClient(clientId)).toBeNull();
  const { kid } = await second.deps.signingKeys.rotate(new Date());
  expect(await second.deps.stores.oauth.findSigningKey(kid)).not.toBeNull();
  expect(await first.deps.stores.oauth.findSigningKey(kid)).toBeNull();
});

test("each app's people and their sign-in slots are in its own database", async () => {
  const tenant = await tenantOfBoth();
  const email = `side-${tenant.orgId.toLowerCase()}@example.com`;
  const made = await createUser(
    second.deps.stores,
    second.deps.config,
    { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] },
    new Date(),
  );
  expect(await second.deps.stores.users.findUser(made.user_id)).toMatchObject({ orgId: tenant.orgId, email });
  expect(await first.deps.stores.users.findUser(made.user_id)).toBeNull();
  expect(await second.deps.stores.users.insertAttemptSlot(`side:${tenant.orgId}`, new Date(Date.now() + 60_000))).toBe(true);
  expect(await first.deps.stores.users.findAttemptSlots([`side:${tenant.orgId}`])).toEqual([]);
});

test("each app's limit settings and admission slots are in its own database", async () => {
  const tenant = await createTenant({ stores: second.deps.stores });
  await setCap(second.deps.stores, second.deps.config, {
    orgId: tenant.orgId,
    operation: 'whoami',
    scope: { type: 'key', id: tenant.keyId },
    requestsPerMinute: 5,
    now: Date.now,
  });
  expect((await readLimitSettings(second.deps.stores, tenant.orgId)).overrides).toMatchObject([{ operation: 'whoami', kind: 'cap', requestsPerMinute: 5 }]);
  expect(await first.deps.stores.limits.findLimitSettings(tenant.orgId)).toBeNull();
  // The request is admitted by the second app alone: its window slot and cap entry are in its database.
  expect((await api(second.url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
  expect(await second.deps.stores.limits.slotIdsWithPrefix(`w:req:${tenant.orgId}:`)).not.toHaveLength(0);
  expect(await first.deps.stores.limits.slotIdsWithPrefix(`w:req:${tenant.orgId}:`)).toHaveLength(0);
  expect(await second.deps.stores.limits.capEntriesWithPrefix(`${tenant.orgId}:`)).toHaveLength(1);
  expect(await first.deps.stores.limits.capEntriesWithPrefix(`${tenant.orgId}:`)).toHaveLength(0);
});

test("each app's webhook endpoints, events and deliveries are in its own database", async () => {
  const tenant = await createTenant({ stores: second.deps.stores });
  const registered = await api(second.url, 'POST', '/v1/webhook-endpoints', { key: tenant.key, body: { url: 'https://127.0.0.1:8443/side-by-side' } });
  expect(registered.status).toBe(201);
  const endpointId = registered.json.endpoint.endpoint_id;
  expect(await second.deps.stores.webhooks.endpoints.endpointById(endpointId)).toMatchObject({ workspaceId: tenant.workspaceId });
  expect(await first.deps.stores.webhooks.endpoints.endpointById(endpointId)).toBeNull();
  expect((await api(second.url, 'GET', `/v1/webhook-endpoints/${endpointId}`, { key: tenant.key })).status).toBe(200);
  const attempt = {
    eventId: 'evt_side_by_side',
    replay: 0,
    attempt: 1,
    endpointId,
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    jobId: 'job_side_by_side',
    status: 'failed' as const,
    responseStatus: 500,
    errorCode: 'http_status',
    durationMs: 3,
    scheduledAt: new Date(),
    attemptedAt: new Date(),
    nextAttemptAt: null,
  };
  const { _id: deliveryId } = await recordAttempt(second.deps.stores, attempt);
  expect((await api(second.url, 'GET', `/v1/webhook-deliveries/${deliveryId}`, { key: tenant.key })).json).toMatchObject({ delivery_id: deliveryId });
  expect(await first.deps.stores.webhooks.deliveries.deliveriesOfEvent(attempt.eventId)).toEqual([]);
});

test("each app's contact-retrieval jobs and daily caps are in its own database", async () => {
  const tenant = await tenantOfBoth();
  const jobId = `job_side${Date.now()}`;
  await second.deps.stores.jobs.insertJob({
    _id: jobId,
    ...jobOwnerOf(keyPrincipalOf(tenant)),
    status: 'completed',
    fields: ['email'],
    requested: 0,
    counts: emptyCounts(0),
    workflowId: contactRetrievalWorkflowId(jobId),
    completedAt: new Date(),
  });
  expect((await api(second.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: tenant.key })).json).toMatchObject({ job_id: jobId, status: 'completed' });
  expectProblemResponse(await api(first.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: tenant.key }), 404, 'not_found');
  expect(await first.deps.stores.jobs.findJob({ _id: jobId })).toBeNull();
  await second.deps.stores.jobs.saveDailyJobCap(tenant.orgId, 3);
  expect(await second.deps.stores.jobs.findDailyJobCap(tenant.orgId)).toBe(3);
  expect(await first.deps.stores.jobs.findDailyJobCap(tenant.orgId)).toBeNull();
});
