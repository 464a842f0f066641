import { creditBalance } from '../../core/credits/credits';
import { PERMISSIONS } from '../../core/keys/permissions';
import { QuotaWindows, recordDelivered } from '../../core/talent/quotas';
import { storeSearch } from '../../core/talent/searches';
import { runAdminWith } from '../support/adminCli';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { addKey, createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { eventually } from '../support/eventually';
import { expectProblemResponse } from '../support/problems';
import { waitForJobToFinish } from '../support/contactRetrievalJobs';

/**
 * Contact-retrieval job routes over HTTP against the real API, store, Temporal server and a
 * worker, with the `http` provider pointed at a loopback provider server.
 */
const PROVIDER_TOKEN = 'provider-secret-token-1';
let provider: ContactProviderServer;
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let n = 0;

const ids = (count: number, tag = 'x') => Array.from({ length: count }, (_, i) => `per_${tag}${String(n).padStart(4, '0')}${String(i).padStart(6, '0')}A`);
const idem = () => `idem-${Date.now()}-${++n}`;

async function create(key: string, personIds: string[], extra: Record<string, unknown> = {}) {
  // Jobs refuse people that do not exist: the people asked for are put in the dataset first.
  await insertTestPeople(
    srv.deps.stores,
    personIds.filter((p) => /^per_[0-9A-Za-z]{8,64}$/.test(p)),
  );
  return api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key, body: { person_ids: personIds, ...extra }, idempotencyKey: idem() });
}

beforeAll(async () => {
  provider = await startContactProviderServer({ token: PROVIDER_TOKEN });
  srv = await startTestApi({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: PROVIDER_TOKEN,
    CONTACT_PROVIDER_TIMEOUT_MS: '300',
    CONTACT_PROVIDER_RETRY_BASE_MS: '10',
    CONTACT_PROVIDER_MAX_ATTEMPTS: '4',
    CONTACT_JOB_CHUNK_SIZE: '7',
    CONTACT_JOB_CONCURRENCY: '3',
  });
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 1000 });
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
  await provider?.close();
});

