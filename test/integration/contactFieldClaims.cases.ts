import type { Config } from '../../core/config';
import type { ContactProvider } from '../../core/contactProvider/contactProvider';
import { creditBalance, grantCredits } from '../../core/credits/credits';
import { processChunk, type ChunkDeps, type ChunkInput } from '../../core/jobs/chunkProcessing';
import { createContactRetrievalJob } from '../../core/jobs/contactRetrievalJobs';
import { finishJob } from '../../core/jobs/jobFinish';
import { claimContactFields } from '../../core/jobs/contactFieldClaims';
import type { ContactRetrievalInput } from '../../core/jobs/workflowInput';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { openTestStore, type TestStore } from '../support/testStore';
import { eventually } from '../support/eventually';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { testConfig, uniqueName } from '../support/testConfig';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

let testStore: TestStore;

/**
 * Who pays for a person's contact fields when jobs of one organization overlap, at the chunk
 * level (the workflow's part played by the test): a job that could not pay gives its claims
 * back, and a job whose people another job claimed waits for that job to settle them.
 */
let config: Config;

beforeAll(async () => {
  config = testConfig();
  testStore = await openTestStore(config);
  deps = {
    stores: testStore.stores,
    provider: everyoneFound,
    retryPolicy: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    heartbeat: () => undefined,
    now: () => new Date(),
  };
});
afterAll(async () => testStore.close());

/** A provider that finds everyone: every person is a record. */
const everyoneFound: ContactProvider = {
  name: 'test',
  lookup: async ({ personIds, fields }) =>
    personIds.map((personId) => ({
      personId,
      status: 'found' as const,
      emails: fields.includes('email') ? [`${personId}@mail.test`] : [],
      phones: fields.includes('phone') ? ['+15550100'] : [],
    })),
};

let deps: ChunkDeps;

async function acceptedJob(tenant: TestTenant, people: string[]): Promise<ChunkInput> {
  let started: ContactRetrievalInput | undefined;
  await createContactRetrievalJob(
    createDeps(config, { logger: testLogger(), store: testStore.handle }),
    {
      principal: { ...tenant, audience: 'developer-api', scopes: [...ALL_PERMISSIONS] },
      personIds: people,
      fields: ['email', 'phone'],
    },
    { start: async (input) => void (started = input), running: async () => true },
  );
  const input = started!;
  return { jobId: input.jobId, orgId: input.orgId, familyId: input.familyId, fields: input.fields, from: 0, to: people.length, reusable: [] };
}

async function newPeople(count: number): Promise<string[]> {
  const tag = uniqueName('clm').replace(/[^0-9A-Za-z]/g, '');
  const ids = Array.from({ length: count }, (_, i) => `per_${tag}${i}`);
  await insertTestPeople(testStore.stores, ids);
  return ids;
}

const outcomes = async (jobId: string) => (await testStore.stores.jobs.itemsOfJob(jobId)).map((d) => [d.personId, d.outcome, d.reason ?? null]);

test('a job that could pay for two of five gives the other claims back; a later job pays for those three only', async () => {
  const tenant = await createTenant({ credits: 2 });
  const people = await newPeople(5);
  const a = await acceptedJob(tenant, people);
  expect(await processChunk(a, deps)).toEqual({ tally: { delivered: 2, failed: 3 }, outOfCredits: true });
  const held = await testStore.stores.jobs.claimsOfOrganization(tenant.orgId);
  expect(held.map((c) => c.personId).sort()).toEqual([people[0], people[0], people[1], people[1]]);

  await grantCredits({ stores: testStore.stores, now: Date.now }, tenant.orgId, 10);
  const b = await acceptedJob(tenant, people);
  expect(await processChunk(b, deps)).toEqual({ tally: { reused: 2, delivered: 3 }, outOfCredits: false });
  expect(await outcomes(b.jobId)).toEqual([
    [people[0], 'reused', null],
    [people[1], 'reused', null],
    [people[2], 'delivered', null],
    [people[3], 'delivered', null],
    [people[4], 'delivered', null],
  ]);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(12 - 5);
  // A retried attempt of the chunk replays its decision and its charge: nothing more is paid.
  expect(await processChunk(b, { ...deps, firstAttempt: false })).toEqual({ tally: { reused: 2, delivered: 3 }, outOfCredits: false });
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(7);
});

