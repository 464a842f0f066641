import { creditBalance } from '../../core/credits/credits';
import { createContactRetrievalJob } from '../../core/jobs/contactRetrievalJobs';
import { DailyJobCapReads, claimDaySlot, setDailyJobCap } from '../../core/jobs/dailyJobCap';
import { contactRetrievalWorkflowRunning, startContactRetrievalWorkflow } from '../../core/jobs/jobWorkflows';
import { Problem } from '../../core/problems';
import { QuotaWindows, assertQuotaHasRoom, recordDelivered } from '../../core/talent/quotas';
import { storeSearch } from '../../core/talent/searches';
import { OPEN_WEB_SOURCE_ID, setSourceEnabled } from '../../core/talent/sources';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { createTenant, insertTestPeople, keyPrincipalOf, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { expectProblemResponse } from '../support/problems';
import { jobResultItems, terminateRunningJobWorkflows, waitForJobToFinish } from '../support/contactRetrievalJobs';
import { fileStores } from '../support/testStore';

/**
 * Contact-retrieval jobs: quotas and entitlements hold for every person of every
 * job. Real API over HTTP, real store, Temporal server and worker, the `http` provider.
 */
const PROVIDER_TOKEN = 'provider-secret-token-abuse';
const DELIVERY_QUOTA = 10;
let provider: ContactProviderServer;
let srv: TestApi;
let worker: TestWorker;
let n = 0;

const idem = () => `abuse-${Date.now()}-${++n}`;
/** `count` fresh person ids the provider answers as told. */
function people(count: number, want: 'found' | 'not_found', tag: string): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const id = `per_${tag}${String(++n).padStart(6, '0')}${i}Z`;
    if (providerAnswerFor(id).status === want) out.push(id);
  }
  return out;
}

const createJob = (t: TestTenant, personIds: string[]) =>
  api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: t.key, body: { person_ids: personIds, fields: ['email'] }, idempotencyKey: idem() });

beforeAll(async () => {
  provider = await startContactProviderServer({ token: PROVIDER_TOKEN });
  srv = await startTestApi({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: PROVIDER_TOKEN,
    CONTACT_JOB_CHUNK_SIZE: '2',
    CONTACT_JOB_CONCURRENCY: '1',
    SEARCH_DELIVERY_QUOTA_PER_DAY: String(DELIVERY_QUOTA),
  });
  worker = await startTestWorker(srv.config);
});
afterAll(async () => {
  await terminateRunningJobWorkflows(srv.deps.temporal);
  await worker?.stop();
  await srv?.close();
  await provider?.close();
});

