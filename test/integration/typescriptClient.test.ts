import { createTalentClient, ProblemError, type TalentClient } from '../../clients/typescript/src';
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

beforeAll(async () => {
  srv = await startTestApi();
  tenant = await createTenant({ credits: 1000 });
  await seedPeople({ secretsKey: srv.config.secretsKey, count: 120 });
  process.env.TALENT_API_KEY = tenant.key;
  process.env.TALENT_API_URL = srv.url;
  client = createTalentClient();
});
afterAll(async () => {
  delete process.env.TALENT_API_KEY;
  delete process.env.TALENT_API_URL;
  await srv?.close();
});

test('reads the key and the address from the environment: whoami', async () => {
  const me = await client.whoami();
  expect(me).toMatchObject({ workspace_id: tenant.workspaceId, key_id: tenant.keyId });
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
  expect(a.search_id).not.toBe(b.search_id);
  const key = `client-test-${Date.now()}`;
  const first = await client.searchCandidates({ ...EVERYONE, page_size: 5 }, { idempotencyKey: key });
  const replay = await client.searchCandidates({ ...EVERYONE, page_size: 5 }, { idempotencyKey: key });
  expect(replay).toEqual(first);
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
  for (const id of people) jobs.push(await client.createContactRetrievalJob({ person_ids: [id], fields: ['email'] }));
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
