import type { AgentOfCall } from '../credits/agentAllowance';
import { ProviderRejected, ProviderUnavailable, type ContactProvider, type ProviderAnswer } from '../contactProvider/contactProvider';
import { withProviderRetries, type ProviderRetryPolicy } from '../contactProvider/retryPolicy';
import { payAndSettle } from './chunkSettlement';
import type { ClaimGenerations } from './contactFieldClaims';
import type { LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import { uncachedJobPeople, type JobPeopleReads, type JobPeopleRecord } from './jobPeople';
import { REUSE_WINDOW_MS, type PlanEntry } from './jobRules';
import type { ContactField } from '../contactProvider/contactProvider';
import type { FailureReason } from './jobTypes';
import type { JobStores } from './store';
import type { TalentStores } from '../talent/store';
import { addTally, mergeTally, type Tally } from './tally';
import type { ReachExitPoint } from '../faultInjection';

/**
 * The work of a contact-retrieval job, called from its activities. A chunk of people is
 * answered (reuse, provider), its answers are stored as the chunk's plan, who pays for each
 * found person is decided at payment time (one claim per organization, person and field:
 * people another running job claimed first are `reused`), the plan's records are paid in ONE
 * ledger entry keyed by job and chunk (as many as the credits cover), and the people are
 * settled with bulk inserts. Every step is an insert or an exact-id read, and
 * every step is safe to repeat: a retried chunk replays its stored plan and its charge, so it
 * never charges twice and never charges for something it did not deliver.
 */

export interface ChunkInput {
  jobId: string;
  orgId: string;
  familyId: string;
  /** The connected AI application that started the job: each chunk's charge is held to its daily allowance. */
  agent?: AgentOfCall;
  fields: ContactField[];
  /** Positions [from, to) of the job's people. */
  from: number;
  to: number;
  /** Positions in [from, to) this organization retrieved recently (found when the job started). */
  reusable?: number[];
}

export interface ChunkOutcome {
  /** Outcomes of every person of the chunk. */
  tally: Tally;
  /** The chunk could not pay for all it found: the job must stop. */
  outOfCredits: boolean;
}

export interface ChunkDeps {
  /** The stores of the worker's root. */
  stores: CreditStores & TalentStores & JobStores;
  provider: ContactProvider;
  retryPolicy: ProviderRetryPolicy;
  /** Tells Temporal the activity is alive; called between steps. */
  heartbeat: () => void;
  signal?: AbortSignal;
  /** false on a retry: earlier attempts may have left a plan, a charge and settled people. */
  firstAttempt?: boolean;
  /** Called with the people delivered (they count toward the daily delivery quota of the job's window). */
  onDelivered?: (delivered: { orgId: string; jobId: string; deliveryQuotaAt: Date | null; personIds: string[] }) => Promise<void>;
  /** The sources the organization may use now: entitlement can change while a job runs. */
  usableSources?: (orgId: string) => Promise<ReadonlySet<string>>;
  /** Told the credits a chunk's charge took (the worker's usage counters count them). */
  onCharged?: (charged: { orgId: string; operation: string; credits: number }) => void;
  now: () => Date;
  /** The worker's reads of job people (kept across a job's chunks); each read goes to the store without. */
  people?: JobPeopleReads;
  /** The worker's claim generations (contactFieldClaims.ts); claims start from generation 0 without. */
  generations?: ClaimGenerations;
  /** The worker's credit ledger heads; each charge reads its organization's head afresh without. */
  ledgerHeads?: LedgerHeads;
  /** The worker's exit points (the chaos run arms one between a charge and its record). */
  exitPoint?: ReachExitPoint;
}

function pick(fields: readonly ContactField[], emails: string[] = [], phones: string[] = []): { emails: string[]; phones: string[] } {
  return { emails: fields.includes('email') ? emails : [], phones: fields.includes('phone') ? phones : [] };
}

/** How many ids one reuse lookup names (a job has up to MAX_BATCH_PEOPLE people). */
const REUSE_LOOKUP_IDS = 1000;

/**
 * Positions of a job's people this organization retrieved within the reuse window (with
 * every field asked for): one query per job, so chunks only read the cache for those. The
 * records are read by their ids (organization and person), so the lookup costs the job's size,
 * not the number of people the organization ever retrieved.
 */
export async function findReusablePositions(
  stores: JobStores,
  input: { jobId: string; orgId: string; fields: ContactField[] },
  now: Date,
  reads: JobPeopleReads = uncachedJobPeople(stores),
): Promise<number[]> {
  const since = new Date(now.getTime() - REUSE_WINDOW_MS);
  const people = await reads.people(input.jobId);
  const usable = new Set<string>();
  for (let from = 0; from < people.length; from += REUSE_LOOKUP_IDS) {
    const docs = await stores.jobs.retrievedContactsSince(input.orgId, people.slice(from, from + REUSE_LOOKUP_IDS), since);
    for (const d of docs) if (input.fields.every((f) => d.fields.includes(f))) usable.add(d.personId);
  }
  const out: number[] = [];
  people.forEach((p, i) => {
    if (usable.has(p)) out.push(i);
  });
  return out;
}

async function readReusable(stores: JobStores, orgId: string, personIds: string[], fields: readonly ContactField[], now: Date) {
  const out = new Map<string, { emails: string[]; phones: string[] }>();
  if (!personIds.length) return out;
  const since = new Date(now.getTime() - REUSE_WINDOW_MS);
  const docs = await stores.jobs.retrievedContactsSince(orgId, personIds, since);
  for (const d of docs) {
    if (fields.every((f) => d.fields.includes(f))) out.set(d.personId, pick(fields, d.emails, d.phones));
  }
  return out;
}

async function lookupWithRetries(
  deps: ChunkDeps,
  personIds: string[],
  fields: ContactField[],
): Promise<{ answers: ProviderAnswer[]; failure: FailureReason | null }> {
  try {
    const answers = await withProviderRetries(
      deps.retryPolicy,
      () => {
        deps.heartbeat();
        return deps.provider.lookup({ personIds, fields, signal: deps.signal });
      },
      { signal: deps.signal },
    );
    return { answers, failure: null };
  } catch (err) {
    // Cancelled (job deadline): leave the people pending for the finish to settle.
    if (deps.signal?.aborted) throw err;
    if (err instanceof ProviderUnavailable) return { answers: [], failure: 'provider_unavailable' };
    if (err instanceof ProviderRejected) return { answers: [], failure: 'provider_rejected' };
    throw err;
  }
}

function planId(jobId: string, from: number): string {
  return `${jobId}:${from}`;
}

/**
 * Each person's source by position, as acceptance stored it, or read now for the chunk's people
 * when acceptance left that to the chunks (a large batch job, contactRetrievalJobs.ts): a person
 * who is gone has none. Null when the worker checks no entitlement.
 */
async function chunkSources(
  people: JobPeopleRecord,
  personIds: string[],
  from: number,
  deps: ChunkDeps,
): Promise<((seq: number) => string | undefined) | null> {
  if (!deps.usableSources) return null;
  const stored = people.sources;
  if (stored) return (seq) => stored[seq];
  const read = await deps.stores.talent.sourcesOfPeople(personIds);
  return (seq) => read.get(personIds[seq - from]);
}

/**
 * Answers every person of the chunk: a person of a source the organization no longer may use
 * is `not_found` (as unlock's 404), one beyond the job's delivery quota fails, free; the
 * others are reused from the cache, else asked of the provider.
 */
async function answerChunk(input: ChunkInput, people: JobPeopleRecord, deps: ChunkDeps, now: Date): Promise<PlanEntry[]> {
  const personIds = people.personIds.slice(input.from, input.to);
  const sourceAt = await chunkSources(people, personIds, input.from, deps);
  const usable = sourceAt && deps.usableSources ? await deps.usableSources(input.orgId) : null;
  const entries: PlanEntry[] = [];
  const eligible = new Set<number>();
  personIds.forEach((personId, i) => {
    const seq = input.from + i;
    if (usable && !usable.has(sourceAt!(seq) ?? '')) entries.push({ seq, personId, answer: 'not_found' });
    else if (people.overQuota.has(seq)) entries.push({ seq, personId, answer: 'failed', reason: 'delivery_quota_exceeded' });
    else eligible.add(seq);
  });
  const reusablePeople = (input.reusable ?? []).filter((p) => p >= input.from && p < input.to && eligible.has(p)).map((p) => personIds[p - input.from]);
  const reusable = await readReusable(deps.stores, input.orgId, reusablePeople, input.fields, now);
  const toLookup: Array<{ seq: number; personId: string }> = [];
  personIds.forEach((personId, i) => {
    const seq = input.from + i;
    if (!eligible.has(seq)) return;
    const hit = reusable.get(personId);
    if (hit) entries.push({ seq, personId, answer: 'reused', ...hit });
    else toLookup.push({ seq, personId });
  });
  if (toLookup.length) {
    const { answers, failure } = await lookupWithRetries(
      deps,
      toLookup.map((it) => it.personId),
      input.fields,
    );
    const byPerson = new Map(answers.map((a) => [a.personId, a]));
    for (const { seq, personId } of toLookup) {
      const a = byPerson.get(personId);
      if (!a) {
        entries.push({ seq, personId, answer: 'failed', reason: failure ?? 'provider_unavailable' });
        continue;
      }
      const found = a.status === 'found' ? pick(input.fields, a.emails, a.phones) : { emails: [], phones: [] };
      // Nothing of what was asked for: not a record, not charged.
      if (found.emails.length + found.phones.length === 0) entries.push({ seq, personId, answer: 'not_found' });
      else entries.push({ seq, personId, answer: 'found', ...found });
    }
  }
  return entries.sort((a, b) => a.seq - b.seq);
}

/** Stores the plan; when an earlier attempt stored one first, that one wins. */
async function storePlan(stores: JobStores, input: ChunkInput, entries: PlanEntry[], now: Date): Promise<PlanEntry[]> {
  const id = planId(input.jobId, input.from);
  if (await stores.jobs.insertChunkPlan({ _id: id, jobId: input.jobId, from: input.from, to: input.to, entries, createdAt: now })) return entries;
  const earlier = await stores.jobs.findChunkPlan(id);
  if (!earlier) throw new Error(`the plan ${id} was refused as a duplicate but is gone`);
  return earlier.entries;
}

/** Processes the people at positions [from, to) of a job: reuse, look up, charge, deliver. */
export async function processChunk(input: ChunkInput, deps: ChunkDeps): Promise<ChunkOutcome> {
  const { stores } = deps;
  const now = deps.now();
  const people = await (deps.people ?? uncachedJobPeople(stores)).record(input.jobId);
  // A first attempt cannot find anything of its own: it skips the read (a scan on FerretDB).
  const earlier = deps.firstAttempt === false ? await stores.jobs.findChunkPlan(planId(input.jobId, input.from)) : null;
  let plan = earlier ? earlier.entries : null;
  if (!plan) {
    const answered = await answerChunk(input, people, deps, now);
    deps.heartbeat();
    plan = await storePlan(stores, input, answered, now);
  }
  // Cancelled (job deadline) before paying: the finish settles the chunk from its plan.
  if (deps.signal?.aborted) throw new Error('chunk cancelled');
  deps.heartbeat();
  const onDelivered = deps.onDelivered;
  const { settled, outOfCredits } = await payAndSettle(deps.stores, input, input.from, plan, now, {
    charge: true,
    firstAttempt: deps.firstAttempt !== false && !earlier,
    wait: { heartbeat: deps.heartbeat, signal: deps.signal, now: () => deps.now().getTime() },
    onCharged: deps.onCharged,
    generations: deps.generations,
    ledgerHeads: deps.ledgerHeads,
    exitPoint: deps.exitPoint,
    onDelivered: onDelivered && ((personIds) => onDelivered({ orgId: input.orgId, jobId: input.jobId, deliveryQuotaAt: people.deliveryQuotaAt, personIds })),
  });
  const tally: Tally = {};
  for (const p of settled) addTally(tally, p.outcome);
  await stores.jobs.insertChunkProgress({ _id: planId(input.jobId, input.from), jobId: input.jobId, tally });
  return { tally, outOfCredits };
}

/** Outcomes so far of a running job, from its finished chunks. */
export async function runningJobTally(stores: JobStores, jobId: string): Promise<Tally> {
  const tally: Tally = {};
  for (const d of await stores.jobs.progressOfJob(jobId)) {
    mergeTally(tally, d.tally);
  }
  return tally;
}
