import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ContactActivities } from '../../activities/contacts';
import type { ChunkInput, ChunkOutcome } from '../../core/jobs/chunkProcessing';
import type { CompletedChunk, FinishedJob } from '../../core/jobs/jobFinish';
import { contactRetrievalWorkflowId, RESULT_PURGE_AFTER_MS, RESULT_RETENTION_MS, resultRetentionWorkflowId } from '../../core/jobs/jobRules';
import type { StopReason } from '../../core/jobs/jobTypes';
import { startContactRetrievalWorkflowWith } from '../../core/jobs/jobWorkflows';
import type { ContactRetrievalInput } from '../../core/jobs/workflowInput';
import { SA } from '../../core/temporal/searchAttributes';
import { eventually } from '../support/eventually';
import { uniqueName } from '../support/testConfig';
import { startBundleWorker, startTimeSkipping, type RunningWorker } from '../support/timeSkipping';

/**
 * Each branch of the contact-retrieval workflow with its activities mocked: no store, no
 * provider. `contactRetrieval.cases.ts` runs the same workflow with the real activities over
 * seeded people; these tests pin down the workflow's own decisions: which chunks run, how many
 * at once, when it stops, what the finish is told, the one event and the retention schedule.
 */
let env: TestWorkflowEnvironment;
/** Waits on workflows without unlocking time skipping: a chunk in flight must not see hours pass. */
let realTime: Client;
let worker: RunningWorker;
const taskQueue = uniqueName('tq_contact_branches');

type ChunkAnswer = (input: ChunkInput, job: JobCalls) => Promise<ChunkOutcome>;

interface JobCalls {
  plans: number;
  chunks: ChunkInput[];
  inFlight: number;
  maxInFlight: number;
  finishes: Array<{ stop: StopReason | null; completed?: CompletedChunk[]; atMs: number }>;
  events: FinishedJob[];
}

const jobs = new Map<string, JobCalls>();
const answers = new Map<string, ChunkAnswer>();
const reusable = new Map<string, number[]>();

function callsOf(jobId: string): JobCalls {
  let calls = jobs.get(jobId);
  if (!calls) {
    calls = { plans: 0, chunks: [], inFlight: 0, maxInFlight: 0, finishes: [], events: [] };
    jobs.set(jobId, calls);
  }
  return calls;
}

const FINAL_STATUS = { insufficient_credits: 'partial', cancelled: 'cancelled', expired: 'expired' } as const;

const activities: Pick<
  ContactActivities,
  | 'planContactReuse'
  | 'processContactChunk'
  | 'finishContactRetrievalJob'
  | 'emitContactRetrievalCompleted'
  | 'expireContactRetrievalResult'
  | 'purgeContactRetrievalResult'
> = {
  async planContactReuse({ jobId }) {
    callsOf(jobId).plans++;
    return reusable.get(jobId) ?? [];
  },
  async processContactChunk(input) {
    const calls = callsOf(input.jobId);
    calls.chunks.push(input);
    calls.inFlight++;
    calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
    try {
      return await answers.get(input.jobId)!(input, calls);
    } finally {
      calls.inFlight--;
    }
  },
  async finishContactRetrievalJob({ jobId, stop, completed }) {
    const atMs = await env.currentTimeMs();
    callsOf(jobId).finishes.push({ stop, completed, atMs });
    const completedAt = new Date(atMs);
    return {
      jobId,
      orgId: 'org_x',
      workspaceId: 'wsp_x',
      status: stop === null ? 'completed' : FINAL_STATUS[stop],
      counts: { requested: 0, delivered: 0, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 },
      completedAt: completedAt.toISOString(),
      resultExpiresAt: new Date(atMs + RESULT_RETENTION_MS).toISOString(),
      resultPurgeAt: new Date(atMs + RESULT_PURGE_AFTER_MS).toISOString(),
    };
  },
  async emitContactRetrievalCompleted(job) {
    callsOf(job.jobId).events.push(job);
    return { eventId: `evt_${job.jobId}`, deliveryStarted: true };
  },
  // The retention schedule each job hands its result to; its own timing is contactRetrieval.cases.ts's.
  async expireContactRetrievalResult() {},
  async purgeContactRetrievalResult() {},
};

beforeAll(async () => {
  env = await startTimeSkipping();
  realTime = new Client({ connection: env.connection, namespace: env.namespace });
  worker = await startBundleWorker(env, taskQueue, activities);
});