describe('a job from start to result', () => {
  test('delivers, charges once per record, and the result pages through every person', async () => {
    const people = ids(30);
    const before = await creditBalance(srv.deps, tenant.orgId);
    const res = await create(tenant.key, [...people, people[0]]);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      type: 'contact_retrieval',
      status: 'running',
      fields: ['email', 'phone'],
      counts: { requested: 30, pending: 30, delivered: 0 },
      result_url: `/v1/job-results/${res.json.job_id}`,
      result_expires_at: null,
    });
    const job = await waitForJobToFinish(srv.url, tenant.key, res.json.job_id);
    const expectedNotFound = people.filter((p) => providerAnswerFor(p).status === 'not_found').length;
    expect(job.status).toBe('completed');
    expect(job.counts).toEqual({
      requested: 30,
      delivered: 30 - expectedNotFound,
      not_found: expectedNotFound,
      failed: 0,
      reused: 0,
      cancelled: 0,
      pending: 0,
    });
    expect(Date.parse(job.result_expires_at) - Date.parse(job.completed_at)).toBe(7 * 24 * 3600 * 1000);
    expect(await creditBalance(srv.deps, tenant.orgId)).toBe(before - job.counts.delivered);
    expect(await jobCharged(job.job_id)).toBe(job.counts.delivered);

    // The provider got its own credential and nothing of the customer's request.
    const mine = provider.requests.filter((r) => r.personIds.some((p) => people.includes(p)));
    expect(mine.length).toBeGreaterThanOrEqual(5);
    for (const r of mine) {
      expect(r.authorization).toBe(`Bearer ${PROVIDER_TOKEN}`);
      expect(JSON.stringify(r.headers)).not.toContain(tenant.key);
      expect(r.headers['idempotency-key']).toBeUndefined();
    }

    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const page: HttpResponse = await api(srv.url, 'GET', `/v1/job-results/${job.job_id}?limit=8${cursor ? `&cursor=${cursor}` : ''}`, { key: tenant.key });
      expect(page.status).toBe(200);
      expect(page.json).toMatchObject({ job_id: job.job_id, status: 'completed', counts: job.counts, result_expires_at: job.result_expires_at });
      items.push(...page.json.items);
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(items.map((i) => i.person_id)).toEqual(people);
    for (const it of items) {
      const a = providerAnswerFor(it.person_id);
      if (a.status === 'found') {
        expect(it).toEqual({
          person_id: it.person_id,
          outcome: 'delivered',
          contacts: { emails: a.emails, phones: a.phones },
          receipt_id: expect.stringMatching(/^rcpt_/),
          reason: null,
        });
      } else {
        expect(it).toEqual({ person_id: it.person_id, outcome: 'not_found', contacts: { emails: [], phones: [] }, receipt_id: null, reason: null });
      }
    }
  });

  test('people retrieved by this organization within 30 days are reused, free and without a provider call', async () => {
    const people = ids(10).filter((p) => providerAnswerFor(p).status === 'found');
    const first = await waitForJobToFinish(srv.url, tenant.key, (await create(tenant.key, people, { fields: ['email'] })).json.job_id);
    expect(first.counts.delivered).toBe(people.length);
    const calls = provider.requests.length;
    const before = await creditBalance(srv.deps, tenant.orgId);
    const second = await waitForJobToFinish(srv.url, tenant.key, (await create(tenant.key, people, { fields: ['email'] })).json.job_id);
    expect(second).toMatchObject({ status: 'completed', counts: { reused: people.length, delivered: 0 } });
    expect(await creditBalance(srv.deps, tenant.orgId)).toBe(before);
    expect(provider.requests.length).toBe(calls);
    const result = await api(srv.url, 'GET', `/v1/job-results/${second.job_id}`, { key: tenant.key });
    expect(result.json.items[0]).toMatchObject({
      outcome: 'reused',
      contacts: { emails: providerAnswerFor(people[0]).status === 'found' ? (providerAnswerFor(people[0]) as any).emails : [], phones: [] },
      receipt_id: null,
    });
  });

  test('transient provider failures are retried; a person the provider keeps failing is failed and the job partial', async () => {
    const people = ids(7).filter((p) => providerAnswerFor(p).status === 'found');
    provider.faults.push({ kind: 'status', status: 503 }, { kind: 'status', status: 429, retryAfter: '0' }, { kind: 'hang' });
    const ok = await waitForJobToFinish(srv.url, tenant.key, (await create(tenant.key, people)).json.job_id);
    expect(ok).toMatchObject({ status: 'completed', counts: { delivered: people.length, failed: 0 } });

    const more = ids(7);
    provider.alwaysFail.add(more[0]);
    provider.faults.length = 0;
    const job = await waitForJobToFinish(srv.url, tenant.key, (await create(tenant.key, more)).json.job_id);
    provider.alwaysFail.clear();
    // One chunk of seven: its one batch call keeps failing, so all seven fail; nothing is charged.
    expect(job).toMatchObject({ status: 'failed', counts: { requested: 7, failed: 7, delivered: 0, pending: 0 }, result_expires_at: null });
    expect(await jobCharged(job.job_id)).toBe(0);
    const result = await api(srv.url, 'GET', `/v1/job-results/${job.job_id}`, { key: tenant.key });
    expect(result.json.items.every((i: any) => i.outcome === 'failed' && i.reason === 'provider_unavailable')).toBe(true);
  });

  test('running out of credits mid-job stops the charges: the rest fail with insufficient_credits, status partial', async () => {
    const poor = await createTenant({ credits: 5 });
    const people = ids(40)
      .filter((p) => providerAnswerFor(p).status === 'found')
      .slice(0, 20);
    const job = await waitForJobToFinish(srv.url, poor.key, (await create(poor.key, people)).json.job_id);
    expect(job.status).toBe('partial');
    expect(job.counts).toMatchObject({ requested: 20, delivered: 5, failed: 15, pending: 0 });
    expect(await creditBalance(srv.deps, poor.orgId)).toBe(0);
    expect(await jobCharged(job.job_id)).toBe(5);
    const result = await api(srv.url, 'GET', `/v1/job-results/${job.job_id}?limit=100`, { key: poor.key });
    const failed = result.json.items.filter((i: any) => i.outcome === 'failed');
    expect(failed).toHaveLength(15);
    expect(failed.every((i: any) => i.reason === 'insufficient_credits' && i.contacts.emails.length === 0)).toBe(true);
  });

  test('an organization that cannot be delivered one more person today is refused with 429 delivery_quota_exceeded, nothing recorded', async () => {
    const full = await createTenant({ credits: 50 });
    const limit = srv.config.searchQuotas.deliveriesPerDay;
    await recordDelivered(
      new QuotaWindows(srv.deps.stores.talent),
      full.orgId,
      Array.from({ length: limit }, (_, i) => `per_quota${String(i).padStart(8, '0')}`),
      Date.now(),
    );
    const res = await create(full.key, ids(3, 'q'));
    expectProblemResponse(res, 429, 'delivery_quota_exceeded');
    expect(res.headers['retry-after']).toBe('1');
    expect(await srv.deps.stores.jobs.jobsOfOrganizations([full.orgId])).toHaveLength(0);
    expect(await creditBalance(srv.deps, full.orgId)).toBe(50);
  });

  test('a batch job runs over the people of an earlier search of the organization', async () => {
    const people = ids(12, 's');
    await insertTestPeople(srv.deps.stores, people);
    const search = await storeSearch(
      srv.deps.stores,
      { orgId: tenant.orgId, fingerprint: `f${n}`, params: {}, personIds: people, total: people.length },
      Date.now(),
    );
    const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: tenant.key,
      body: { search_id: search.searchId, limit: 9, fields: ['phone'] },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ search_id: search.searchId, fields: ['phone'], counts: { requested: 9 } });
    const job = await waitForJobToFinish(srv.url, tenant.key, res.json.job_id);
    expect(job.counts.delivered + job.counts.not_found).toBe(9);
    const result = await api(srv.url, 'GET', `/v1/job-results/${job.job_id}`, { key: tenant.key });
    expect(result.json.items.map((i: any) => i.person_id)).toEqual(people.slice(0, 9));
    expect(result.json.items.every((i: any) => i.contacts.emails.length === 0)).toBe(true);

    const other = await createTenant({ credits: 10 });
    const foreign = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: other.key,
      body: { search_id: search.searchId },
      idempotencyKey: idem(),
    });
    expectProblemResponse(foreign, 404, 'not_found');
    const absent = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: tenant.key,
      body: { search_id: 'srch_doesnotexist000000000' },
      idempotencyKey: idem(),
    });
    expectProblemResponse(absent, 404, 'not_found');
  });
});

