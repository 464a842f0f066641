import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createContactActivities, type ContactActivities } from '../../activities/contacts';
import type { ChunkInput } from '../../core/jobs/chunkProcessing';
import type { Config } from '../../core/config';
import { creditBalance } from '../../core/credits/credits';
import { createContactRetrievalJob } from '../../core/jobs/contactRetrievalJobs';
import { chunkChargeKey } from '../../core/jobs/jobRules';
import type { ContactRetrievalInput } from '../../core/jobs/workflowInput';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTemporalClients, type TemporalClients } from '../../core/temporal/client';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { eventually } from '../support/eventually';
import { createTenant, insertTestPeople, keyPrincipalOf, type TestTenant } from '../support/fixtures';
import { testConfig, uniqueName } from '../support/testConfig';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

let testStore: TestStore;

/**
 * The chunk activity (activities/contacts.ts) run as Temporal runs it, in an activity context
 * from `MockActivityEnvironment`: its heartbeats, its cancellation (the job deadline cancels
 * running chunks) and a retried attempt that finds the work of an earlier one. Real store,
 * real provider over HTTP on loopback; only the Temporal server is left out.
 */
const PROVIDER_TIMEOUT_MS = 20_000;
const CREDITS = 100;
let provider: ContactProviderServer;
let config: Config;
let activities: ContactActivities;
/** For the activities' job emission, which these tests never reach: nothing connects. */
let temporal: TemporalClients;

beforeAll(async () => {
  provider = await startContactProviderServer();
  config = testConfig({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    // Long enough that a chunk ending quickly after a cancel proves the cancel ended it.
    CONTACT_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    CONTACT_PROVIDER_RETRY_BASE_MS: '10',
  });
  testStore = await openTestStore(config);
  temporal = createTemporalClients(config);
  activities = createContactActivities(createDeps(config, { temporal, logger: testLogger(), store: testStore.handle }));
});

afterAll(async () => {
  await temporal?.close();
  await testStore.close();
  await provider?.close();
});

/** An activity context as attempt `attempt` of the chunk activity would get; SDK logs kept quiet. */
function activityEnvironment(attempt: number): MockActivityEnvironment {
  return new MockActivityEnvironment({ attempt, activityType: 'processContactChunk' }, { logger: new DefaultLogger('ERROR') });
}

/** A job of six people (some the provider finds, at least one it does not), accepted but not started. */
async function acceptedJob(): Promise<{ tenant: TestTenant; chunk: ChunkInput; found: number }> {
  const tag = uniqueName('act');
  const pool = Array.from({ length: 40 }, (_, i) => `${tag}_${i}`);
  const isFound = (id: string) => providerAnswerFor(id).status === 'found';
  const people = [...pool.filter(isFound).slice(0, 4), ...pool.filter((id) => !isFound(id)).slice(0, 2)];
  expect(people).toHaveLength(6);
  await insertTestPeople(testStore.stores, people);
  const tenant = await createTenant({ credits: CREDITS });
  let started: ContactRetrievalInput | undefined;
  await createContactRetrievalJob(
    createDeps(config, { logger: testLogger(), store: testStore.handle }),
    {
      principal: keyPrincipalOf(tenant),
      personIds: people,
      fields: ['email'],
    },
    // No workflow: the test plays the workflow's part and calls the activity itself.
    { start: async (input) => void (started = input), running: async () => true },
  );
  const input = started!;
  return {
    tenant,
    chunk: { jobId: input.jobId, orgId: input.orgId, familyId: input.familyId, fields: input.fields, from: 0, to: people.length, reusable: [] },
    found: 4,
  };
}

/** Cancels at the chunk's second heartbeat: the provider has answered, the plan is not stored yet. */
function cancelAfterAnswers(env: MockActivityEnvironment): void {
  let beats = 0;
  env.on('heartbeat', () => {
    if (++beats === 2) env.cancel();
  });
}

