import { createTalentClient, JobWaitTimeout, ProblemError, type TalentClient } from '../../clients/typescript/src';
import { idempotencyRecordId, requestFingerprint } from '../../core/idempotency/idempotency';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';

/**
 * The generated TypeScript client (clients/typescript) against the real
 * running service: key from the environment, idempotency keys for paid calls, pagination as
 * async iterators, problem documents as typed errors.
 */
/** A search needs a query or a filter: every seniority matches everyone. */
const EVERYONE = {
  filters: {
    seniority: ['intern', 'junior', 'mid', 'senior', 'lead', 'manager', 'director', 'vp', 'executive'] as (
      'intern' | 'junior' | 'mid' | 'senior' | 'lead' | 'manager' | 'director' | 'vp' | 'executive'
    )[],
  },
};

let srv: TestApi;
let tenant: TestTenant;
let client: TalentClient;
let worker: TestWorker | undefined;

beforeAll(async () => {
  srv = await startTestApi();
  tenant = await createTenant({ credits: 1000 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 120 });
  process.env.TALENT_API_KEY = tenant.key;
  process.env.TALENT_API_URL = srv.url;
  client = createTalentClient();
});
afterAll(async () => {
  await worker?.stop();
  delete process.env.TALENT_API_KEY;
  delete process.env.TALENT_API_URL;
  await srv?.close();
});

test('reads the key and the address from the environment: whoami', async () => {
  const me = await client.whoami();
  expect(me.data).toMatchObject({ workspace_id: tenant.workspaceId, key_id: tenant.keyId });
});

test('without a key in the environment or the options it refuses to start', () => {
  const saved = process.env.TALENT_API_KEY;
  delete process.env.TALENT_API_KEY;
  try {
    expect(() => createTalentClient({ baseUrl: srv.url })).toThrow(/TALENT_API_KEY/);
  } finally {
    process.env.TALENT_API_KEY = saved;
  }
});

test("paid calls get a fresh idempotency key each, or replay with the caller's own", async () => {
  const a = await client.searchCandidates({ ...EVERYONE, page_size: 5 });
  const b = await client.searchCandidates({ ...EVERYONE, page_size: 5 });
  expect(a.data.search_id).not.toBe(b.data.search_id);
  const key = `client-test-${Date.now()}`;
  const first = await client.searchCandidates({ ...EVERYONE, page_size: 5 }, { idempotencyKey: key });
  const replay = await client.searchCandidates({ ...EVERYONE, page_size: 5 }, { idempotencyKey: key });
  expect(replay.data).toEqual(first.data);
  // The metadata beside the body tells the replay apart: charged once, then 0.
  expect(first.meta).toMatchObject({ replayed: false, creditsCharged: 1, status: 200, requestId: expect.stringMatching(/^req_/) });
  expect(replay.meta).toMatchObject({ replayed: true, creditsCharged: 0, creditsRemaining: first.meta.creditsRemaining });
  expect(first.meta.rateLimit.baseline).toEqual({ remaining: expect.any(Number), resetSeconds: expect.any(Number) });
  expect(first.meta.rateLimit.in_flight).toEqual({ remaining: expect.any(Number) });
  expect((await client.whoami()).meta).toMatchObject({ creditsCharged: undefined, replayed: false });
});

test('a search pages on as an async iterator', async () => {
  const seen: string[] = [];
  for await (const person of client.searchAllCandidates({ ...EVERYONE, page_size: 10 })) {
    seen.push(person.person_id);
    if (seen.length === 25) break;
  }
  expect(seen).toHaveLength(25);
  expect(new Set(seen).size).toBe(25);
});

test('a list pages on as an async iterator, one page per cursor', async () => {
  const people = [];
  for await (const p of client.searchAllCandidates({ ...EVERYONE, page_size: 2 })) {
    people.push(p.person_id);
    if (people.length === 2) break;
  }
  const jobs = [];
  for (const id of people) jobs.push((await client.createContactRetrievalJob({ person_ids: [id], fields: ['email'] })).data);
  const listed = [];
  for await (const job of client.list('/v1/contact-retrieval-jobs', { limit: 1 })) listed.push(job.job_id);
  expect(listed.sort()).toEqual(jobs.map((j) => j.job_id).sort());
});

test('problem documents become typed errors', async () => {
  const missing = await client.unlockProfile({ person_id: 'per_doesnotexist000' }).catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(ProblemError);
  expect(missing).toMatchObject({ status: 404, code: 'not_found' });

  const narrow = await addKey(tenant, ['limits.v1:read']);
  const limited = createTalentClient({ apiKey: narrow.key, baseUrl: srv.url });
  const refused = await limited.searchCandidates({ ...EVERYONE, page_size: 1 }).catch((e: unknown) => e);
  expect(refused).toMatchObject({ status: 403, code: 'insufficient_scope' });

  const invalid = createTalentClient({ apiKey: 'sk_live_ext_' + 'x'.repeat(40), baseUrl: srv.url });
  expect(await invalid.whoami().catch((e: unknown) => e)).toMatchObject({ status: 401, code: 'invalid_api_key' });
});

