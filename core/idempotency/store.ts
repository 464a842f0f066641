import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import {
  IdempotencyRecord,
  IdempotencyResponse,
  IdempotencyTakeover,
  type IdempotencyRecordDoc,
  type IdempotencyResponseDoc,
  type IdempotencyTakeoverDoc,
} from './models';

/**
 * The idempotency area's store: the one module that reads and writes `idempotency_records`,
 * `idempotency_responses` and `idempotency_takeovers`. It answers with plain records; claims,
 * leases, takeovers and replays are decided in idempotency.ts.
 */
export type { IdempotencyRecordDoc, IdempotencyResponseDoc, IdempotencyTakeoverDoc };

// ---- claims (records) ---------------------------------------------------------------------

/** Inserts the claim unless its id is taken; answers whether this call claimed it. */
export function insertClaim(record: IdempotencyRecordDoc): Promise<boolean> {
  return insertOnce(typedCollection<IdempotencyRecordDoc>(IdempotencyRecord), record);
}

export async function findClaim(id: string): Promise<IdempotencyRecordDoc | null> {
  return IdempotencyRecord.findById(id).lean<IdempotencyRecordDoc>();
}

/** Deletes the claim if `owner` still holds it (and, with `onlyReleased`, only once released). */
export async function deleteClaimOf(id: string, owner: string, onlyReleased = false): Promise<void> {
  await IdempotencyRecord.deleteOne(onlyReleased ? { _id: id, owner, state: 'released' } : { _id: id, owner });
}

/** Moves the claim from `previousOwner` to `owner`, in progress until `leaseUntil`; false when `previousOwner` no longer holds it. */
export async function moveClaim(id: string, previousOwner: string, owner: string, leaseUntil: Date): Promise<boolean> {
  const moved = await IdempotencyRecord.updateOne({ _id: id, owner: previousOwner }, { $set: { owner, state: 'in_progress', leaseUntil } });
  return moved.matchedCount === 1;
}

/** Marks the claim released with a lapsed lease, if `owner` holds it in progress. */
export async function releaseClaim(id: string, owner: string): Promise<void> {
  await IdempotencyRecord.updateOne({ _id: id, owner, state: 'in_progress' }, { $set: { state: 'released', leaseUntil: new Date(0) } });
}

// ---- takeovers ----------------------------------------------------------------------------

/** Inserts the marker of who takes over a lapsed claim; answers whether this call did. */
export function insertTakeover(marker: IdempotencyTakeoverDoc): Promise<boolean> {
  return insertOnce(typedCollection<IdempotencyTakeoverDoc>(IdempotencyTakeover), marker);
}

// ---- responses ----------------------------------------------------------------------------

/**
 * Stores a claim's first response unless one is stored; answers whether this call stored it.
 * FerretDB: an update scans the collection, so completing is an insert of its own record.
 */
export function insertResponse(response: IdempotencyResponseDoc): Promise<boolean> {
  return insertOnce(typedCollection<IdempotencyResponseDoc>(IdempotencyResponse), response);
}

export async function findResponse(id: string): Promise<IdempotencyResponseDoc | null> {
  return IdempotencyResponse.findById(id).lean<IdempotencyResponseDoc>();
}

/** Deletes the claim's response if it expired at `now`. */
export async function deleteExpiredResponse(id: string, now: Date): Promise<void> {
  await IdempotencyResponse.deleteOne({ _id: id, expiresAt: { $lte: now } });
}

// ---- retention ----------------------------------------------------------------------------

/** Deletes responses, takeover markers and claims expired at `now`; answers how many claims. */
export async function deleteExpired(now: Date): Promise<number> {
  await IdempotencyResponse.deleteMany({ expiresAt: { $lte: now } });
  await IdempotencyTakeover.deleteMany({ expiresAt: { $lte: now } });
  return (await IdempotencyRecord.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
}
