import mongoose from 'mongoose';

/**
 * One MongoDB connection per process (the default mongoose connection). Works against real
 * MongoDB and against FerretDB 1.x: no transactions, no TTL or partial indexes, no $text.
 */
export async function connectStore(uri: string): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  // Indexes are created explicitly by ensureIndexes(): autoIndex would race across replicas
  // and hide index errors in background promises.
  mongoose.set('autoIndex', false);
  await mongoose.connect(uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 50 });
  return mongoose;
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
