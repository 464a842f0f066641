import { spenderOf, type AgentOfCall } from '../credits/agentAllowance';
import { chargeUpTo, findCharge, type LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import type { ReachExitPoint } from '../faultInjection';
import { claimContactFields, holderStates, releaseClaims, type ClaimGenerations } from './contactFieldClaims';
import { CREDITS_PER_RECORD, chunkChargeKey, heldAnswer, settlePlan, type HeldAnswer, type PlanEntry, type SettledPerson } from './jobRules';
import type { ContactField } from '../contactProvider/contactProvider';
import type { ChunkPaymentDoc, JobStores } from './store';

/**
 * Settling a chunk's plan: the found people's fields are claimed (an organization pays once
 * per person and field within the reuse window, whatever number of its jobs run at once:
 * contactFieldClaims.ts) and the decision stored, the people this job claimed are paid in ONE
 * ledger entry keyed by job and chunk (as many as the credits cover), its people are settled
 * with bulk inserts of job items, and what was delivered is remembered for reuse. People
 * another job claimed first are `reused` once that job delivered them. Used by a chunk and by
 * a job's finish (for chunks stopped after storing their plan); every step is safe to repeat.
 */

export const CHARGE_OPERATION = 'contact_retrieval_jobs.create';

/**
 * The settled people as the job's items, one bulk insert keyed by job and position (a repeat
 * inserts nothing); only delivered and reused people carry contact values.
 */
export async function storeJobItems(stores: JobStores, jobId: string, settled: readonly SettledPerson[], now: Date): Promise<void> {
  await stores.jobs.insertJobItems(
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
async function rememberRetrieved(stores: JobStores, orgId: string, fields: readonly ContactField[], delivered: SettledPerson[], now: Date): Promise<void> {
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
  await stores.jobs.rememberRetrievedContacts(docs);
}

/**
 * The chunk's payment decision: stored by the first attempt that makes it (claims first, so a
 * retry finds its own claims and makes the same one), read back by every later one. `create:
 * false` only reads it (a job's finish does not claim for a chunk that never did).
 */
async function chunkPayment(
  stores: JobStores,
  job: { jobId: string; orgId: string; fields: readonly ContactField[] },
  from: number,
  found: readonly PlanEntry[],
  now: Date,
  create: boolean,
  firstAttempt: boolean,
  generations?: ClaimGenerations,
): Promise<ChunkPaymentDoc | null> {
  const id = `${job.jobId}:${from}`;
  // A first attempt cannot find a decision of its own: it skips the read (a scan on FerretDB).
  const stored = firstAttempt && create ? null : await stores.jobs.findChunkPayment(id);
  if (stored || !create) return stored;
  const claims = await claimContactFields(stores, { orgId: job.orgId, jobId: job.jobId, fields: job.fields, people: found }, now, generations);
  const doc: ChunkPaymentDoc = { _id: id, jobId: job.jobId, ours: [], others: [], createdAt: now };
  for (const e of [...found].sort((a, b) => a.seq - b.seq)) {
    const c = claims.get(e.seq)!;
    // A person with one field nobody claimed yet is a new record: this job pays for it.
    if (c.ours.length) doc.ours.push({ seq: e.seq, claimIds: c.ours });
    else doc.others.push({ seq: e.seq, holders: c.others });
  }
  if (await stores.jobs.insertChunkPayment(doc)) return doc;
  const earlier = await stores.jobs.findChunkPayment(id);
  if (!earlier) throw new Error(`the payment decision ${id} was refused as a duplicate but is gone`);
  return earlier;
}

/** How a chunk waits for the jobs that claimed some of its people first to settle them. */
export interface HolderWait {
  heartbeat: () => void;
  signal?: AbortSignal;
  /** How long to wait before giving up (the activity is retried); default 30 s. */
  timeoutMs?: number;
  /** The clock the wait is measured on (milliseconds). */
  now: () => number;
}

/** The answers of the people other jobs claimed; with `wait`, until none is pending. */
async function resolveHeld(stores: JobStores, others: ChunkPaymentDoc['others'], wait: HolderWait | undefined): Promise<Map<number, HeldAnswer>> {
  const deadline = wait ? wait.now() + (wait.timeoutMs ?? 30_000) : 0;
  for (let delay = 20; ; delay = Math.min(1000, delay * 2)) {
    const states = await holderStates(
      stores,
      others.flatMap((o) => o.holders),
    );
    const answers = new Map(others.map((o) => [o.seq, heldAnswer(o.holders.map((h) => states.get(h.claimId) ?? 'pending'))]));
    if (!wait || ![...answers.values()].includes('pending')) return answers;
    if (wait.signal?.aborted) throw new Error('chunk cancelled');
    if (wait.now() > deadline) throw new Error('another job is still paying for people of this chunk; retried later');
    wait.heartbeat();
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * Pays a plan's records (one entry, as many as funds cover) and settles its people. `charge:
 * false` (a job's finish) settles with the charge an earlier attempt made, if any: people it
 * did not pay stay unsettled, their claims released. Held people are settled once their
 * holders did (with `wait`, waiting for that); those still pending stay unsettled.
 */
export async function payAndSettle(
  stores: CreditStores & JobStores,
  job: { jobId: string; orgId: string; familyId: string; agent?: AgentOfCall; fields: readonly ContactField[] },
  from: number,
  plan: PlanEntry[],
  now: Date,
  options: {
    charge: boolean;
    firstAttempt?: boolean;
    wait?: HolderWait;
    onDelivered?: (personIds: string[]) => Promise<void>;
    /** Told the credits this call charged under `operation` (not a charge an earlier attempt made). */
    onCharged?: (charged: { orgId: string; operation: string; credits: number }) => void;
    /** The worker's claim generation hints. */
    generations?: ClaimGenerations;
    /** The worker's credit ledger heads. */
    ledgerHeads?: LedgerHeads;
    /** The process's exit points (the chaos run arms one). */
    exitPoint?: ReachExitPoint;
  },
): Promise<{ settled: SettledPerson[]; outOfCredits: boolean }> {
  const found = plan.filter((e) => e.answer === 'found');
  const payment = found.length ? await chunkPayment(stores, job, from, found, now, options.charge, options.firstAttempt === true, options.generations) : null;
  if (found.length && !payment) {
    // Stopped before deciding who pays: nothing was claimed or charged; found people stay unsettled.
    const settled = settlePlan(
      plan.filter((e) => e.answer !== 'found'),
      0,
      null,
    );
    await storeJobItems(stores, job.jobId, settled, now);
    return { settled, outOfCredits: false };
  }
  const ours = payment?.ours ?? [];
  const others = payment?.others ?? [];
  let paid = 0;
  let receiptId: string | null = null;
  let charged = ours.length === 0;
  if (ours.length) {
    const key = chunkChargeKey(job.jobId, from);
    const c = options.charge
      ? await chargeUpTo(
          // The chunk's charge is dated by the chunk's clock.
          { stores, now: () => now.getTime(), ledgerHeads: options.ledgerHeads },
          {
            orgId: job.orgId,
            familyId: job.familyId,
            ...(job.agent ? { agent: spenderOf(job.agent, now) } : {}),
            operation: CHARGE_OPERATION,
            chargeKey: key,
            unitPrice: CREDITS_PER_RECORD,
            units: ours.length,
          },
        )
      : await findCharge(stores, key).then((e) => e && { units: e.amount / CREDITS_PER_RECORD, receiptId: e.receiptId });
    if (c && 'charged' in c && c.charged) options.onCharged?.({ orgId: job.orgId, operation: CHARGE_OPERATION, credits: c.units * CREDITS_PER_RECORD });
    if (c) {
      paid = c.units;
      receiptId = c.receiptId;
      charged = true;
    }
    // The chaos run's kill between a chunk's charge and its record (off unless CHAOS_EXIT_AT names it).
    if (options.charge) options.exitPoint?.('after_charge');
  }
  const unsettledOurs = charged ? [] : ours;
  const held = new Map<number, HeldAnswer>([...others.map((o): [number, HeldAnswer] => [o.seq, 'pending'])]);
  const mine = settlePlan(
    plan.filter((e) => !unsettledOurs.some((o) => o.seq === e.seq)),
    paid,
    receiptId,
    held,
  );
  await storeJobItems(stores, job.jobId, mine, now);
  const delivered = mine.filter((p) => p.outcome === 'delivered');
  await rememberRetrieved(stores, job.orgId, job.fields, delivered, now);
  if (delivered.length && options.onDelivered) await options.onDelivered(delivered.map((p) => p.personId));
  // Claims this job took and did not pay for go, so another job (or a later one) can pay.
  await releaseClaims(
    stores,
    job.jobId,
    [...(charged ? ours.slice(paid) : ours)].flatMap((o) => o.claimIds),
  );
  let theirs: SettledPerson[] = [];
  if (others.length) {
    const answers = await resolveHeld(stores, others, options.wait);
    theirs = settlePlan(
      found.filter((e) => answers.has(e.seq)),
      0,
      null,
      answers,
    );
    await storeJobItems(stores, job.jobId, theirs, now);
  }
  return { settled: [...mine, ...theirs].sort((a, b) => a.seq - b.seq), outOfCredits: paid < ours.length && charged };
}