describe('jobs ignore source entitlement', () => {
  test('a person of a source the organization has not enabled is refused at acceptance like an unknown one (unlock answers 404 for it too)', async () => {
    const t = await createTenant({ credits: 100 });
    const [open, pool] = [people(1, 'found', 'web'), people(1, 'found', 'pool')];
    await insertTestPeople(srv.deps.stores, open, OPEN_WEB_SOURCE_ID);
    await insertTestPeople(srv.deps.stores, pool);

    const unlock = await api(srv.url, 'POST', '/v1/profiles/unlock', { key: t.key, body: { person_id: open[0] }, idempotencyKey: idem() });
    expectProblemResponse(unlock, 404, 'not_found');
    const res = await createJob(t, [...pool, ...open]);
    expectProblemResponse(res, 422, 'validation_failed');
    expect(res.json.unknown_person_ids).toEqual(open);
    expect(await srv.deps.stores.jobs.jobsOfOrganizations([t.orgId])).toHaveLength(0);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(100);

    // Once the operator enables the source, the same people are accepted and delivered.
    await setSourceEnabled(fileStores(), srv.config, t.orgId, OPEN_WEB_SOURCE_ID, true);
    const ok = await createJob(t, [...pool, ...open]);
    expect(ok.status).toBe(202);
    expect((await waitForJobToFinish(srv.url, t.key, ok.json.job_id)).counts).toMatchObject({ requested: 2, delivered: 2 });
  });

  test('a source disabled while a job runs: its people are not_found, never asked of the provider, not charged', async () => {
    const t = await createTenant({ credits: 100 });
    await setSourceEnabled(fileStores(), srv.config, t.orgId, OPEN_WEB_SOURCE_ID, true);
    const open = people(2, 'found', 'webrun');
    const pool = people(2, 'found', 'poolrun');
    await insertTestPeople(srv.deps.stores, open, OPEN_WEB_SOURCE_ID);
    await insertTestPeople(srv.deps.stores, pool);
    const asked = () => provider.requests.flatMap((r) => r.personIds);
    const before = new Set(asked());

    const view = await createContactRetrievalJob(
      srv.deps,
      { principal: keyPrincipalOf(t), personIds: [...pool, ...open], fields: ['email'] },
      {
        // The entitlement changes between acceptance and the job's first chunk.
        start: async (input) => {
          await setSourceEnabled(fileStores(), srv.config, t.orgId, OPEN_WEB_SOURCE_ID, false);
          await startContactRetrievalWorkflow(srv.deps.temporal, srv.config, input);
        },
        running: (jobId) => contactRetrievalWorkflowRunning(srv.deps.temporal, jobId, srv.config.temporal.callTimeoutMs),
      },
    );
    const job = await waitForJobToFinish(srv.url, t.key, view.job_id);
    expect(job.counts).toMatchObject({ requested: 4, delivered: 2, not_found: 2 });
    const items = await jobResultItems(srv.url, t.key, view.job_id);
    for (const id of open) expect(items.find((i) => i.person_id === id)).toMatchObject({ outcome: 'not_found', receipt_id: null });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(98);
    const newlyAsked = asked().filter((p) => !before.has(p));
    for (const id of open) expect(newlyAsked).not.toContain(id);
  });

  test('a batch job over a search whose people the organization can no longer see answers them not_found, free', async () => {
    const t = await createTenant({ credits: 100 });
    const open = people(2, 'found', 'webbatch');
    const pool = people(1, 'found', 'poolbatch');
    await insertTestPeople(srv.deps.stores, open, OPEN_WEB_SOURCE_ID);
    await insertTestPeople(srv.deps.stores, pool);
    const search = await storeSearch(
      srv.deps.stores,
      { orgId: t.orgId, fingerprint: `abuse-${n}`, params: {}, personIds: [...open, ...pool], total: 3 },
      Date.now(),
    );
    const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: t.key,
      body: { search_id: search.searchId, limit: 3 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    const job = await waitForJobToFinish(srv.url, t.key, res.json.job_id);
    expect(job.counts).toMatchObject({ requested: 3, delivered: 1, not_found: 2 });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(99);
  });
});

describe('a batch job larger than a chunk is accepted after reading its first chunk of people', () => {
  test('people who are gone or of a source the organization may not use, past the first chunk, are answered not_found by the job, free, never asked of the provider', async () => {
    const t = await createTenant({ credits: 100 });
    const [pool, open, gone] = [people(1, 'found', 'defpool'), people(1, 'found', 'defweb'), people(2, 'found', 'defgone')];
    await insertTestPeople(srv.deps.stores, open, OPEN_WEB_SOURCE_ID);
    await insertTestPeople(srv.deps.stores, pool);
    const asked = () => provider.requests.flatMap((r) => r.personIds);
    const before = new Set(asked());
    // Chunks of 2: the first holds someone to deliver, so the rest is read chunk by chunk by the worker.
    const personIds = [pool[0], gone[0], open[0], gone[1]];
    const search = await storeSearch(
      srv.deps.stores,
      { orgId: t.orgId, fingerprint: `deferred-${n}`, params: {}, personIds, total: personIds.length },
      Date.now(),
    );
    const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: t.key,
      body: { search_id: search.searchId, limit: 4 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    const job = await waitForJobToFinish(srv.url, t.key, res.json.job_id);
    expect(job.counts).toMatchObject({ requested: 4, delivered: 1, not_found: 3, failed: 0 });
    const items = await jobResultItems(srv.url, t.key, job.job_id);
    for (const id of [...gone, ...open]) expect(items.find((i) => i.person_id === id)).toMatchObject({ outcome: 'not_found', receipt_id: null });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(99);
    const newlyAsked = asked().filter((p) => !before.has(p));
    expect(newlyAsked).toEqual(pool);
  });

  test('when the delivery quota does not cover the whole job, people who are gone take no place of it: the same people are delivered as if every person had been read', async () => {
    const t = await createTenant({ credits: 100 });
    await recordDelivered(
      new QuotaWindows(srv.deps.stores.talent),
      t.orgId,
      Array.from({ length: DELIVERY_QUOTA - 1 }, (_, i) => `per_before${String(i).padStart(8, '0')}`),
      Date.now(),
    );
    const [gone, pool] = [people(1, 'found', 'qgone'), people(2, 'found', 'qpool')];
    await insertTestPeople(srv.deps.stores, pool);
    const personIds = [gone[0], ...pool];
    const search = await storeSearch(
      srv.deps.stores,
      { orgId: t.orgId, fingerprint: `deferred-quota-${n}`, params: {}, personIds, total: personIds.length },
      Date.now(),
    );
    const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs/batch', {
      key: t.key,
      body: { search_id: search.searchId, limit: 3 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    const job = await waitForJobToFinish(srv.url, t.key, res.json.job_id);
    expect(job.counts).toMatchObject({ requested: 3, delivered: 1, not_found: 1, failed: 1 });
    const items = await jobResultItems(srv.url, t.key, job.job_id);
    expect(items.find((i) => i.person_id === pool[0])).toMatchObject({ outcome: 'delivered' });
    expect(items.find((i) => i.person_id === pool[1])).toMatchObject({ outcome: 'failed', reason: 'delivery_quota_exceeded' });
  });
});

describe('the daily delivery quota is checked only for the first person of a job', () => {
  test('two jobs started one person below the quota deliver one person between them; the other job is 429 delivery_quota_exceeded', async () => {
    const t = await createTenant({ credits: 100 });
    await recordDelivered(
      new QuotaWindows(srv.deps.stores.talent),
      t.orgId,
      Array.from({ length: DELIVERY_QUOTA - 1 }, (_, i) => `per_before${String(i).padStart(8, '0')}`),
      Date.now(),
    );
    const a = people(5, 'found', 'qa');
    const b = people(5, 'found', 'qb');
    await insertTestPeople(srv.deps.stores, [...a, ...b]);
    const [ra, rb] = await Promise.all([createJob(t, a), createJob(t, b)]);
    const accepted = [ra, rb].filter((r) => r.status === 202);
    const refused = [ra, rb].filter((r) => r.status !== 202);
    expect(accepted).toHaveLength(1);
    expectProblemResponse(refused[0], 429, 'delivery_quota_exceeded');
    expect(refused[0].headers['retry-after']).toBe('1');
    const job = await waitForJobToFinish(srv.url, t.key, accepted[0].json.job_id);
    expect(job.counts).toMatchObject({ requested: 5, delivered: 1, failed: 4 });
    const items = await jobResultItems(srv.url, t.key, job.job_id);
    expect(items.filter((i) => i.outcome === 'failed').every((i) => i.reason === 'delivery_quota_exceeded' && i.contacts.emails.length === 0)).toBe(true);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(99);
    // The quota is full now: nobody new can be delivered today, by a job or an unlock.
    await expect(assertQuotaHasRoom(srv.config, new QuotaWindows(srv.deps.stores.talent), 'deliveries', t.orgId, Date.now())).rejects.toMatchObject({
      code: 'delivery_quota_exceeded',
    });
  });

  test('what a job reserved but did not deliver is given back when it finishes', async () => {
    const t = await createTenant({ credits: 100 });
    await recordDelivered(
      new QuotaWindows(srv.deps.stores.talent),
      t.orgId,
      Array.from({ length: DELIVERY_QUOTA - 3 }, (_, i) => `per_earlier${String(i).padStart(8, '0')}`),
      Date.now(),
    );
    const missing = people(2, 'not_found', 'rel');
    const found = people(2, 'found', 'rel');
    await insertTestPeople(srv.deps.stores, [...missing, ...found]);
    // Three of quota left: the two not-found people and the first found one are covered.
    const first = await createJob(t, [...missing, ...found]);
    expect(first.status).toBe(202);
    const job = await waitForJobToFinish(srv.url, t.key, first.json.job_id);
    expect(job.counts).toMatchObject({ requested: 4, not_found: 2, delivered: 1, failed: 1 });
    // The two reserved for people who were not found came back: two more fit today.
    const more = people(3, 'found', 'rel2');
    await insertTestPeople(srv.deps.stores, more);
    const second = await createJob(t, more);
    expect(second.status).toBe(202);
    expect((await waitForJobToFinish(srv.url, t.key, second.json.job_id)).counts).toMatchObject({ requested: 3, delivered: 2, failed: 1 });
  });
});

describe('jobs over ids that do not exist are free and unlimited', () => {
  test('a job naming people that do not exist is 422 naming them; no job, workflow or document is made', async () => {
    const t = await createTenant({ credits: 100 });
    const real = people(2, 'found', 'real');
    await insertTestPeople(srv.deps.stores, real);
    const ghosts = ['per_ghost000000000001', 'per_ghost000000000002'];
    const res = await createJob(t, [real[0], ghosts[0], real[1], ghosts[1]]);
    expectProblemResponse(res, 422, 'validation_failed');
    expect(res.json.unknown_person_ids).toEqual(ghosts);
    expect(res.json.errors).toEqual([expect.objectContaining({ field: 'person_ids' })]);
    expect(res.json.detail).toContain(ghosts[0]);
    expect(await srv.deps.stores.jobs.jobsOfOrganizations([t.orgId])).toHaveLength(0);
    expect(await srv.deps.stores.jobs.jobPeopleNaming(ghosts)).toHaveLength(0);
    expect(await srv.deps.stores.jobs.daySlotsOfOrganization(t.orgId)).toHaveLength(0);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(100);
  });
});

describe('an organization has a daily job cap', () => {
  test('past its daily cap a job is 429 contact_job_daily_cap with Retry-After until the UTC day rolls; other organizations are not affected', async () => {
    const t = await createTenant({ credits: 100 });
    const other = await createTenant({ credits: 100 });
    await setDailyJobCap(fileStores(), srv.config, t.orgId, 2);
    const who = people(4, 'found', 'cap');
    await insertTestPeople(srv.deps.stores, who);
    for (const p of who.slice(0, 2)) {
      const r = await createJob(t, [p]);
      expect(r.status).toBe(202);
      await waitForJobToFinish(srv.url, t.key, r.json.job_id);
    }
    const third = await createJob(t, [who[2]]);
    expectProblemResponse(third, 429, 'contact_job_daily_cap');
    const retryAfter = Number(third.headers['retry-after']);
    const untilMidnight = Math.ceil((Math.ceil(Date.now() / 86_400_000) * 86_400_000 - Date.now()) / 1000);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Math.abs(retryAfter - untilMidnight)).toBeLessThanOrEqual(5);
    expect(third.json.limit).toBe(2);
    expect(await srv.deps.stores.jobs.jobsOfOrganizations([t.orgId])).toHaveLength(2);
    expect((await createJob(other, [who[3]])).status).toBe(202);
  });

  test('concurrent claims never pass the cap (unique-insert day slots)', async () => {
    const t = await createTenant();
    await setDailyJobCap(fileStores(), srv.config, t.orgId, 3);
    const caps = new DailyJobCapReads(srv.deps.stores.jobs);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => claimDaySlot(srv.deps.stores, srv.config, caps, t.orgId, `job_concurrent${i}`, Date.now())),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const o of outcomes.filter((x) => x.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(Problem);
      expect(((o as PromiseRejectedResult).reason as Problem).code).toBe('contact_job_daily_cap');
    }
    expect(await srv.deps.stores.jobs.daySlotsOfOrganization(t.orgId)).toHaveLength(3);
  });

  test('a job refused by a later check gives its day slot back', async () => {
    const t = await createTenant({ credits: 100 });
    await setDailyJobCap(fileStores(), srv.config, t.orgId, 1);
    const who = people(2, 'found', 'giveback');
    await insertTestPeople(srv.deps.stores, who);
    await recordDelivered(
      new QuotaWindows(srv.deps.stores.talent),
      t.orgId,
      Array.from({ length: DELIVERY_QUOTA }, (_, i) => `per_full${String(i).padStart(8, '0')}`),
      Date.now(),
    );
    expectProblemResponse(await createJob(t, [who[0]]), 429, 'delivery_quota_exceeded');
    expect(await srv.deps.stores.jobs.daySlotsOfOrganization(t.orgId)).toHaveLength(0);
  });
});