describe('reads', () => {
  test('a foreign job is the same 404 as an absent one, on every route', async () => {
    const job = await create(tenant.key, ids(1));
    await waitForJobToFinish(srv.url, tenant.key, job.json.job_id);
    const other = await createTenant({ credits: 10 });
    for (const [method, path] of [
      ['GET', `/v1/contact-retrieval-jobs/${job.json.job_id}`],
      ['GET', `/v1/job-results/${job.json.job_id}`],
      ['POST', `/v1/contact-retrieval-jobs/${job.json.job_id}/cancel`],
    ]) {
      const body = method === 'POST' ? {} : undefined;
      const foreign = await api(srv.url, method, path, { key: other.key, body });
      const absent = await api(srv.url, method, path.replace(job.json.job_id, 'job_absent0000000000000000'), { key: other.key, body });
      expectProblemResponse(foreign, 404, 'not_found');
      expectProblemResponse(absent, 404, 'not_found');
      expect(foreign.json.detail).toBe(absent.json.detail);
    }
  });

  test('list pages newest first, filters by status, refuses a foreign cursor', async () => {
    const t = await createTenant({ credits: 100 });
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await create(t.key, ids(1));
      made.push(r.json.job_id);
      await waitForJobToFinish(srv.url, t.key, r.json.job_id);
    }
    const p1 = await api(srv.url, 'GET', '/v1/contact-retrieval-jobs?limit=2', { key: t.key });
    expect(p1.status).toBe(200);
    expect(p1.json.data.map((j: any) => j.job_id)).toEqual([made[2], made[1]]);
    const p2 = await api(srv.url, 'GET', `/v1/contact-retrieval-jobs?limit=2&cursor=${p1.json.next_cursor}`, { key: t.key });
    expect(p2.json.data.map((j: any) => j.job_id)).toEqual([made[0]]);
    expect(p2.json.next_cursor).toBeNull();
    const running = await api(srv.url, 'GET', '/v1/contact-retrieval-jobs?status=running', { key: t.key });
    expect(running.json.data).toEqual([]);
    expectProblemResponse(await api(srv.url, 'GET', '/v1/contact-retrieval-jobs?cursor=bogus', { key: t.key }), 400, 'invalid_cursor');
    const outOfRange = Buffer.from(JSON.stringify({ s: `jobs:${t.workspaceId}:*`, p: { t: 9e15, id: 'job_x' } })).toString('base64url');
    expectProblemResponse(await api(srv.url, 'GET', `/v1/contact-retrieval-jobs?cursor=${outOfRange}`, { key: t.key }), 400, 'invalid_cursor');
    expectProblemResponse(await api(srv.url, 'GET', `/v1/contact-retrieval-jobs?cursor=${p1.json.next_cursor}`, { key: tenant.key }), 400, 'invalid_cursor');
    expectProblemResponse(await api(srv.url, 'GET', `/v1/job-results/${made[0]}?cursor=${p1.json.next_cursor}`, { key: t.key }), 400, 'invalid_cursor');
    expectProblemResponse(await api(srv.url, 'GET', '/v1/contact-retrieval-jobs?limit=0', { key: t.key }), 422, 'validation_failed');
  });

  test('409 result_set_expired after result_expires_at and 410 result_gone once purged', async () => {
    const r = await create(tenant.key, ids(2));
    const job = await waitForJobToFinish(srv.url, tenant.key, r.json.job_id);
    await srv.deps.stores.jobs.setResultExpiresAt(job.job_id, new Date(Date.now() - 1000));
    const expired = await api(srv.url, 'GET', `/v1/job-results/${job.job_id}`, { key: tenant.key });
    expectProblemResponse(expired, 409, 'result_set_expired');
    await srv.deps.stores.jobs.recordResultPurged(job.job_id, new Date());
    expectProblemResponse(await api(srv.url, 'GET', `/v1/job-results/${job.job_id}`, { key: tenant.key }), 410, 'result_gone');
    // The job itself stays readable.
    expect((await api(srv.url, 'GET', `/v1/contact-retrieval-jobs/${job.job_id}`, { key: tenant.key })).status).toBe(200);
  });
});

