import type { AnyBulkWriteOperation } from 'mongoose';
import { charge, findCharge } from '../credits/credits';
import { ProviderRejected, ProviderUnavailable, type ContactProvider, type ProviderAnswer } from '../contactProvider/contactProvider';
import { withProviderRetries, type ProviderRetryPolicy } from '../contactProvider/retryPolicy';
import { Problem } from '../problems';
import { releaseJobSlot } from './jobSlots';
import {
  CREDITS_PER_RECORD, REUSE_WINDOW_MS, countsFromTally, finalJobStatus, leftoverOutcome, personChargeKey, resultTimes,
} from './jobRules';
import type { ContactField, FailureReason, FinalJobStatus, JobCounts, PersonOutcome, StopReason } from './jobTypes';
import { ContactRetrievalJob, ContactRetrievalJobItem, RetrievedContact } from './models';

/**
 * The work of a contact-retrieval job, called from its activities. Every step is safe to
 * repeat: items only leave `pending` once, the provider's answer is stored before the charge,
 * and a charge is keyed by job and person, so a retried or restarted activity never charges
 * twice and never charges for something it did not deliver.
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
}

export interface ChunkOutcome {
  /** Outcomes of every person of the chunk, including those settled by an earlier attempt. */
  tally: Partial<Record<PersonOutcome, number>>;
  /** A charge was refused for lack of credits or budget: the job must stop. */
  outOfCredits: boolean;
}

export interface ChunkDeps {
  provider: ContactProvider;
  retryPolicy: ProviderRetryPolicy;
  /** Tells Temporal the activity is alive; called between steps. */
  heartbeat: () => void;
  signal?: AbortSignal;
  /** Charges in flight at once inside a chunk. */
  chargeConcurrency?: number;
  /** Called with the people delivered (they count toward the daily delivery quota). */
  onDelivered?: (orgId: string, personIds: string[]) => Promise<void>;
  now?: () => Date;
}

interface ItemState {
  _id: string;
  personId: string;
  outcome: PersonOutcome;
  fetched: boolean;
  emails: string[];
  phones: string[];
}

type ItemWrite = AnyBulkWriteOperation<{ _id: string }>;

function settle(id: string, outcome: Exclude<PersonOutcome, 'pending'>, set: Record<string, unknown>, now: Date, clearContacts = false): ItemWrite {
  return {
    updateOne: {
      filter: { _id: id, outcome: 'pending' },
      update: {
        $set: { outcome, processedAt: now, fetched: false, reason: null, ...set },
        ...(clearContacts ? { $unset: { emails: '', phones: '' } } : {}),
      },
    },
  };
}

function pick(fields: readonly ContactField[], emails: string[] = [], phones: string[] = []): { emails: string[]; phones: string[] } {
  return { emails: fields.includes('email') ? emails : [], phones: fields.includes('phone') ? phones : [] };
}

async function findReusable(orgId: string, personIds: string[], fields: readonly ContactField[], now: Date) {
  const since = new Date(now.getTime() - REUSE_WINDOW_MS);
  const docs = await RetrievedContact.find({ _id: { $in: personIds.map((p) => `${orgId}:${p}`) }, retrievedAt: { $gte: since } }).lean();
  const out = new Map<string, { emails: string[]; phones: string[] }>();
  for (const d of docs) {
    if (fields.every((f) => d.fields.includes(f))) out.set(d.personId, pick(fields, d.emails, d.phones));
  }
  return out;
}