test('a Retry-After longer than the client waits for is thrown at once with its value', async () => {
  // Two jobs already run for this organization (previous test): the third is 429 with Retry-After 30.
  const impatient = createTalentClient({ maxRetryWaitSeconds: 5 });
  const started = Date.now();
  const people = [];
  for await (const p of client.searchAllCandidates({ ...EVERYONE, page_size: 3 })) {
    people.push(p.person_id);
    if (people.length === 3) break;
  }
  const err = await impatient.createContactRetrievalJob({ person_ids: [people[2]], fields: ['email'] }).catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 429, code: 'contact_job_concurrency_cap', retryAfterSeconds: 30 });
  expect(Date.now() - started).toBeLessThan(5000);
});

async function somePeople(count: number): Promise<string[]> {
  const people: string[] = [];
  for await (const p of client.searchAllCandidates({ ...EVERYONE, page_size: count })) {
    people.push(p.person_id);
    if (people.length === count) break;
  }
  return people;
}

test("a 409 idempotency_in_progress is retried after its Retry-After, with the same key, until the first request's answer", async () => {
  const t = await createTenant({ credits: 20 });
  const [person] = await somePeople(1);
  const key = `client-busy-${Date.now()}`;
  const now = Date.now();
  const recordId = idempotencyRecordId(t.orgId, t.workspaceId, key);
  // A request with this key is running elsewhere (its lease is live); it stops once the client saw the 409.
  await srv.deps.stores.idempotency.insertClaim({
    _id: recordId,
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    operation: 'profiles.unlock',
    fingerprint: requestFingerprint('profiles.unlock', 'POST', '/v1/profiles/unlock', { person_id: person }, t),
    nonce: 'other-request',
    state: 'in_progress',
    owner: 'another-replica',
    leaseUntil: new Date(now + 60_000),
    createdAt: new Date(now),
    expiresAt: new Date(now + 86_400_000),
  });
  const seen: Array<{ status: number; key: string | null; retryAfter: string | null }> = [];
  const watching = createTalentClient({
    apiKey: t.key,
    baseUrl: srv.url,
    fetch: async (input, init) => {
      const request = new Request(input as Request, init);
      const res = await fetch(request);
      seen.push({ status: res.status, key: request.headers.get('Idempotency-Key'), retryAfter: res.headers.get('Retry-After') });
      // The other request's lease lapses (same holder, lease in the past).
      if (res.status === 409) await srv.deps.stores.idempotency.moveClaim(recordId, 'another-replica', 'another-replica', new Date(Date.now() - 1000));
      return res;
    },
  });
  const unlocked = await watching.unlockProfile({ person_id: person }, { idempotencyKey: key });
  expect(seen).toEqual([
    { status: 409, key, retryAfter: '1' },
    { status: 200, key, retryAfter: null },
  ]);
  expect(unlocked.data).toMatchObject({ credits_charged: 5 });
  expect(unlocked.meta).toMatchObject({ creditsCharged: 5, creditsRemaining: 15, replayed: false });
});

test('waitForJob gives up at its timeout while the job runs (no worker yet)', async () => {
  const t = await createTenant({ credits: 20 });
  const own = createTalentClient({ apiKey: t.key, baseUrl: srv.url });
  const [person] = await somePeople(1);
  const job = await own.createContactRetrievalJob({ person_ids: [person], fields: ['email'] });
  const err = await own.waitForJob(job.data.job_id, { timeoutMs: 300, intervalMs: 100 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(JobWaitTimeout);
  expect(err).toMatchObject({ jobId: job.data.job_id, timeoutMs: 300 });
});

test('waitForJob answers the finished job; jobResultItems pages through every item of its result', async () => {
  worker = await startTestWorker(srv.config);
  const t = await createTenant({ credits: 50 });
  const own = createTalentClient({ apiKey: t.key, baseUrl: srv.url });
  const people = await somePeople(5);
  const job = await own.createContactRetrievalJob({ person_ids: people, fields: ['email'] });
  const done = await own.waitForJob(job.data.job_id, { timeoutMs: 60_000, intervalMs: 200 });
  expect(done.data.status).not.toBe('running');
  expect(done.meta.rateLimit['contact_retrieval_jobs.get']).toEqual({ remaining: expect.any(Number), resetSeconds: expect.any(Number) });
  const firstPage = await own.getJobResult(job.data.job_id, { limit: 2 });
  expect(firstPage.data.items).toHaveLength(2);
  expect(firstPage.data.next_cursor).toEqual(expect.any(String));
  const items = [];
  for await (const item of own.jobResultItems(job.data.job_id, { limit: 2 })) items.push(item.person_id);
  expect(items.sort()).toEqual([...people].sort());
});