describe('refusals', () => {
  test.each([
    ['no people', { person_ids: [] }],
    ['101 people', { person_ids: Array.from({ length: 101 }, (_, i) => `per_many${String(i).padStart(8, '0')}`) }],
    ['a malformed person id', { person_ids: ['nope'] }],
    ['an unknown field', { person_ids: ['per_abcdefgh12'], fields: ['address'] }],
    ['an unknown member', { person_ids: ['per_abcdefgh12'], priority: 'high' }],
    ['a tenant id in the body', { person_ids: ['per_abcdefgh12'], org_id: 'org_x' }],
  ])('%s is 422 validation_failed', async (_name, body) => {
    const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: tenant.key, body, idempotencyKey: idem() });
    expectProblemResponse(res, 422, 'validation_failed');
    expect(res.json.errors.length).toBeGreaterThan(0);
  });

  test('create and batch create require an Idempotency-Key', async () => {
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: tenant.key, body: { person_ids: ids(1) } }),
      400,
      'invalid_idempotency_key',
    );
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', { key: tenant.key, body: { search_id: 'srch_abcdefgh12' } }),
      400,
      'invalid_idempotency_key',
    );
  });

  test('permissions: jobs.v1:write to create and cancel, jobs.v1:read to read', async () => {
    const reader = await addKey(tenant, [PERMISSIONS.jobsRead]);
    const writer = await addKey(tenant, [PERMISSIONS.jobsWrite]);
    expectProblemResponse(await create(reader.key, ids(1)), 403, 'insufficient_scope');
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', { key: reader.key, body: { search_id: 'srch_abcdefgh12' }, idempotencyKey: idem() }),
      403,
      'insufficient_scope',
    );
    expectProblemResponse(await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/job_x/cancel', { key: reader.key, body: {} }), 403, 'insufficient_scope');
    expectProblemResponse(await api(srv.url, 'GET', '/v1/contact-retrieval-jobs', { key: writer.key }), 403, 'insufficient_scope');
    expectProblemResponse(await api(srv.url, 'GET', '/v1/contact-retrieval-jobs/job_x', { key: writer.key }), 403, 'insufficient_scope');
    expectProblemResponse(await api(srv.url, 'GET', '/v1/job-results/job_x', { key: writer.key }), 403, 'insufficient_scope');
  });

  test('402 before any provider call when the organization cannot fund one record; nothing recorded', async () => {
    const broke = await createTenant({ credits: 0 });
    const calls = provider.requests.length;
    const res = await create(broke.key, ids(3));
    expectProblemResponse(res, 402, 'insufficient_credits');
    expect(provider.requests.length).toBe(calls);
    expect(await srv.deps.stores.jobs.jobsOfOrganizations([broke.orgId])).toHaveLength(0);
    const list = await api(srv.url, 'GET', '/v1/contact-retrieval-jobs', { key: broke.key });
    expect(list.json.data).toEqual([]);
  });

  test('cancelling a finished job is 409 invalid_state_transition', async () => {
    const r = await create(tenant.key, ids(1));
    await waitForJobToFinish(srv.url, tenant.key, r.json.job_id);
    expectProblemResponse(
      await api(srv.url, 'POST', `/v1/contact-retrieval-jobs/${r.json.job_id}/cancel`, { key: tenant.key, body: {} }),
      409,
      'invalid_state_transition',
    );
  });
});

