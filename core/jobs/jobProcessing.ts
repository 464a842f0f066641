import { chargeUpTo, findCharge } from '../credits/credits';
import { ProviderRejected, ProviderUnavailable, type ContactProvider, type ProviderAnswer } from '../contactProvider/contactProvider';
import { withProviderRetries, type ProviderRetryPolicy } from '../contactProvider/retryPolicy';
import { insertManyIgnoringDuplicates, insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { releaseDeliveries } from './deliveryReservations';
import { releaseJobSlot } from './jobSlots';
import {
  CREDITS_PER_RECORD, REUSE_WINDOW_MS, chargeableUnits, chunkChargeKey, countsFromTally, finalJobStatus, leftoverOutcome, resultTimes, settlePlan,
  type PlanEntry, type SettledPerson,
} from './jobRules';
import { PERSON_OUTCOMES, type ContactField, type FailureReason, type FinalJobStatus, type JobCounts, type PersonOutcome, type StopReason } from './jobTypes';
import {
  ContactRetrievalChunkPlan, ContactRetrievalJob, ContactRetrievalJobItem, ContactRetrievalJobPeople, ContactRetrievalJobProgress, RetrievedContact,
  type ChunkPlanDoc, type JobDoc, type JobItemDoc, type JobProgressDoc, type RetrievedContactDoc, type Tally,
} from './models';

const plans = () => typedCollection<ChunkPlanDoc>(ContactRetrievalChunkPlan);
const progress = () => typedCollection<JobProgressDoc>(ContactRetrievalJobProgress);
const items = () => typedCollection<JobItemDoc>(ContactRetrievalJobItem);
const retrieved = () => typedCollection<RetrievedContactDoc>(RetrievedContact);

/**
 * The work of a contact-retrieval job, called from its activities. A chunk of people is
 * answered (reuse, provider), its answers are stored as the chunk's plan, the plan's records
 * are paid in ONE ledger entry keyed by job and chunk (as many as the credits cover), and the
 * people are settled with one bulk insert. Every step is an insert or an exact-id read, and
 * every step is safe to repeat: a retried chunk replays its stored plan and its charge, so it
 * never charges twice and never charges for something it did not deliver.
 */

export const CHARGE_OPERATION = 'contact_retrieval_jobs.create';

export interface ChunkInput {
  jobId: string;
  orgId: string;
  familyId: string;
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
  now?: () => Date;
}

function pick(fields: readonly ContactField[], emails: string[] = [], phones: string[] = []): { emails: string[]; phones: string[] } {
  return { emails: fields.includes('email') ? emails : [], phones: fields.includes('phone') ? phones : [] };
}

/** The people of a job as accepted; absent fields on jobs accepted before they existed. */
export interface JobPeopleRecord {
  personIds: string[];
  /** Each person's source (parallel to personIds). */
  sources?: string[];
  /** Positions beyond the job's delivery-quota reservation. */
  overQuota: Set<number>;
  deliveryQuotaAt: Date | null;
}

/** People lists are immutable: a process keeps the few it is working on. */
const peopleCache = new Map<string, JobPeopleRecord>();

export async function jobPeopleRecord(jobId: string): Promise<JobPeopleRecord> {
  const cached = peopleCache.get(jobId);
  if (cached) return cached;
  const doc = await ContactRetrievalJobPeople.findById(jobId).lean();
  if (!doc) throw new Error(`the people of job ${jobId} are gone`);
  const record: JobPeopleRecord = {
    personIds: doc.personIds,
    sources: doc.sources?.length === doc.personIds.length ? doc.sources : undefined,
    overQuota: new Set(doc.overQuota ?? []),
    deliveryQuotaAt: doc.deliveryQuotaAt ?? null,
  };
  if (peopleCache.size >= 16) peopleCache.delete(peopleCache.keys().next().value!);
  peopleCache.set(jobId, record);
  return record;
}

export async function jobPeople(jobId: string): Promise<string[]> {
  return (await jobPeopleRecord(jobId)).personIds;
}

function forgetPeople(jobId: string): void {
  peopleCache.delete(jobId);
}

/**
 * Positions of a job's people this organization retrieved within the reuse window (with
 * every field asked for): one query per job, so chunks only read the cache for those.
 */
export async function findReusablePositions(input: { jobId: string; orgId: string; fields: ContactField[] }, now = new Date()): Promise<number[]> {
  const since = new Date(now.getTime() - REUSE_WINDOW_MS);
  const docs = await RetrievedContact.find({ orgId: input.orgId, retrievedAt: { $gte: since } }, { personId: 1, fields: 1 }).lean();
  if (!docs.length) return [];
  const usable = new Set(docs.filter((d) => input.fields.every((f) => d.fields.includes(f))).map((d) => d.personId));
  const people = await jobPeople(input.jobId);
  const out: number[] = [];
  people.forEach((p, i) => {
    if (usable.has(p)) out.push(i);
  });
  return out;
}

async function readReusable(orgId: string, personIds: string[], fields: readonly ContactField[], now: Date) {
  const out = new Map<string, { emails: string[]; phones: string[] }>();
  if (!personIds.length) return out;
  const since = new Date(now.getTime() - REUSE_WINDOW_MS);
  const docs = await RetrievedContact.find({ _id: { $in: personIds.map((p) => `${orgId}:${p}`) }, retrievedAt: { $gte: since } }).lean();
  for (const d of docs) {
    if (fields.every((f) => d.fields.includes(f))) out.set(d.personId, pick(fields, d.emails, d.phones));
  }
  return out;
}

/** Remembers delivered contacts for reuse: one bulk insert; an older record of a person is replaced. */
async function rememberRetrieved(orgId: string, fields: readonly ContactField[], delivered: SettledPerson[], now: Date): Promise<void> {
  if (!delivered.length) return;
  const docs = delivered.map((it) => ({
    _id: `${orgId}:${it.personId}`, orgId, personId: it.personId, fields: [...fields], emails: it.emails, phones: it.phones, retrievedAt: now,
  }));
  const { duplicates } = await insertManyIgnoringDuplicates(retrieved(), docs);
  // Already there: retrieved before the reuse window, or with fewer fields (rare: an update scans).
  for (const i of duplicates) await RetrievedContact.replaceOne({ _id: docs[i]._id }, docs[i], { upsert: true });
}

async function lookupWithRetries(deps: ChunkDeps, personIds: string[], fields: ContactField[]): Promise<{ answers: ProviderAnswer[]; failure: FailureReason | null }> {
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
 * Answers every person of the chunk: a person of a source the organization no longer may use
 * is `not_found` (as unlock's 404), one beyond the job's delivery quota fails, free; the
 * others are reused from the cache, else asked of the provider.
 */
async function answerChunk(input: ChunkInput, people: JobPeopleRecord, deps: ChunkDeps, now: Date): Promise<PlanEntry[]> {
  const personIds = people.personIds.slice(input.from, input.to);
  const usable = people.sources && deps.usableSources ? await deps.usableSources(input.orgId) : null;
  const entries: PlanEntry[] = [];
  const eligible = new Set<number>();
  personIds.forEach((personId, i) => {
    const seq = input.from + i;
    if (usable && !usable.has(people.sources![seq])) entries.push({ seq, personId, answer: 'not_found' });
    else if (people.overQuota.has(seq)) entries.push({ seq, personId, answer: 'failed', reason: 'delivery_quota_exceeded' });
    else eligible.add(seq);
  });
  const reusablePeople = (input.reusable ?? []).filter((p) => p >= input.from && p < input.to && eligible.has(p)).map((p) => personIds[p - input.from]);
  const reusable = await readReusable(input.orgId, reusablePeople, input.fields, now);
  const toLookup: Array<{ seq: number; personId: string }> = [];
  personIds.forEach((personId, i) => {
    const seq = input.from + i;
    if (!eligible.has(seq)) return;
    const hit = reusable.get(personId);
    if (hit) entries.push({ seq, personId, answer: 'reused', ...hit });
    else toLookup.push({ seq, personId });
  });
  if (toLookup.length) {
    const { answers, failure } = await lookupWithRetries(deps, toLookup.map((it) => it.personId), input.fields);
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
async function storePlan(input: ChunkInput, entries: PlanEntry[], now: Date): Promise<PlanEntry[]> {
  const id = planId(input.jobId, input.from);
  if (await insertOnce(plans(), { _id: id, jobId: input.jobId, from: input.from, to: input.to, entries, createdAt: now })) return entries;
  const earlier = await plans().findOne({ _id: id });
  if (!earlier) throw new Error(`the plan ${id} was refused as a duplicate but is gone`);
  return earlier.entries;
}

/** Pays a plan's records (one entry, as many as funds cover) and settles its people. */
async function payAndSettle(
  job: { jobId: string; orgId: string; familyId: string; fields: readonly ContactField[] },
  from: number,
  plan: PlanEntry[],
  now: Date,
  onDelivered?: (personIds: string[]) => Promise<void>,
): Promise<{ settled: SettledPerson[]; outOfCredits: boolean }> {
  const wanted = chargeableUnits(plan);
  let paid = 0;
  let receiptId: string | null = null;
  if (wanted > 0) {
    const c = await chargeUpTo({
      orgId: job.orgId, familyId: job.familyId, operation: CHARGE_OPERATION, chargeKey: chunkChargeKey(job.jobId, from), unitPrice: CREDITS_PER_RECORD, units: wanted,
    });
    paid = c.units;
    receiptId = c.receiptId;
  }
  const settled = settlePlan(plan, paid, receiptId);
  await insertManyIgnoringDuplicates(
    items(),
    settled.map((p) => ({
      _id: `${job.jobId}:${p.seq}`, jobId: job.jobId, seq: p.seq, personId: p.personId, outcome: p.outcome, reason: p.reason,
      ...(p.outcome === 'delivered' || p.outcome === 'reused' ? { emails: p.emails, phones: p.phones } : {}),
      receiptId: p.receiptId, processedAt: now,
    })),
  );
  const delivered = settled.filter((p) => p.outcome === 'delivered');
  await rememberRetrieved(job.orgId, job.fields, delivered, now);
  if (delivered.length && onDelivered) await onDelivered(delivered.map((p) => p.personId));
  return { settled, outOfCredits: paid < wanted };
}

/** Processes the people at positions [from, to) of a job: reuse, look up, charge, deliver. */
export async function processChunk(input: ChunkInput, deps: ChunkDeps): Promise<ChunkOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const people = await jobPeopleRecord(input.jobId);
  // A first attempt cannot find anything of its own: it skips the read (a scan on FerretDB).
  const earlier = deps.firstAttempt === false ? await ContactRetrievalChunkPlan.findById(planId(input.jobId, input.from)).lean() : null;
  let plan = earlier ? earlier.entries : null;
  if (!plan) {
    const answered = await answerChunk(input, people, deps, now);
    deps.heartbeat();
    plan = await storePlan(input, answered, now);
  }
  // Cancelled (job deadline) before paying: the finish settles the chunk from its plan.
  if (deps.signal?.aborted) throw new Error('chunk cancelled');
  deps.heartbeat();
  const onDelivered = deps.onDelivered;
  const { settled, outOfCredits } = await payAndSettle(
    input, input.from, plan, now,
    onDelivered && ((personIds) => onDelivered({ orgId: input.orgId, jobId: input.jobId, deliveryQuotaAt: people.deliveryQuotaAt, personIds })),
  );
  const tally: Tally = {};
  for (const p of settled) tally[p.outcome] = (tally[p.outcome] ?? 0) + 1;
  await insertManyIgnoringDuplicates(progress(), [{ _id: planId(input.jobId, input.from), jobId: input.jobId, tally }]);
  return { tally, outOfCredits };
}

/** Outcomes so far of a running job, from its finished chunks. */
export async function runningJobTally(jobId: string): Promise<Tally> {
  const tally: Tally = {};
  for (const d of await ContactRetrievalJobProgress.find({ jobId }).lean()) {
    mergeTally(tally, d.tally);
  }
  return tally;
}

/** Outcomes of a job's people, counted in the store. */
export async function tallyJobItems(jobId: string): Promise<Tally> {
  const docs = await ContactRetrievalJobItem.find({ jobId }, { outcome: 1 }).lean();
  const tally: Tally = {};
  for (const d of docs) addTally(tally, d.outcome);
  return tally;
}

export interface FinishedJob {
  jobId: string;
  orgId: string;
  workspaceId: string;
  status: FinalJobStatus;
  counts: JobCounts;
  completedAt: string;
  resultExpiresAt: string | null;
  resultPurgeAt: string;
}

function finishedView(job: JobDoc): FinishedJob {
  if (job.status === 'running' || !job.counts || !job.completedAt || !job.resultPurgeAt) throw new Error(`job ${job._id} is not finished`);
  return {
    jobId: job._id,
    orgId: job.orgId,
    workspaceId: job.workspaceId,
    status: job.status,
    counts: job.counts,
    completedAt: job.completedAt.toISOString(),
    resultExpiresAt: job.resultExpiresAt ? job.resultExpiresAt.toISOString() : null,
    resultPurgeAt: job.resultPurgeAt.toISOString(),
  };
}

/**
 * Ends a job: settles everyone still pending (a chunk whose plan was paid before the stop is
 * delivered as paid; the rest get the stop's outcome), stores the final counts, status and
 * retention times, frees the running-job slot and drops the job's working documents.
 * Repeating it returns the first finish.
 */
/** A chunk the workflow saw finish, with its outcomes (from the activity's result). */
export interface CompletedChunk {
  from: number;
  to: number;
  tally: Tally;
}

function addTally(into: Tally, outcome: PersonOutcome, n = 1): void {
  into[outcome] = (into[outcome] ?? 0) + n;
}

function mergeTally(into: Tally, from: Tally): void {
  for (const o of PERSON_OUTCOMES) if (from[o] !== undefined) addTally(into, o, from[o]);
}

export async function finishJob(jobId: string, stop: StopReason | null, now = new Date(), completed: CompletedChunk[] = []): Promise<FinishedJob> {
  const job = await ContactRetrievalJob.findById(jobId).lean();
  if (!job) throw new Error(`job ${jobId} does not exist`);
  if (job.status !== 'running') {
    await releaseJobSlot(job.orgId, jobId);
    await releaseReservation(job);
    await dropWorkingDocuments(jobId);
    return finishedView(job);
  }
  const tally: Tally = {};
  const chunks = new Map(completed.map((c) => [c.from, c]));
  let leftoverCount = 0;
  if ([...chunks.values()].reduce((n, c) => n + (c.to - c.from), 0) === job.requested) {
    // Every chunk finished and reported its outcomes: nothing to settle, nothing to read.
    for (const c of chunks.values()) mergeTally(tally, c.tally);
  } else {
    leftoverCount = await settleTheRest(job, stop, tally, now);
  }
  const counts = countsFromTally(job.requested, tally);
  const status = finalJobStatus(counts, stop, stop ? leftoverCount : 0);
  const times = resultTimes(now, counts);
  const updated = await ContactRetrievalJob.findOneAndUpdate(
    { _id: jobId, status: 'running' },
    { $set: { status, counts, stopReason: stop, completedAt: now, resultExpiresAt: times.resultExpiresAt, resultPurgeAt: times.resultPurgeAt } },
    { returnDocument: 'after' },
  ).lean();
  await releaseJobSlot(job.orgId, jobId);
  await releaseReservation(job);
  await dropWorkingDocuments(jobId);
  return finishedView(updated ?? (await ContactRetrievalJob.findById(jobId).lean())!);
}

/**
 * Settles everyone without an item: a chunk whose plan was paid before the stop is delivered
 * as paid, the rest get the stop's outcome. Fills `tally` with every person's outcome and
 * returns how many got the stop's outcome.
 */
async function settleTheRest(
  job: Pick<JobDoc, '_id' | 'orgId' | 'familyId' | 'fields'>,
  stop: StopReason | null,
  tally: Tally,
  now: Date,
): Promise<number> {
  const jobId = job._id;
  const fields = job.fields;
  const people = await jobPeople(jobId);
  const settledSeqs = new Set<number>();
  for (const d of await ContactRetrievalJobItem.find({ jobId }, { seq: 1, outcome: 1 }).lean()) {
    settledSeqs.add(d.seq);
    addTally(tally, d.outcome);
  }
  if (settledSeqs.size < people.length) {
    // Chunks that stored a plan but were stopped before settling: replay their charge (if any).
    for (const p of await ContactRetrievalChunkPlan.find({ jobId }).lean()) {
      const entries = p.entries.filter((e) => !settledSeqs.has(e.seq));
      if (!entries.length) continue;
      const paid = chargeableUnits(p.entries) > 0 ? await findCharge(chunkChargeKey(jobId, p.from)) : null;
      // Not paid: what is free settles as found; the found people become leftovers below.
      const plan = paid ? p.entries : entries.filter((e) => e.answer !== 'found');
      const { settled } = await payAndSettleRecovered({ jobId, orgId: job.orgId, familyId: job.familyId, fields }, p.from, plan, paid, now);
      for (const s of settled) {
        if (settledSeqs.has(s.seq)) continue;
        settledSeqs.add(s.seq);
        addTally(tally, s.outcome);
      }
    }
  }
  const leftover = leftoverOutcome(stop);
  const leftovers = people.map((personId, seq) => ({ personId, seq })).filter((p) => !settledSeqs.has(p.seq));
  await insertManyIgnoringDuplicates(
    items(),
    leftovers.map((p) => ({
      _id: `${jobId}:${p.seq}`, jobId, seq: p.seq, personId: p.personId, outcome: leftover.outcome, reason: leftover.reason, receiptId: null, processedAt: now,
    })),
  );
  addTally(tally, leftover.outcome, leftovers.length);
  return leftovers.length;
}

/** Settles a stopped chunk from its plan with the charge an attempt made (or none). */
async function payAndSettleRecovered(
  job: { jobId: string; orgId: string; familyId: string; fields: readonly ContactField[] },
  from: number,
  plan: PlanEntry[],
  paid: { receiptId: string; amount: number } | null,
  now: Date,
): Promise<{ settled: SettledPerson[] }> {
  if (!paid) {
    const settled = settlePlan(plan, 0, null);
    await insertManyIgnoringDuplicates(
      items(),
      settled.map((p) => ({
        _id: `${job.jobId}:${p.seq}`, jobId: job.jobId, seq: p.seq, personId: p.personId, outcome: p.outcome, reason: p.reason,
        ...(p.outcome === 'reused' ? { emails: p.emails, phones: p.phones } : {}), receiptId: null, processedAt: now,
      })),
    );
    return { settled };
  }
  // Paid: chargeUpTo with the same key returns that charge, so this settles exactly as paid.
  return payAndSettle(job, from, plan, now);
}

/** What the job did not use of its delivery-quota reservation goes back to the organization. */
async function releaseReservation(job: { _id: string; orgId: string; deliveryQuotaAt?: Date | null; deliveriesReserved?: number | null }): Promise<void> {
  if (job.deliveryQuotaAt && job.deliveriesReserved) await releaseDeliveries(job.orgId, job._id, job.deliveryQuotaAt.getTime());
}

/** The job's people list and chunk plans (contact values among them) are only for running jobs. */
async function dropWorkingDocuments(jobId: string): Promise<void> {
  await ContactRetrievalChunkPlan.deleteMany({ jobId });
  await ContactRetrievalJobProgress.deleteMany({ jobId });
  await ContactRetrievalJobPeople.deleteOne({ _id: jobId });
  forgetPeople(jobId);
}

/** Retention, step 1: past `result_expires_at` the contact values are removed (reads are 409). */
export async function expireJobResult(jobId: string, now = new Date()): Promise<void> {
  await ContactRetrievalJobItem.updateMany({ jobId }, { $unset: { emails: '', phones: '' } });
  await ContactRetrievalJob.updateOne({ _id: jobId, resultExpiredAt: null }, { $set: { resultExpiredAt: now } });
}

/** Retention, step 2: the result is deleted (reads are 410 `result_gone`). */
export async function purgeJobResult(jobId: string, now = new Date()): Promise<void> {
  const job = await ContactRetrievalJob.findById(jobId, { orgId: 1, completedAt: 1 }).lean();
  if (job?.completedAt) {
    // The reuse window of what this job retrieved is over too (30 days, as the purge): its
    // cached contacts go, unless a later job retrieved the person again.
    const delivered = await ContactRetrievalJobItem.find({ jobId, outcome: 'delivered' }, { personId: 1 }).lean();
    const ids = delivered.map((d) => `${job.orgId}:${d.personId}`);
    for (let i = 0; i < ids.length; i += 1000) {
      await RetrievedContact.deleteMany({ _id: { $in: ids.slice(i, i + 1000) }, retrievedAt: { $lte: job.completedAt } });
    }
  }
  await ContactRetrievalJobItem.deleteMany({ jobId });
  await ContactRetrievalJob.updateOne({ _id: jobId, resultPurgedAt: null }, { $set: { resultPurgedAt: now } });
}