afterAll(async () => {
  await worker?.stop();
  await env?.teardown();
});

let seq = 0;
function newJob(answer: ChunkAnswer, extra: Partial<ContactRetrievalInput> = {}): ContactRetrievalInput {
  const jobId = `job_branch${++seq}_${Date.now()}`;
  answers.set(jobId, answer);
  return {
    jobId,
    orgId: 'org_x',
    workspaceId: 'wsp_x',
    familyId: 'fam_x',
    requested: 10,
    fields: ['email'],
    chunkSize: 3,
    concurrency: 2,
    heartbeatTimeoutMs: 60_000,
    ...extra,
  };
}

async function run(input: ContactRetrievalInput, opts: { cancelAtStart?: boolean; skipTime?: boolean } = {}) {
  await startContactRetrievalWorkflowWith(env.client, taskQueue, input, opts);
  const handle = (opts.skipTime ? env.client : realTime).workflow.getHandle(contactRetrievalWorkflowId(input.jobId));
  return { handle, finished: (await handle.result()) as FinishedJob };
}

/** Resolves once `ready()` holds; the mocked chunks use it to line up with each other. */
async function until(what: string, ready: () => boolean): Promise<void> {
  await eventually(what, async () => ready(), { timeoutMs: 10_000, intervalMs: 5 });
}

const done = (from: number, to: number): ChunkOutcome => ({ tally: { delivered: to - from }, outOfCredits: false });
const ranges = (chunks: ChunkInput[]) => chunks.map((c) => [c.from, c.to]).sort((a, b) => a[0] - b[0]);

test('every chunk runs once, at most `concurrency` at a time, each with its own reusable people; one finish, one event, the retention schedule', async () => {
  const input = newJob(async (c, calls) => {
    // The first wave waits for its partner, so two chunks are provably in flight together.
    if (calls.chunks.length <= 2) await until('two chunks in flight', () => calls.chunks.length >= 2);
    return done(c.from, c.to);
  });
  reusable.set(input.jobId, [1, 5, 9]);
  const { handle, finished } = await run(input);

  const calls = callsOf(input.jobId);
  expect(calls.plans).toBe(1);
  expect(ranges(calls.chunks)).toEqual([
    [0, 3],
    [3, 6],
    [6, 9],
    [9, 10],
  ]);
  expect(calls.maxInFlight).toBe(2);
  expect(Object.fromEntries(calls.chunks.map((c) => [c.from, c.reusable]))).toEqual({ 0: [1], 3: [5], 6: [], 9: [9] });
  expect(calls.chunks.every((c) => c.orgId === 'org_x' && c.familyId === 'fam_x' && c.fields.join() === 'email')).toBe(true);
  expect(calls.finishes).toHaveLength(1);
  expect(calls.finishes[0].stop).toBeNull();
  expect(calls.finishes[0].completed!.map((c) => [c.from, c.to, c.tally.delivered ?? 0]).sort((a, b) => a[0] - b[0])).toEqual([
    [0, 3, 3],
    [3, 6, 3],
    [6, 9, 3],
    [9, 10, 1],
  ]);
  expect(calls.events).toEqual([finished]);
  expect(finished.status).toBe('completed');
  expect((await handle.describe()).typedSearchAttributes.get(SA.jobStatus)).toBe('completed');
  const retention = await realTime.workflow.getHandle(resultRetentionWorkflowId(input.jobId)).describe();
  expect(retention.type).toBe('resultRetentionWorkflow');
  expect(retention.typedSearchAttributes.get(SA.jobId)).toBe(input.jobId);
});

test('a chunk that runs out of credits stops the job: no chunk starts after it', async () => {
  const input = newJob(async (c) => (c.from === 3 ? { tally: { delivered: 1, failed: 2 }, outOfCredits: true } : done(c.from, c.to)), { concurrency: 1 });
  const { finished } = await run(input);

  const calls = callsOf(input.jobId);
  expect(ranges(calls.chunks)).toEqual([
    [0, 3],
    [3, 6],
  ]);
  expect(calls.finishes.map((f) => f.stop)).toEqual(['insufficient_credits']);
  expect(calls.finishes[0].completed!.map((c) => c.from).sort((x, y) => x - y)).toEqual([0, 3]);
  expect(finished.status).toBe('partial');
  expect(calls.events).toHaveLength(1);
});

