import { creditBalance } from '../../core/credits/credits';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { eventually } from '../support/eventually';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { apiHonouringRateLimits } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { jobResultItems, waitForJobToFinish } from '../support/contactRetrievalJobs';

/**
 * Jobs of one organization over the same people, sent together, over HTTP with a worker: the
 * organization pays once per person and field whatever number of its jobs run at once (the
 * decision is made when a chunk pays, not when a job starts), and every job still delivers the
 * contacts, `reused` for the people another job paid for.
 */
const PROVIDER_TOKEN = 'provider-secret-token-overlap';
let provider: ContactProviderServer;
let srv: TestApi;
let worker: TestWorker;
let n = 0;

beforeAll(async () => {
  // Slow enough that the jobs' chunks are all in flight at once.
  provider = await startContactProviderServer({ token: PROVIDER_TOKEN, latencyMs: 150 });
  srv = await startTestApi({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: PROVIDER_TOKEN,
    CONTACT_PROVIDER_TIMEOUT_MS: '5000',
    CONTACT_PROVIDER_RETRY_BASE_MS: '10',
    CONTACT_JOB_CHUNK_SIZE: '7',
    CONTACT_JOB_CONCURRENCY: '3',
  });
  worker = await startTestWorker(srv.config);
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
  await provider?.close();
});

const people = (count: number) => {
  const tag = `ov${Date.now().toString(36)}${++n}`;
  return Array.from({ length: count }, (_, i) => `per_${tag}${String(i).padStart(5, '0')}`);
};

/**
 * Sends a job and, while the organization's two running-job slots are taken (429
 * `contact_job_concurrency_cap`), sends it again as soon as one frees: the jobs still overlap.
 */
async function accepted(t: TestTenant, body: unknown): Promise<string> {
  const key = `overlap-${Date.now()}-${++n}`;
  return eventually(
    'the job to be accepted',
    async () => {
      const res = await apiHonouringRateLimits(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: t.key, body, idempotencyKey: key });
      if (res.status === 429 && res.json.code === 'contact_job_concurrency_cap') return undefined;
      expect(res.status).toBe(202);
      return res.json.job_id as string;
    },
    { timeoutMs: 120_000, intervalMs: 50 },
  );
}

async function chargedFor(jobIds: string[]): Promise<number> {
  const entries = (await Promise.all(jobIds.map((j) => srv.deps.stores.credits.ledgerEntriesUnderChargeKeyPrefix(`job:${j}:`))))
    .flat()
    .filter((e) => e.kind === 'charge');
  return entries.reduce((s, e) => s + e.amount, 0);
}

test('four jobs over the same 40 people sent together: each person and field paid once, the other jobs reuse', async () => {
  const t = await createTenant({ credits: 1000 });
  const ids = people(40);
  await insertTestPeople(srv.deps.stores, ids);
  const found = ids.filter((p) => providerAnswerFor(p).status === 'found');
  expect(found.length).toBeGreaterThan(20);
  const before = await creditBalance(srv.deps, t.orgId);

  const body = { person_ids: ids, fields: ['email', 'phone'] };
  const jobIds = await Promise.all([0, 1, 2, 3].map(() => accepted(t, body)));
  const jobs = await Promise.all(jobIds.map((id) => waitForJobToFinish(srv.url, t.key, id, 120_000)));

  const deliveredBy = new Map<string, string[]>();
  for (const [i, job] of jobs.entries()) {
    expect(job.status).toBe('completed');
    expect(job.counts.delivered + job.counts.reused).toBe(found.length);
    expect(job.counts.not_found).toBe(ids.length - found.length);
    const items = await jobResultItems(srv.url, t.key, jobIds[i]);
    for (const it of items) {
      const a = providerAnswerFor(it.person_id);
      if (a.status !== 'found') continue;
      // Every job hands over the contacts, paid or reused.
      expect(it.contacts).toEqual({ emails: a.emails, phones: a.phones });
      expect(['delivered', 'reused']).toContain(it.outcome);
      if (it.outcome === 'delivered') deliveredBy.set(it.person_id, [...(deliveredBy.get(it.person_id) ?? []), jobIds[i]]);
      else expect(it.receipt_id).toBeNull();
    }
  }
  // Each found person was delivered (paid) by exactly one job.
  expect([...deliveredBy.keys()].sort()).toEqual([...found].sort());
  for (const [, by] of deliveredBy) expect(by).toHaveLength(1);
  const delivered = jobs.reduce((s, j) => s + j.counts.delivered, 0);
  expect(delivered).toBe(found.length);

  // Spent = distinct records delivered, in the ledger and in the balance.
  expect(await chargedFor(jobIds)).toBe(found.length);
  expect(await creditBalance(srv.deps, t.orgId)).toBe(before - found.length);
  const stored = (await Promise.all(jobIds.map((id) => srv.deps.stores.jobs.itemsOfJob(id)))).flat().filter((i) => i.outcome === 'delivered').length;
  expect(stored).toBe(found.length);

  // One claim per person and field, held by the job that delivered the person.
  const claims = await srv.deps.stores.jobs.claimsOfOrganization(t.orgId);
  expect(claims).toHaveLength(found.length * 2);
  for (const c of claims) expect(deliveredBy.get(c.personId)).toEqual([c.jobId]);

  // A later job over the same people pays nothing.
  const later = await waitForJobToFinish(srv.url, t.key, await accepted(t, body), 120_000);
  expect(later.counts).toMatchObject({ delivered: 0, reused: found.length });
  expect(await creditBalance(srv.deps, t.orgId)).toBe(before - found.length);
});

test('a job asking one more field pays for the people once more, once, however many such jobs run at once', async () => {
  const t = await createTenant({ credits: 1000 });
  const ids = people(14);
  await insertTestPeople(srv.deps.stores, ids);
  const found = ids.filter((p) => providerAnswerFor(p).status === 'found');
  const before = await creditBalance(srv.deps, t.orgId);
  const emailOnly = await waitForJobToFinish(srv.url, t.key, await accepted(t, { person_ids: ids, fields: ['email'] }), 120_000);
  expect(emailOnly.counts.delivered).toBe(found.length);
  const both = await Promise.all([0, 1, 2].map(() => accepted(t, { person_ids: ids, fields: ['email', 'phone'] })));
  const done = await Promise.all(both.map((id) => waitForJobToFinish(srv.url, t.key, id, 120_000)));
  // The phone field is new: one record per found person, paid by one of the three jobs.
  expect(done.reduce((s, j) => s + j.counts.delivered, 0)).toBe(found.length);
  expect(done.reduce((s, j) => s + j.counts.reused, 0)).toBe(2 * found.length);
  expect(await creditBalance(srv.deps, t.orgId)).toBe(before - 2 * found.length);
});