const planOf = (c: ChunkInput) => testStore.stores.jobs.findChunkPlan(`${c.jobId}:${c.from}`);
const settledPeople = async (c: ChunkInput) => (await testStore.stores.jobs.itemsOfJob(c.jobId)).length;
const chargesOf = async (c: ChunkInput) => {
  const entry = await testStore.stores.credits.ledgerEntryOfChargeKey(chunkChargeKey(c.jobId, c.from));
  return entry ? [entry] : [];
};

test("heartbeats before every provider try and between the chunk's steps", async () => {
  const { chunk, found } = await acceptedJob();
  const env = activityEnvironment(1);
  // How many provider requests had arrived at each heartbeat.
  const beats: number[] = [];
  env.on('heartbeat', () => beats.push(provider.requests.length));
  const before = provider.requests.length;
  provider.faults.push({ kind: 'status', status: 503 });

  const outcome = await env.run(activities.processContactChunk, chunk);

  expect(outcome).toEqual({ tally: { delivered: found, not_found: 2 }, outOfCredits: false });
  expect(provider.requests.length).toBe(before + 2);
  // Before the first try, before the retry after the 503, after the answers, before paying.
  expect(beats).toEqual([before, before + 1, before + 2, before + 2]);
});

test('cancelled while the provider hangs: the request is abandoned at once and nothing is stored or charged', async () => {
  const { tenant, chunk } = await acceptedJob();
  const env = activityEnvironment(1);
  const before = provider.requests.length;
  provider.faults.push({ kind: 'hang' });

  const running = env.run(activities.processContactChunk, chunk);
  await eventually('the provider to be asked', () => provider.requests.length > before);
  const cancelledAt = Date.now();
  env.cancel();
  await expect(running).rejects.toThrow();

  // Ended by the cancel, not by the provider timeout, and not retried.
  expect(Date.now() - cancelledAt).toBeLessThan(PROVIDER_TIMEOUT_MS / 4);
  expect(provider.requests.length).toBe(before + 1);
  expect(await planOf(chunk)).toBeNull();
  expect(await settledPeople(chunk)).toBe(0);
  expect(await chargesOf(chunk)).toHaveLength(0);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(CREDITS);
});

test('cancelled after the answers, before paying: the plan is kept, nobody is charged or settled', async () => {
  const { tenant, chunk } = await acceptedJob();
  const env = activityEnvironment(1);
  cancelAfterAnswers(env);

  await expect(env.run(activities.processContactChunk, chunk)).rejects.toThrow('chunk cancelled');

  expect((await planOf(chunk))?.entries).toHaveLength(6);
  expect(await settledPeople(chunk)).toBe(0);
  expect(await chargesOf(chunk)).toHaveLength(0);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(CREDITS);
});

test('a retried attempt replays the plan an earlier attempt stored: the provider is not asked again and each record is charged once', async () => {
  const { tenant, chunk, found } = await acceptedJob();
  // The first attempt stores its plan and is cancelled before paying (as in the test above).
  const first = activityEnvironment(1);
  cancelAfterAnswers(first);
  await expect(first.run(activities.processContactChunk, chunk)).rejects.toThrow('chunk cancelled');
  const plan = (await planOf(chunk))!.entries;
  const asked = provider.requests.length;

  const second = await activityEnvironment(2).run(activities.processContactChunk, chunk);
  expect(second).toEqual({ tally: { delivered: found, not_found: 2 }, outOfCredits: false });
  expect(provider.requests.length).toBe(asked);
  expect((await planOf(chunk))!.entries).toEqual(plan);
  expect(await settledPeople(chunk)).toBe(6);
  expect((await chargesOf(chunk)).map((e) => e.amount)).toEqual([found]);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(CREDITS - found);

  // A third attempt (the second's completion was lost) finds everything done: same outcome, no new charge.
  const third = await activityEnvironment(3).run(activities.processContactChunk, chunk);
  expect(third).toEqual(second);
  expect(provider.requests.length).toBe(asked);
  expect(await settledPeople(chunk)).toBe(6);
  expect(await chargesOf(chunk)).toHaveLength(1);
  expect(await creditBalance({ stores: testStore.stores, now: Date.now }, tenant.orgId)).toBe(CREDITS - found);
});
