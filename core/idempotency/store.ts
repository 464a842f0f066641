import type { Connection } from 'mongoose';
import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { idempotencyModels, type IdempotencyRecordDoc, type IdempotencyResponseDoc, type IdempotencyTakeoverDoc } from './models';

export type { IdempotencyRecordDoc, IdempotencyResponseDoc, IdempotencyTakeoverDoc };

/**
 * The idempotency area's store: the one module that reads and writes `idempotency_records`,
 * `idempotency_responses` and `idempotency_takeovers`. It answers with plain records; claims,
 * leases, takeovers and replays are decided in idempotency.ts.
 */
export function createIdempotencyStore(connection: Connection) {
  const { records: IdempotencyRecord, responses: IdempotencyResponse, takeovers: IdempotencyTakeover } = idempotencyModels(connection);
  const records = typedCollection<IdempotencyRecordDoc>(IdempotencyRecord);
  const responses = typedCollection<IdempotencyResponseDoc>(IdempotencyResponse);
  const takeovers = typedCollection<IdempotencyTakeoverDoc>(IdempotencyTakeover);
  return {
    // ---- claims (records) ---------------------------------------------------------------------

    /** Inserts the claim unless its id is taken; answers whether this call claimed it. */
    insertClaim(record: IdempotencyRecordDoc): Promise<boolean> {
      return insertOnce(records, record);
    },

    async findClaim(id: string): Promise<IdempotencyRecordDoc | null> {
      return IdempotencyRecord.findById(id).lean<IdempotencyRecordDoc>();
    },

    /** Deletes the claim if `owner` still holds it (and, with `onlyReleased`, only once released). */
    async deleteClaimOf(id: string, owner: string, onlyReleased = false): Promise<void> {
      await IdempotencyRecord.deleteOne(onlyReleased ? { _id: id, owner, state: 'released' } : { _id: id, owner });
    },

    /** Moves the claim from `previousOwner` to `owner`, in progress until `leaseUntil`; false when `previousOwner` no longer holds it. */
    async moveClaim(id: string, previousOwner: string, owner: string, leaseUntil: Date): Promise<boolean> {
      const moved = await IdempotencyRecord.updateOne({ _id: id, owner: previousOwner }, { $set: { owner, state: 'in_progress', leaseUntil } });
      return moved.matchedCount === 1;
    },

    /** Marks the claim released with a lapsed lease, if `owner` holds it in progress. */
    async releaseClaim(id: string, owner: string): Promise<void> {
      await IdempotencyRecord.updateOne({ _id: id, owner, state: 'in_progress' }, { $set: { state: 'released', leaseUntil: new Date(0) } });
    },

    // ---- takeovers ----------------------------------------------------------------------------

    /** Inserts the marker of who takes over a lapsed claim; answers whether this call did. */
    insertTakeover(marker: IdempotencyTakeoverDoc): Promise<boolean> {
      return insertOnce(takeovers, marker);
    },

    // ---- responses ----------------------------------------------------------------------------

    /**
     * Stores a claim's first response unless one is stored; answers whether this call stored it.
     * FerretDB: an update scans the collection, so completing is an insert of its own record.
     */
    insertResponse(response: IdempotencyResponseDoc): Promise<boolean> {
      return insertOnce(responses, response);
    },

    async findResponse(id: string): Promise<IdempotencyResponseDoc | null> {
      return IdempotencyResponse.findById(id).lean<IdempotencyResponseDoc>();
    },

    /** Deletes the claim's response if it expired at `now`. */
    async deleteExpiredResponse(id: string, now: Date): Promise<void> {
      await IdempotencyResponse.deleteOne({ _id: id, expiresAt: { $lte: now } });
    },

    // ---- retention ----------------------------------------------------------------------------

    /** Deletes responses, takeover markers and claims expired at `now`; answers how many claims. */
    async deleteExpired(now: Date): Promise<number> {
      await IdempotencyResponse.deleteMany({ expiresAt: { $lte: now } });
      await IdempotencyTakeover.deleteMany({ expiresAt: { $lte: now } });
      return (await IdempotencyRecord.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the idempotency store. */
export interface IdempotencyStores {
  idempotency: IdempotencyStore;
}