describe('cancel', () => {
  test('people not yet processed become cancelled; what was delivered stays delivered', async () => {
    provider.latencyMs = 200;
    // An organization of its own: earlier tests' bursts must not spend its request-rate window.
    const own = await createTenant({ credits: 1000 });
    try {
      const people = ids(100, 'c');
      const r = await create(own.key, people);
      expect(r.status).toBe(202);
      // Let the first chunks land, then cancel.
      await eventually('the first chunks to land', async () => (await srv.deps.stores.jobs.itemsOfJob(r.json.job_id)).some((i) => i.outcome !== 'pending'), {
        timeoutMs: 60_000,
      });
      const c = await api(srv.url, 'POST', `/v1/contact-retrieval-jobs/${r.json.job_id}/cancel`, { key: own.key, body: {} });
      expect(c.status).toBe(202);
      expect(c.json.job_id).toBe(r.json.job_id);
      const job = await waitForJobToFinish(srv.url, own.key, r.json.job_id);
      expect(job.status).toBe('cancelled');
      const k = job.counts;
      expect(k.cancelled).toBeGreaterThan(0);
      expect(k.delivered + k.not_found + k.reused).toBeGreaterThan(0);
      expect(k.delivered + k.not_found + k.failed + k.reused + k.cancelled + k.pending).toBe(100);
      expect(k.pending).toBe(0);
      expect(await jobCharged(job.job_id)).toBe(k.delivered);
    } finally {
      provider.latencyMs = 0;
    }
  });
});

describe('operator CLI', () => {
  const admin = (...args: string[]) => runAdminWith(srv.deps, args);

  test('job show, job slots and job cancel', async () => {
    const t = await createTenant({ credits: 50 });
    provider.latencyMs = 200;
    try {
      const r = await create(t.key, ids(60, 'o'));
      const slots = await admin('job', 'slots', '--org', t.orgId);
      expect(slots.status).toBe(0);
      expect(slots.json).toEqual({
        org_id: t.orgId,
        limit: 2,
        slots: [{ slot: 0, job_id: r.json.job_id, job_status: 'running', claimed_at: expect.any(String) }],
      });
      const cancelled = await admin('job', 'cancel', '--job-id', r.json.job_id);
      expect(cancelled.status).toBe(0);
      expect(cancelled.json.job_id).toBe(r.json.job_id);
      const job = await waitForJobToFinish(srv.url, t.key, r.json.job_id);
      expect(job.status).toBe('cancelled');
      const shown = await admin('job', 'show', '--job-id', r.json.job_id);
      expect(shown.status).toBe(0);
      expect(shown.json).toMatchObject({
        job_id: r.json.job_id,
        org_id: t.orgId,
        workspace_id: t.workspaceId,
        status: 'cancelled',
        counts: job.counts,
        workflow_id: `contact-retrieval:${r.json.job_id}`,
      });
      expect((await admin('job', 'slots', '--org', t.orgId)).json.slots).toEqual([]);
      const again = await admin('job', 'cancel', '--job-id', r.json.job_id);
      expect(again.status).not.toBe(0);
      expect(again.stderr).toMatch(/already finished/);
    } finally {
      provider.latencyMs = 0;
    }
  });
});

/** Credits charged for a job: the sum of its chunk charges (one ledger entry per chunk). */
async function jobCharged(jobId: string): Promise<number> {
  const entries = await srv.deps.stores.credits.ledgerEntriesUnderChargeKeyPrefix(`job:${jobId}:`);
  return entries.reduce((s, e) => s + e.amount, 0);
}
