import { creditBalance } from '../../core/credits/credits';
import { createContactRetrievalJob } from '../../core/jobs/contactRetrievalJobs';
import { contactRetrievalWorkflowId } from '../../core/jobs/jobRules';
import { jobSlotHolders } from '../../core/jobs/jobSlots';
import { Problem } from '../../core/problems';
import { createTenant, insertTestPeople, keyPrincipalOf, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { terminateRunningJobWorkflows } from '../support/contactRetrievalJobs';
import { createDeps } from '../../core/deps';
import { StoreAdmission } from '../../core/limits/requestAdmission';
import { TestClock } from '../support/testClock';
import { testConfig } from '../support/testConfig';
import { openTestStore, type TestStore } from '../support/testStore';
import { testLogger } from '../support/capturedLogs';

/**
 * The two-running-jobs cap (SPEC 8.1). No worker polls this file's task queue, so accepted
 * jobs stay running for as long as the test needs.
 */
let srv: TestApi;
let admissionStore: TestStore;
/** The clock the API's admission reads: a test moves it on to a new one-second window. */
const clock = new TestClock();
let seq = 0;
// Jobs refuse people that do not exist: every test draws from people put in the dataset first.
const pool = Array.from({ length: 300 }, (_, k) => `per_cap${String(k).padStart(6, '0')}xp`);
const person = (_i: number) => pool[seq++];

/** Fresh caches for each acceptance, over the API's Temporal clients (which the API closes). */
const jobDeps = () => createDeps(srv.config, { logger: testLogger(), temporal: srv.deps.temporal, store: srv.deps.store });

beforeAll(async () => {
  // The admission is built on a store of the file's database opened first: the API's own opens with it.
  const config = testConfig({});
  admissionStore = await openTestStore(config);
  srv = await startTestApi({}, config, { admission: new StoreAdmission(admissionStore.stores.limits, clock.now, testLogger()) });
  await insertTestPeople(srv.deps.stores, pool);
});
afterAll(async () => {
  await terminateRunningJobWorkflows(srv.deps.temporal);
  await srv.close();
  await admissionStore?.close();
});

async function expectNothingBeyond(t: TestTenant, accepted: string[], balance: number, people: string[]) {
  const jobs = await srv.deps.stores.jobs.jobsOfOrganizations([t.orgId]);
  expect(jobs.map((j) => j._id).sort()).toEqual([...accepted].sort());
  // People (pending) or items (settled) exist for the accepted jobs only: one person each.
  expect((await srv.deps.stores.jobs.jobItemsNaming(people)).filter((i) => !accepted.includes(i.jobId))).toHaveLength(0);
  expect((await srv.deps.stores.jobs.jobPeopleNaming(people)).filter((d) => !accepted.includes(d._id))).toHaveLength(0);
  for (const j of jobs) {
    const pending = (await srv.deps.stores.jobs.findJobPeople(j._id))?.personIds.length ?? 0;
    const settled = (await srv.deps.stores.jobs.itemsOfJob(j._id)).length;
    expect(j.status === 'running' ? Math.max(pending, settled) : settled).toBe(1);
  }
  expect((await srv.deps.stores.credits.ledgerEntriesOfOrgs([t.orgId])).filter((e) => e.chargeKey.startsWith('job:')).length).toBe(0);
  expect(await creditBalance(srv.deps, t.orgId)).toBe(balance);
  expect((await jobSlotHolders(srv.deps.stores, t.orgId)).map((h) => h.jobId).sort()).toEqual([...accepted].sort());
}

test('50 concurrent creates of one organization: exactly two accepted, the rest refused and never existed', async () => {
  const t = await createTenant({ credits: 100 });
  const principal = keyPrincipalOf(t);
  const people = Array.from({ length: 50 }, (_, i) => person(i));
  const outcomes = await Promise.allSettled(people.map((p) => createContactRetrievalJob(jobDeps(), { principal, personIds: [p], fields: ['email'] })));
  const accepted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ job_id: string }>).value.job_id);
  expect(accepted).toHaveLength(2);
  for (const o of outcomes.filter((x) => x.status === 'rejected')) {
    const p = (o as PromiseRejectedResult).reason as Problem;
    expect(p).toBeInstanceOf(Problem);
    expect(p.code).toBe('contact_job_concurrency_cap');
    expect(p.status).toBe(429);
    expect(p.headers).toEqual({ 'Retry-After': '30', 'Cache-Control': 'private, no-store' });
  }
  await expectNothingBeyond(t, accepted, 100, people);
});