test('the chunk in flight beside the one that ran out of credits still finishes and is counted', async () => {
  let firstReturned = false;
  const input = newJob(async (c, calls) => {
    await until('both chunks of the first wave started', () => calls.chunks.length >= 2);
    if (c.from === 0) {
      firstReturned = true;
      return { tally: { delivered: 1, failed: 2 }, outOfCredits: true };
    }
    if (c.from === 3) await until('the first chunk answered', () => firstReturned);
    return done(c.from, c.to);
  });
  const { finished } = await run(input);

  const calls = callsOf(input.jobId);
  const ran = ranges(calls.chunks);
  // The second chunk may end before the workflow has read the first one's answer: then one more
  // chunk starts in its lane. Never the last one: both lanes stop once the stop is read.
  expect(ran.slice(0, 2)).toEqual([
    [0, 3],
    [3, 6],
  ]);
  expect(ran).not.toContainEqual([9, 10]);
  expect(calls.finishes.map((f) => f.stop)).toEqual(['insufficient_credits']);
  expect(calls.finishes[0].completed!.map((c) => c.from).sort((x, y) => x - y)).toEqual(ran.map(([from]) => from));
  expect(finished.status).toBe('partial');
});

test('a cancel signal stops new chunks and lets the one in flight finish', async () => {
  let cancelled = false;
  const input = newJob(
    async (c) => {
      await until('the cancel was signalled', () => cancelled);
      return done(c.from, c.to);
    },
    { concurrency: 1 },
  );
  await startContactRetrievalWorkflowWith(env.client, taskQueue, input);
  const handle = realTime.workflow.getHandle(contactRetrievalWorkflowId(input.jobId));
  await until('the first chunk started', () => callsOf(input.jobId).chunks.length === 1);
  await handle.signal('cancel');
  cancelled = true;
  const finished = (await handle.result()) as FinishedJob;

  const calls = callsOf(input.jobId);
  expect(ranges(calls.chunks)).toEqual([[0, 3]]);
  expect(calls.finishes.map((f) => f.stop)).toEqual(['cancelled']);
  expect(calls.finishes[0].completed!.map((c) => c.from)).toEqual([0]);
  expect(finished.status).toBe('cancelled');
});

test('a job cancelled before its workflow started plans nothing and processes nobody', async () => {
  const input = newJob(async (c) => done(c.from, c.to));
  const { finished } = await run(input, { cancelAtStart: true });

  const calls = callsOf(input.jobId);
  expect(calls.plans).toBe(0);
  expect(calls.chunks).toEqual([]);
  expect(calls.finishes.map((f) => [f.stop, f.completed])).toEqual([['cancelled', []]]);
  expect(finished.status).toBe('cancelled');
  expect(calls.events).toHaveLength(1);
});

test('a chunk that fails for good is left to the finish; the other chunks still run', async () => {
  const input = newJob(async (c) => {
    if (c.from === 3) throw ApplicationFailure.nonRetryable('the provider refused this chunk', 'ChunkRefused');
    return done(c.from, c.to);
  });
  const { finished } = await run(input);

  const calls = callsOf(input.jobId);
  expect(ranges(calls.chunks)).toEqual([
    [0, 3],
    [3, 6],
    [6, 9],
    [9, 10],
  ]);
  expect(calls.finishes[0].stop).toBeNull();
  expect(calls.finishes[0].completed!.map((c) => c.from).sort((a, b) => a - b)).toEqual([0, 6, 9]);
  expect(finished.status).toBe('completed');
});

test('a chunk failing on an outage is retried until the deadline, counted from acceptance; then the job expires', async () => {
  const hour = 3600_000;
  const startMs = await env.currentTimeMs();
  // Accepted an hour before its workflow started (a Temporal outage held the start): an hour is left of two.
  const input = newJob(
    async () => {
      throw new Error('store unavailable');
    },
    { concurrency: 1, deadlineMs: 2 * hour, acceptedAtMs: startMs - hour },
  );
  const { finished } = await run(input, { skipTime: true });

  const calls = callsOf(input.jobId);
  expect(calls.chunks.length).toBeGreaterThan(3);
  expect(new Set(calls.chunks.map((c) => c.from))).toEqual(new Set([0]));
  expect(calls.finishes.map((f) => [f.stop, f.completed])).toEqual([['expired', []]]);
  const elapsed = calls.finishes[0].atMs - startMs;
  expect(elapsed).toBeGreaterThanOrEqual(hour - 60_000);
  expect(elapsed).toBeLessThan(hour + 10 * 60_000);
  expect(finished.status).toBe('expired');
});
