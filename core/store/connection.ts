import mongoose from 'mongoose';
import { isStoreUnavailable, STORE_WAIT_MS } from './storeUnavailable';

/**
 * One MongoDB connection per process (the default mongoose connection). Works against real
 * MongoDB and against FerretDB 1.x: no transactions, no TTL or partial indexes, no $text.
 */
export async function connectStore(uri: string, opts: { startupWaitMs?: number } = {}): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  // Indexes are created explicitly by ensureIndexes(): autoIndex would race across replicas
  // and hide index errors in background promises.
  mongoose.set('autoIndex', false);
  // While the store is down a request waits at most STORE_WAIT_MS (server selection, or
  // mongoose's buffer while it reconnects) and is then answered 503 dependency_unavailable
  // (api/middleware/problemDocuments), never a hang or a 500.
  mongoose.set('bufferTimeoutMS', STORE_WAIT_MS);
  // At start-up the store may still be coming up: keep trying for a while.
  const deadline = Date.now() + (opts.startupWaitMs ?? 10_000);
  for (;;) {
    try {
      await mongoose.connect(uri, { serverSelectionTimeoutMS: STORE_WAIT_MS, maxPoolSize: 50 });
      return mongoose;
    } catch (err) {
      if (Date.now() >= deadline || !isStoreUnavailable(err)) throw err;
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

// Kept importable from here: most of core/ reads the duplicate-key test from this module.
export { isDuplicateKeyError } from './duplicateKey';