test('over HTTP, 50 concurrent creates: two 202, every other one 429 with no-store, nothing recorded', async () => {
  const t = await createTenant({ credits: 100 });
  const people = Array.from({ length: 50 }, (_, i) => person(i));
  const responses = await Promise.all(
    people.map((p, i) => api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: t.key, body: { person_ids: [p] }, idempotencyKey: `cap-${seq}-${i}-key` })),
  );
  const accepted = responses.filter((r) => r.status === 202).map((r) => r.json.job_id);
  expect(accepted).toHaveLength(2);
  let capped = 0;
  for (const r of responses.filter((x) => x.status !== 202)) {
    expect(r.status).toBe(429);
    expect(r.headers['cache-control']).toBe('private, no-store');
    // The per-operation request rate (SPEC 8.1 item 2) may refuse some first; the rest meet the cap.
    expect(['contact_job_concurrency_cap', 'rate_limited']).toContain(r.json.code);
    if (r.json.code === 'contact_job_concurrency_cap') {
      capped++;
      expect(r.headers['retry-after']).toBe('30');
    }
  }
  expect(capped).toBeGreaterThan(0);
  await expectNothingBeyond(t, accepted, 100, people);

  // A later, lone create meets the cap exactly: in a window second of its own, where the
  // operation's request rate cannot refuse it, only the cap does.
  clock.nextSecond();
  const third = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: t.key,
    body: { person_ids: [person(99)] },
    idempotencyKey: `cap-${seq}-third`,
  });
  expect(third.status).toBe(429);
  expect(third.json.code).toBe('contact_job_concurrency_cap');
  expect(third.headers['retry-after']).toBe('30');
});

test('the cap is per organization: another organization still starts jobs', async () => {
  const a = await createTenant({ credits: 10 });
  const b = await createTenant({ credits: 10 });
  for (let i = 0; i < 2; i++) await createContactRetrievalJob(jobDeps(), { principal: keyPrincipalOf(a), personIds: [person(i)], fields: ['email'] });
  await expect(createContactRetrievalJob(jobDeps(), { principal: keyPrincipalOf(a), personIds: [person(3)], fields: ['email'] })).rejects.toMatchObject({
    code: 'contact_job_concurrency_cap',
  });
  const other = await createContactRetrievalJob(jobDeps(), { principal: keyPrincipalOf(b), personIds: [person(4)], fields: ['email'] });
  expect(other.status).toBe('running');
});

test('a slot whose workflow is gone is reclaimed by the next create', async () => {
  const t = await createTenant({ credits: 10 });
  const p = keyPrincipalOf(t);
  const first = await createContactRetrievalJob(jobDeps(), { principal: p, personIds: [person(1)], fields: ['email'] });
  await createContactRetrievalJob(jobDeps(), { principal: p, personIds: [person(2)], fields: ['email'] });
  await expect(createContactRetrievalJob(jobDeps(), { principal: p, personIds: [person(3)], fields: ['email'] })).rejects.toMatchObject({
    code: 'contact_job_concurrency_cap',
  });

  const client = await srv.deps.temporal.client();
  await client.workflow.getHandle(contactRetrievalWorkflowId(first.job_id)).terminate('operator removed it');
  // Fresh claims are trusted for a grace period (creation in progress); age this one past it.
  await srv.deps.stores.jobs.setJobSlotClaimedAt(t.orgId, first.job_id, new Date(Date.now() - 5 * 60_000));
  const third = await createContactRetrievalJob(jobDeps(), { principal: p, personIds: [person(4)], fields: ['email'] });
  expect(third.status).toBe('running');
  const holders = (await jobSlotHolders(srv.deps.stores, t.orgId)).map((h) => h.jobId);
  expect(holders).toContain(third.job_id);
  expect(holders).not.toContain(first.job_id);
  // The reclaimed job does not stay `running`: it ends, its person failed with processing_error.
  const ended = (await srv.deps.stores.jobs.findJob({ _id: first.job_id }))!;
  expect(ended.status).not.toBe('running');
  expect(ended.counts).toMatchObject({ requested: 1, pending: 0 });
  const settled = await srv.deps.stores.jobs.itemsOfJob(first.job_id);
  expect(settled).toHaveLength(1);
  if (ended.counts!.failed === 1) {
    expect(ended.status).toBe('failed');
    expect(settled[0].reason).toBe('processing_error');
  }
});