async function rememberRetrieved(orgId: string, fields: readonly ContactField[], delivered: ItemState[], now: Date): Promise<void> {
  if (!delivered.length) return;
  await RetrievedContact.bulkWrite(
    delivered.map((it) => ({
      updateOne: {
        filter: { _id: `${orgId}:${it.personId}` },
        update: { $set: { orgId, personId: it.personId, fields: [...fields], emails: it.emails, phones: it.phones, retrievedAt: now } },
        upsert: true,
      },
    })),
    { ordered: false },
  );
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

/** Processes the people at positions [from, to) of a job: reuse, look up, charge, deliver. */
export async function processChunk(input: ChunkInput, deps: ChunkDeps): Promise<ChunkOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const docs = await ContactRetrievalJobItem.find({ jobId: input.jobId, seq: { $gte: input.from, $lt: input.to } }).lean();
  const items: ItemState[] = docs.map((d) => ({
    _id: d._id, personId: d.personId, outcome: d.outcome as PersonOutcome, fetched: !!d.fetched, emails: d.emails ?? [], phones: d.phones ?? [],
  }));
  const writes: ItemWrite[] = [];
  const flush = async () => {
    if (writes.length) await ContactRetrievalJobItem.bulkWrite(writes.splice(0) as never, { ordered: false });
  };

  // 1. People this organization retrieved recently are reused, free; the rest go to the provider.
  const unfetched = items.filter((it) => it.outcome === 'pending' && !it.fetched);
  if (unfetched.length) {
    const reusable = await findReusable(input.orgId, unfetched.map((it) => it.personId), input.fields, now);
    const toLookup: ItemState[] = [];
    for (const it of unfetched) {
      const hit = reusable.get(it.personId);
      if (hit) {
        it.outcome = 'reused';
        writes.push(settle(it._id, 'reused', hit, now));
      } else {
        toLookup.push(it);
      }
    }
    if (toLookup.length) {
      const { answers, failure } = await lookupWithRetries(deps, toLookup.map((it) => it.personId), input.fields);
      const byPerson = new Map(answers.map((a) => [a.personId, a]));
      for (const it of toLookup) {
        const a = byPerson.get(it.personId);
        if (!a) {
          it.outcome = 'failed';
          writes.push(settle(it._id, 'failed', { reason: failure ?? 'provider_unavailable' }, now, true));
          continue;
        }
        const found = a.status === 'found' ? pick(input.fields, a.emails, a.phones) : { emails: [], phones: [] };
        if (found.emails.length + found.phones.length === 0) {
          // Nothing of what was asked for: not a record, not charged.
          it.outcome = 'not_found';
          writes.push(settle(it._id, 'not_found', {}, now, true));
        } else {
          Object.assign(it, { fetched: true }, found);
          writes.push({ updateOne: { filter: { _id: it._id, outcome: 'pending' }, update: { $set: { fetched: true, ...found } } } });
        }
      }
    }
    await flush();
  }

  // 2. Charge what was fetched (now or by an earlier attempt), one charge key per person, then deliver.
  const toCharge = items.filter((it) => it.outcome === 'pending' && it.fetched);
  // Charges of one organization contend on its ledger: one at a time per chunk keeps them flowing.
  const groupSize = Math.max(1, deps.chargeConcurrency ?? 1);
  let outOfCredits = false;
  for (let i = 0; i < toCharge.length; i += groupSize) {
    const group = toCharge.slice(i, i + groupSize);
    // Cancelled: stop charging; whoever was charged already is delivered by the finish.
    if (deps.signal?.aborted) break;
    if (outOfCredits) {
      for (const it of group) {
        it.outcome = 'failed';
        writes.push(settle(it._id, 'failed', { reason: 'insufficient_credits' }, now, true));
      }
      continue;
    }
    deps.heartbeat();
    const results = await Promise.all(
      group.map(async (it) => {
        try {
          const r = await charge({
            orgId: input.orgId, familyId: input.familyId, amount: CREDITS_PER_RECORD, operation: CHARGE_OPERATION,
            chargeKey: personChargeKey(input.jobId, it.personId),
          });
          return { it, receiptId: r.receiptId };
        } catch (err) {
          if (err instanceof Problem && err.status === 402) return { it, receiptId: null };
          throw err;
        }
      }),
    );
    const delivered: ItemState[] = [];
    for (const { it, receiptId } of results) {
      if (receiptId) {
        it.outcome = 'delivered';
        delivered.push(it);
        writes.push(settle(it._id, 'delivered', { receiptId, emails: it.emails, phones: it.phones }, now));
      } else {
        outOfCredits = true;
        it.outcome = 'failed';
        writes.push(settle(it._id, 'failed', { reason: 'insufficient_credits' }, now, true));
      }
    }
    await flush();
    await rememberRetrieved(input.orgId, input.fields, delivered, now);
    if (delivered.length && deps.onDelivered) await deps.onDelivered(input.orgId, delivered.map((it) => it.personId));
  }
  await flush();

  const tally: Partial<Record<PersonOutcome, number>> = {};
  for (const it of items) tally[it.outcome] = (tally[it.outcome] ?? 0) + 1;
  return { tally, outOfCredits };
}

