import { lazyLru } from '../store/lazyLru';
import { REUSE_WINDOW_MS } from './jobRules';
import type { ContactField } from '../contactProvider/contactProvider';
import type { JobStores } from './store';

/**
 * Who pays for a person's contact field (DECISIONS "reused ... within 30 days"): an organization
 * pays once per person and field within the reuse window, whatever number of its jobs run at
 * once. The rule is one unique insert: the claim `<org>:<person>:<field>:<generation>`. The job
 * that inserts it pays for the field; every other job finding it within the window answers the
 * person `reused` (free) once the claiming job has delivered. A claim older than the window is
 * followed by the next generation, claimed the same way. Inserts only (the one write FerretDB
 * 1.x applies atomically); a claim whose job could not pay is deleted by that job.
 */

/** The job position that holds a claim: its item `<job_id>:<seq>` tells whether it paid. */
export interface ClaimHolder {
  claimId: string;
  jobId: string;
  seq: number;
}

/** Per person asked for: the claims this job holds (it pays) and those other jobs hold. */
export interface FieldClaims {
  ours: string[];
  others: ClaimHolder[];
}

function claimKey(orgId: string, personId: string, field: ContactField): string {
  return `${orgId}:${personId}:${field}`;
}

/** The generation a process last saw per claim key: a hint only (probing verifies it). */
export interface ClaimGenerations {
  get(key: string): number | undefined;
  set(key: string, generation: number): unknown;
}

/** A worker's generation hints, built once by its composition root (activities/contacts.ts). */
export function createClaimGenerations(max = 50_000): ClaimGenerations {
  const hints = lazyLru<string, number>({ max });
  return { get: (key) => hints().get(key), set: (key, generation) => hints().set(key, generation) };
}

/** Rounds of probing one claim key may take (generations are 30 days apart; a hint skips them). */
const MAX_ROUNDS = 1_000;

/**
 * Claims every field of every person for the job position given (a repeat by the same job
 * finds its own claims): one read and one bulk insert per round, a round per generation.
 */
export async function claimContactFields(
  stores: JobStores,
  input: { orgId: string; jobId: string; fields: readonly ContactField[]; people: ReadonlyArray<{ seq: number; personId: string }> },
  now: Date,
  // Without hints every key is probed from generation 0 (one round per 30-day generation).
  generations: ClaimGenerations = new Map<string, number>(),
): Promise<Map<number, FieldClaims>> {
  const since = now.getTime() - REUSE_WINDOW_MS;
  const out = new Map<number, FieldClaims>(input.people.map((p) => [p.seq, { ours: [], others: [] }]));
  let open = input.people.flatMap((p) =>
    input.fields.map((field) => {
      const key = claimKey(input.orgId, p.personId, field);
      return { key, seq: p.seq, personId: p.personId, field, generation: generations.get(key) ?? 0 };
    }),
  );
  for (let round = 0; open.length && round < MAX_ROUNDS; round++) {
    const idOf = (o: (typeof open)[number]) => `${o.key}:${o.generation}`;
    const found = new Map((await stores.jobs.claimsByIds(open.map(idOf))).map((d) => [d._id, d]));
    const toInsert: typeof open = [];
    const next: typeof open = [];
    for (const o of open) {
      const doc = found.get(idOf(o));
      if (!doc) {
        toInsert.push(o);
        continue;
      }
      generations.set(o.key, o.generation);
      if (doc.claimedAt.getTime() < since) {
        next.push({ ...o, generation: o.generation + 1 });
        continue;
      }
      const held = out.get(o.seq)!;
      if (doc.jobId === input.jobId) held.ours.push(doc._id);
      else held.others.push({ claimId: doc._id, jobId: doc.jobId, seq: doc.seq });
    }
    const docs = toInsert.map((o) => ({
      _id: idOf(o),
      orgId: input.orgId,
      personId: o.personId,
      field: o.field,
      generation: o.generation,
      jobId: input.jobId,
      seq: o.seq,
      claimedAt: now,
    }));
    const lost = new Set(await stores.jobs.insertClaims(docs));
    toInsert.forEach((o, i) => {
      // Another job inserted it first: the next round reads whose it is.
      if (lost.has(i)) next.push(o);
      else {
        generations.set(o.key, o.generation);
        out.get(o.seq)!.ours.push(docs[i]._id);
      }
    });
    open = next;
  }
  if (open.length) throw new Error(`contact field claims did not settle for ${open.length} field(s)`);
  return out;
}

/** Deletes claims this job took but did not pay for: the fields are free to be claimed again. */
export async function releaseClaims(stores: JobStores, jobId: string, claimIds: readonly string[]): Promise<void> {
  if (claimIds.length) await stores.jobs.deleteClaimsOfJob(jobId, claimIds);
}

export type HolderState = 'paid' | 'unpaid' | 'pending';

/**
 * Whether the jobs holding these claims paid for them: their item at the claimed position is
 * `delivered` (paid), settled otherwise (not paid: the claim is dead and is deleted so the
 * field can be claimed again), or not settled yet (pending).
 */
export async function holderStates(stores: JobStores, holders: readonly ClaimHolder[]): Promise<Map<string, HolderState>> {
  const out = new Map<string, HolderState>();
  if (!holders.length) return out;
  const itemIds = [...new Set(holders.map((h) => `${h.jobId}:${h.seq}`))];
  const items = await stores.jobs.itemOutcomesByIds(itemIds);
  const dead: ClaimHolder[] = [];
  for (const h of holders) {
    const outcome = items.get(`${h.jobId}:${h.seq}`);
    const state: HolderState = outcome === undefined ? 'pending' : outcome === 'delivered' ? 'paid' : 'unpaid';
    if (state === 'unpaid') dead.push(h);
    out.set(h.claimId, state);
  }
  for (const h of dead) await stores.jobs.deleteClaimsOfJob(h.jobId, [h.claimId]);
  return out;
}
