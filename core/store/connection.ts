import mongoose, { type Connection } from 'mongoose';
import { STORE_WAIT_DEFAULTS, type Config } from '../config';
import { INDEX_SET_COLLECTION, INDEX_SET_ID, indexSetDigest } from './indexSet';
import { isStoreUnavailable } from './storeUnavailable';

export type StoreWaits = Config['store'];

/** The store's address for messages: host and database, never credentials. */
export function storeAddress(uri: string): string {
  return uri.replace(/^(mongodb(\+srv)?:\/\/)[^@/]*@/, '$1').replace(/\?.*$/, '');
}

/**
 * Opens a connection of the root's own (`mongoose.createConnection`); the areas' stores are
 * built on it (core/deps.ts `createStores`), so two apps in one process can each have their own
 * database. Works against real MongoDB and against FerretDB 1.x: no transactions, no TTL or
 * partial indexes, no $text.
 *
 * Every wait on the store has a limit (`waits`, from STORE_* settings): a call waits at most
 * the server selection time for a reachable server (and as long in mongoose's buffer while it
 * reconnects), then fails and a request is answered 503 dependency_unavailable
 * (api/middleware/problemDocuments), never a hang or a 500; a connection that stops answering
 * fails a call after the socket timeout; opening gives up after `startupWaitMs`, naming the store.
 */
export async function openConnection(uri: string, waits: Partial<StoreWaits> = {}): Promise<Connection> {
  const w = { ...STORE_WAIT_DEFAULTS, ...waits };
  mongoose.set('strictQuery', true);
  mongoose.set('autoIndex', false);
  mongoose.set('bufferTimeoutMS', w.serverSelectionTimeoutMs);
  const connection = mongoose.createConnection();
  const deadline = Date.now() + w.startupWaitMs;
  for (;;) {
    try {
      await connection.openUri(uri, {
        serverSelectionTimeoutMS: w.serverSelectionTimeoutMs,
        connectTimeoutMS: w.connectTimeoutMs,
        socketTimeoutMS: w.socketTimeoutMs,
        maxPoolSize: 50,
        autoIndex: false,
      });
      return connection;
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      if (Date.now() >= deadline) {
        throw new Error(
          `The store at ${storeAddress(uri)} could not be reached within ${w.startupWaitMs} ms (STORE_STARTUP_WAIT_MS): ${(err as Error).message}`,
          { cause: err },
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The store as a composition root holds it: the connection it opened, on which the areas'
 * stores are built (core/deps.ts `createStores`), and how the root checks, prepares and closes
 * it. Nothing uses mongoose's default connection (test/unit/moduleState.test.ts).
 */
export interface StoreHandle {
  /** The root's own connection; unopened in a `createDeps` that was given no store. */
  readonly connection: Connection;
  ping(): Promise<boolean>;
  /** Creates every model's indexes (idempotent), unless the database was last prepared with the same ones. */
  ensureIndexes(): Promise<void>;
  close(): Promise<void>;
}

async function pingConnection(connection: Connection): Promise<boolean> {
  try {
    const db = connection.db;
    if (!db || connection.readyState !== 1) return false;
    await db.admin().command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates every model's indexes unless this database was last prepared with the same ones
 * (core/store/indexSet.ts). The digest is written after the last index exists, so a start that
 * fails half-way leaves the old digest, or none, and the next start creates them again.
 */
async function ensureIndexesOf(connection: Connection): Promise<void> {
  const models = Object.values(connection.models);
  const digest = indexSetDigest(models.map((m) => ({ collection: m.collection.collectionName, indexes: m.schema.indexes() })));
  const db = connection.db;
  if (!db) throw new Error('the store is not open: its indexes are created after it opens');
  const sets = db.collection<{ _id: string; digest: string }>(INDEX_SET_COLLECTION);
  if ((await sets.findOne({ _id: INDEX_SET_ID }))?.digest === digest) return;
  for (const model of models) {
    await model.createIndexes();
  }
  await sets.updateOne({ _id: INDEX_SET_ID }, { $set: { digest } }, { upsert: true });
}

/** A handle over `connection`. */
export function storeOn(connection: Connection): StoreHandle {
  return {
    connection,
    ping: () => pingConnection(connection),
    ensureIndexes: () => ensureIndexesOf(connection),
    close: () => connection.close(),
  };
}

/**
 * A store no root opened (`createDeps` without one): calls on its areas wait for a connection
 * that never comes and fail after the store's buffer time.
 */
export function unopenedStore(): StoreHandle {
  return storeOn(mongoose.createConnection());
}

/** Opens the root's own connection (waiting as `waits` allow) and returns its handle. */
export async function openStore(uri: string, waits: Partial<StoreWaits> = {}): Promise<StoreHandle> {
  return storeOn(await openConnection(uri, waits));
}

// Kept importable from here: most of core/ reads the duplicate-key test from this module.
export { isDuplicateKeyError } from './duplicateKey';
