import mongoose from 'mongoose';
import { STORE_WAIT_DEFAULTS, type Config } from '../config';
import { isStoreUnavailable } from './storeUnavailable';

export type StoreWaits = Config['store'];

/** The store's address for messages: host and database, never credentials. */
export function storeAddress(uri: string): string {
  return uri.replace(/^(mongodb(\+srv)?:\/\/)[^@/]*@/, '$1').replace(/\?.*$/, '');
}

/**
 * One MongoDB connection per process (the default mongoose connection). Works against real
 * MongoDB and against FerretDB 1.x: no transactions, no TTL or partial indexes, no $text.
 *
 * Every wait on the store has a limit (`waits`, from STORE_* settings): a call waits at most
 * the server selection time for a reachable server (and as long in mongoose's buffer while it
 * reconnects), then fails and a request is answered 503 dependency_unavailable
 * (api/middleware/problemDocuments), never a hang or a 500; a connection that stops answering
 * fails a call after the socket timeout; start-up gives up after `startupWaitMs`, naming the store.
 */
export async function connectStore(uri: string, waits: Partial<StoreWaits> = {}): Promise<typeof mongoose> {
  const w = { ...STORE_WAIT_DEFAULTS, ...waits };
  mongoose.set('strictQuery', true);
  // Indexes are created explicitly by ensureIndexes(): autoIndex would race across replicas
  // and hide index errors in background promises.
  mongoose.set('autoIndex', false);
  mongoose.set('bufferTimeoutMS', w.serverSelectionTimeoutMs);
  // At start-up the store may still be coming up: keep trying for a while.
  const deadline = Date.now() + w.startupWaitMs;
  for (;;) {
    try {
      await mongoose.connect(uri, {
        serverSelectionTimeoutMS: w.serverSelectionTimeoutMs,
        connectTimeoutMS: w.connectTimeoutMs,
        socketTimeoutMS: w.socketTimeoutMs,
        maxPoolSize: 50,
      });
      return mongoose;
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      if (Date.now() >= deadline) {
        throw new Error(
          `The store at ${storeAddress(uri)} could not be reached within ${w.startupWaitMs} ms (STORE_STARTUP_WAIT_MS): ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function disconnectStore(): Promise<void> {
  await mongoose.disconnect();
}

/** Creates every model's indexes; idempotent, run by each process at start-up. */
export async function ensureIndexes(): Promise<void> {
  for (const model of Object.values(mongoose.models)) {
    await model.createIndexes();
  }
}

export async function pingStore(): Promise<boolean> {
  try {
    const db = mongoose.connection.db;
    if (!db || mongoose.connection.readyState !== 1) return false;
    await db.admin().command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The store as a composition root holds it: the connection `connectStore` opened. The models
 * stay on mongoose's default connection, so this handle is how a root checks, prepares and
 * closes that connection, not how anything reads or writes.
 */
export interface StoreHandle {
  ping(): Promise<boolean>;
  /** Creates every model's indexes (idempotent). */
  ensureIndexes(): Promise<void>;
  close(): Promise<void>;
}

/** The handle over the process's connection (opened or not: `ping` says). */
export function defaultStore(): StoreHandle {
  return { ping: pingStore, ensureIndexes, close: disconnectStore };
}

/** Connects to the store (waiting as `waits` allow) and returns its handle. */
export async function openStore(uri: string, waits: Partial<StoreWaits> = {}): Promise<StoreHandle> {
  await connectStore(uri, waits);
  return defaultStore();
}

// Kept importable from here: most of core/ reads the duplicate-key test from this module.
export { isDuplicateKeyError } from './duplicateKey';
