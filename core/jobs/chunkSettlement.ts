import { chargeUpTo } from '../credits/credits';
import { exitPoint } from '../faultInjection';
import { insertManyIgnoringDuplicates } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { CREDITS_PER_RECORD, chargeableUnits, chunkChargeKey, settlePlan, type PlanEntry, type SettledPerson } from './jobRules';
import type { ContactField } from './jobTypes';
import { ContactRetrievalJobItem, RetrievedContact, type JobItemDoc, type RetrievedContactDoc } from './models';

/**
 * Settling a chunk's plan: its records are paid in ONE ledger entry keyed by job and chunk (as
 * many as the credits cover), its people are settled with one bulk insert of job items, and
 * what was delivered is remembered for reuse. Used by a chunk and by a job's finish (for chunks
 * stopped after storing their plan); every step is safe to repeat.
 */

export const CHARGE_OPERATION = 'contact_retrieval_jobs.create';

export const jobItems = () => typedCollection<JobItemDoc>(ContactRetrievalJobItem);
const retrieved = () => typedCollection<RetrievedContactDoc>(RetrievedContact);

/**
 * The settled people as the job's items, one bulk insert keyed by job and position (a repeat
 * inserts nothing); only delivered and reused people carry contact values.
 */
export async function storeJobItems(jobId: string, settled: readonly SettledPerson[], now: Date): Promise<void> {
  await insertManyIgnoringDuplicates(
    jobItems(),
    settled.map((p) => ({
      _id: `${jobId}:${p.seq}`,
      jobId,
      seq: p.seq,
      personId: p.personId,
      outcome: p.outcome,
      reason: p.reason,
      ...(p.outcome === 'delivered' || p.outcome === 'reused' ? { emails: p.emails, phones: p.phones } : {}),
      receiptId: p.receiptId,
      processedAt: now,
    })),
  );
}

/** Remembers delivered contacts for reuse: one bulk insert; an older record of a person is replaced. */
async function rememberRetrieved(orgId: string, fields: readonly ContactField[], delivered: SettledPerson[], now: Date): Promise<void> {
  if (!delivered.length) return;
  const docs = delivered.map((it) => ({
    _id: `${orgId}:${it.personId}`,
    orgId,
    personId: it.personId,
    fields: [...fields],
    emails: it.emails,
    phones: it.phones,
    retrievedAt: now,
  }));
  const { duplicates } = await insertManyIgnoringDuplicates(retrieved(), docs);
  // Already there: retrieved before the reuse window, or with fewer fields (rare: an update scans).
  for (const i of duplicates) await RetrievedContact.replaceOne({ _id: docs[i]._id }, docs[i], { upsert: true });
}

export /** Pays a plan's records (one entry, as many as funds cover) and settles its people. */
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
      orgId: job.orgId,
      familyId: job.familyId,
      operation: CHARGE_OPERATION,
      chargeKey: chunkChargeKey(job.jobId, from),
      unitPrice: CREDITS_PER_RECORD,
      units: wanted,
    });
    paid = c.units;
    receiptId = c.receiptId;
    // The chaos run's kill between a chunk's charge and its record (off unless CHAOS_EXIT_AT names it).
    exitPoint('after_charge');
  }
  const settled = settlePlan(plan, paid, receiptId);
  await storeJobItems(job.jobId, settled, now);
  const delivered = settled.filter((p) => p.outcome === 'delivered');
  await rememberRetrieved(job.orgId, job.fields, delivered, now);
  if (delivered.length && onDelivered) await onDelivered(delivered.map((p) => p.personId));
  return { settled, outOfCredits: paid < wanted };
}
