import type { Collection, Document } from 'mongodb';
import { isDuplicateKeyError } from './duplicateKey';

/**
 * Compare-and-set of a document carrying a version number `v`, that holds on FerretDB 1.x too.
 *
 * A conditional update (`{_id, v: n}` → `v: n + 1`) is not atomic on FerretDB: two writers that
 * read version n can both succeed and the later write silently drops the earlier one. Unique
 * inserts do hold, so each new version is first claimed by inserting `<id>:<v>` with the whole
 * new state into a companion collection: one writer wins each version, the others are told to
 * read again. The document is then brought up to the newest claimed version, by the winner or by
 * whichever writer finds a claim not yet copied (a writer that stopped half way never blocks the
 * next). A copy that lands late over a newer one is followed by its writer's own catch-up, so
 * the document always ends at the newest claim. On MongoDB every step is simply atomic.
 */
export interface VersionClaim extends Document {
  _id: string;
  doc: string;
  v: number;
  state: Document;
  at: Date;
}

/** Claims older than this are removed once a newer version is in place; no write is in flight that long. */
const CLAIM_RETENTION_MS = 10 * 60_000;

/** A document kept by commitNextVersion: string id, version `v` (0 before the first write). */
export interface VersionedDoc extends Document {
  _id: string;
  v: number;
}

export interface VersionedStore {
  documents: Collection<VersionedDoc>;
  claims: Collection<VersionClaim>;
}

/**
 * Writes `state` as version `readVersion + 1` of document `id` at `now` (the writer's clock).
 * Returns false when another writer took that version first: read the document again and retry
 * with its new version.
 */
export async function commitNextVersion(store: VersionedStore, id: string, readVersion: number, state: Document, now: Date): Promise<boolean> {
  const v = readVersion + 1;
  const claim: VersionClaim = { _id: `${id}:${v}`, doc: id, v, state, at: now };
  try {
    await store.claims.insertOne(claim);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    await catchUp(store, id);
    return false;
  }
  await copyClaim(store, claim);
  await catchUp(store, id);
  await store.claims.deleteMany({ doc: id, v: { $lt: v }, at: { $lt: new Date(now.getTime() - CLAIM_RETENTION_MS) } });
  return true;
}

async function copyClaim(store: VersionedStore, claim: VersionClaim): Promise<void> {
  try {
    await store.documents.updateOne({ _id: claim.doc, v: { $lt: claim.v } }, { $set: { ...claim.state, v: claim.v } }, { upsert: true });
  } catch (err) {
    // The upsert met a document already at this version or a newer one.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Copies every claimed version newer than the document's into it, oldest first. */
async function catchUp(store: VersionedStore, id: string): Promise<void> {
  for (;;) {
    const current = await store.documents.findOne({ _id: id }, { projection: { v: 1 } });
    const next = await store.claims.findOne({ _id: `${id}:${(current?.v ?? 0) + 1}` });
    if (!next) return;
    await copyClaim(store, next);
  }
}