/** Outcomes of a job's people, counted in the store. */
export async function tallyJobItems(jobId: string): Promise<Partial<Record<PersonOutcome, number>>> {
  const outcomes: PersonOutcome[] = ['delivered', 'not_found', 'failed', 'reused', 'cancelled'];
  const n = await Promise.all(outcomes.map((outcome) => ContactRetrievalJobItem.countDocuments({ jobId, outcome })));
  return Object.fromEntries(outcomes.map((o, i) => [o, n[i]]));
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

function finishedView(job: {
  _id: string; orgId: string; workspaceId: string; status: string; counts?: unknown; completedAt?: Date | null;
  resultExpiresAt?: Date | null; resultPurgeAt?: Date | null;
}): FinishedJob {
  return {
    jobId: job._id,
    orgId: job.orgId,
    workspaceId: job.workspaceId,
    status: job.status as FinalJobStatus,
    counts: job.counts as JobCounts,
    completedAt: job.completedAt!.toISOString(),
    resultExpiresAt: job.resultExpiresAt ? job.resultExpiresAt.toISOString() : null,
    resultPurgeAt: job.resultPurgeAt!.toISOString(),
  };
}

/**
 * Ends a job: settles everyone still pending (a fetched person whose charge went through is
 * delivered; the rest get the stop's outcome), stores the final counts, status and retention
 * times, and frees the running-job slot. Repeating it returns the first finish.
 */
export async function finishJob(jobId: string, stop: StopReason | null, now = new Date()): Promise<FinishedJob> {
  const job = await ContactRetrievalJob.findById(jobId).lean();
  if (!job) throw new Error(`job ${jobId} does not exist`);
  if (job.status !== 'running') {
    await releaseJobSlot(job.orgId, jobId);
    return finishedView(job);
  }
  const fetched = await ContactRetrievalJobItem.find({ jobId, outcome: 'pending', fetched: true }).lean();
  const recovered: ItemState[] = [];
  for (const it of fetched) {
    const c = await findCharge(personChargeKey(jobId, it.personId));
    if (!c) continue;
    await ContactRetrievalJobItem.updateOne(
      { _id: it._id, outcome: 'pending' },
      { $set: { outcome: 'delivered', receiptId: c.receiptId, processedAt: now, fetched: false } },
    );
    recovered.push({ _id: it._id, personId: it.personId, outcome: 'delivered', fetched: false, emails: it.emails ?? [], phones: it.phones ?? [] });
  }
  await rememberRetrieved(job.orgId, job.fields as ContactField[], recovered, now);
  const leftover = leftoverOutcome(stop);
  await ContactRetrievalJobItem.updateMany(
    { jobId, outcome: 'pending' },
    { $set: { outcome: leftover.outcome, reason: leftover.reason, processedAt: now, fetched: false }, $unset: { emails: '', phones: '' } },
  );
  const counts = countsFromTally(job.requested, await tallyJobItems(jobId));
  const leftovers = stop ? await ContactRetrievalJobItem.countDocuments({ jobId, outcome: leftover.outcome, reason: leftover.reason }) : 0;
  const status = finalJobStatus(counts, stop, leftovers);
  const times = resultTimes(now, counts);
  const updated = await ContactRetrievalJob.findOneAndUpdate(
    { _id: jobId, status: 'running' },
    { $set: { status, counts, stopReason: stop, completedAt: now, resultExpiresAt: times.resultExpiresAt, resultPurgeAt: times.resultPurgeAt } },
    { new: true },
  ).lean();
  await releaseJobSlot(job.orgId, jobId);
  return finishedView(updated ?? (await ContactRetrievalJob.findById(jobId).lean())!);
}

/** Retention, step 1: past `result_expires_at` the contact values are removed (reads are 409). */
export async function expireJobResult(jobId: string, now = new Date()): Promise<void> {
  await ContactRetrievalJobItem.updateMany({ jobId }, { $unset: { emails: '', phones: '' } });
  await ContactRetrievalJob.updateOne({ _id: jobId, resultExpiredAt: null }, { $set: { resultExpiredAt: now } });
}

/** Retention, step 2: the result is deleted (reads are 410 `result_gone`). */
export async function purgeJobResult(jobId: string, now = new Date()): Promise<void> {
  await ContactRetrievalJobItem.deleteMany({ jobId });
  await ContactRetrievalJob.updateOne({ _id: jobId, resultPurgedAt: null }, { $set: { resultPurgedAt: now } });
}