describe('a person another job claimed and is still paying for', () => {
  async function claimedByOtherJob(): Promise<{ tenant: TestTenant; people: string[]; other: ChunkInput; chunk: Promise<unknown>; mine: ChunkInput }> {
    const tenant = await createTenant({ credits: 100 });
    const people = await newPeople(3);
    const other = await acceptedJob(tenant, people);
    // The other job has claimed the first person's fields and not settled them yet.
    await testStore.stores.jobs.insertClaims(
      (['email', 'phone'] as const).map((field) => ({
        _id: `${tenant.orgId}:${people[0]}:${field}:0`,
        orgId: tenant.orgId,
        personId: people[0],
        field,
        generation: 0,
        jobId: other.jobId,
        seq: 0,
        claimedAt: new Date(),
      })),
    );
    const mine = await acceptedJob(tenant, people);
    const chunk = processChunk(mine, deps);
    // The job settles its own people first, then waits for the other job.
    await eventually('the people this job pays for to be settled', async () => (await testStore.stores.jobs.itemsOfJob(mine.jobId)).length === 2);
    return { tenant, people, other, chunk, mine };
  }

  const settle = (jobId: string, personId: string, outcome: 'delivered' | 'failed') =>
    testStore.stores.jobs.insertJobItems([
      {
        _id: `${jobId}:0`,
        jobId,
        seq: 0,
        personId,
        outcome,
        reason: outcome === 'failed' ? 'insufficient_credits' : null,
        receiptId: null,
        processedAt: new Date(),
      },
    ]);

  test('is reused, free, once that job delivered it', async () => {
    const { tenant, people, other, chunk, mine } = await claimedByOtherJob();
    expect((await testStore.stores.jobs.itemsOfJob(mine.jobId)).filter((i) => i.personId === people[0])).toHaveLength(0);
    await settle(other.jobId, people[0], 'delivered');
    expect(await chunk).toEqual({ tally: { reused: 1, delivered: 2 }, outOfCredits: false });
    const item = (await testStore.stores.jobs.itemsOfJob(mine.jobId)).find((i) => i._id === `${mine.jobId}:0`);
    expect(item).toMatchObject({ outcome: 'reused', emails: [`${people[0]}@mail.test`], phones: ['+15550100'], receiptId: null });
    expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(98);
  });

  test('fails free when that job could not pay, and its dead claim is removed', async () => {
    const { tenant, people, other, chunk, mine } = await claimedByOtherJob();
    await settle(other.jobId, people[0], 'failed');
    expect(await chunk).toEqual({ tally: { failed: 1, delivered: 2 }, outOfCredits: false });
    expect(await outcomes(mine.jobId)).toEqual([
      [people[0], 'failed', 'insufficient_credits'],
      [people[1], 'delivered', null],
      [people[2], 'delivered', null],
    ]);
    expect((await testStore.stores.jobs.claimsOfOrganization(tenant.orgId)).filter((c) => c.personId === people[0])).toHaveLength(0);
    expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(98);
  });
});

test('past the 30-day window the fields are claimed (and paid) again, once, under the next generation', async () => {
  const tenant = await createTenant({ credits: 100 });
  const people = await newPeople(2);
  const longAgo = new Date(Date.now() - 31 * 24 * 3600 * 1000);
  const old = await acceptedJob(tenant, people);
  expect(await processChunk(old, { ...deps, now: () => longAgo })).toMatchObject({ tally: { delivered: 2 } });
  const again = await acceptedJob(tenant, people);
  expect(await processChunk(again, deps)).toMatchObject({ tally: { delivered: 2 } });
  const claims = await testStore.stores.jobs.claimsOfOrganization(tenant.orgId);
  // Two people, two fields: four claims per generation.
  expect(claims.filter((c) => c.generation === 0 && c.jobId === old.jobId)).toHaveLength(4);
  expect(claims.filter((c) => c.generation === 1 && c.jobId === again.jobId)).toHaveLength(4);
  expect(claims).toHaveLength(8);
  // Within the window of the new claims, nobody pays again (the old job finishes: two run at most).
  await finishJob(testStore.stores, old.jobId, null, new Date());
  const third = await acceptedJob(tenant, people);
  expect(await processChunk(third, deps)).toMatchObject({ tally: { reused: 2 } });
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(96);
});

test('a job stopped after claiming and before paying gives its claims back when it finishes', async () => {
  const tenant = await createTenant({ credits: 100 });
  const people = await newPeople(2);
  const job = await acceptedJob(tenant, people);
  const now = new Date();
  const entries = people.map((personId, seq) => ({ seq, personId, answer: 'found' as const, emails: [`${personId}@mail.test`], phones: [] }));
  await testStore.stores.jobs.insertChunkPlan({ _id: `${job.jobId}:0`, jobId: job.jobId, from: 0, to: 2, entries, createdAt: now });
  const claims = await claimContactFields(testStore.stores, { orgId: tenant.orgId, jobId: job.jobId, fields: job.fields, people: entries }, now);
  await testStore.stores.jobs.insertChunkPayment({
    _id: `${job.jobId}:0`,
    jobId: job.jobId,
    ours: entries.map((e) => ({ seq: e.seq, claimIds: claims.get(e.seq)!.ours })),
    others: [],
    createdAt: now,
  });
  expect(await testStore.stores.jobs.claimsOfOrganization(tenant.orgId)).toHaveLength(4);

  const finished = await finishJob(testStore.stores, job.jobId, 'cancelled', new Date());
  expect(finished.counts).toMatchObject({ cancelled: 2, delivered: 0 });
  expect(await testStore.stores.jobs.claimsOfOrganization(tenant.orgId)).toHaveLength(0);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(100);
  // The people are free to be paid for by the next job.
  const next = await acceptedJob(tenant, people);
  expect(await processChunk(next, deps)).toMatchObject({ tally: { delivered: 2 } });
});
