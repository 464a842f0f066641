import mongoose, { type Connection } from 'mongoose';
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
 * Opens a connection of the root's own (`mongoose.createConnection`), waiting as `waits` allow
 * like `connectStore`. The areas' stores are built on it (core/deps.ts `createStores`), so two
 * apps in one process can each have their own database.
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
 * it. Areas not yet built on it (test/unit/moduleState.test.ts, NOT_YET_ON_A_ROOT_CONNECTION)
 * still use mongoose's default connection, which `openStore` connects beside it.
 */
export interface StoreHandle {
  /** The root's own connection; unopened in a `createDeps` that was given no store. */
  readonly connection: Connection;
  ping(): Promise<boolean>;
  /** Creates every model's indexes (idempotent). */
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

async function ensureIndexesOf(connection: Connection): Promise<void> {
  for (const model of Object.values(connection.models)) {
    await model.createIndexes();
  }
}

/**
 * A handle over `connection`. With `withDefault`, it also pings, prepares and closes the
 * default connection the areas not yet moved use.
 */
export function storeOn(connection: Connection, { withDefault = false } = {}): StoreHandle {
  return {
    connection,
    ping: async () => (await pingConnection(connection)) && (!withDefault || (await pingStore())),
    ensureIndexes: async () => {
      await ensureIndexesOf(connection);
      if (withDefault) await ensureIndexes();
    },
    close: async () => {
      await connection.close();
      if (withDefault) await disconnectStore();
    },
  };
}

/**
 * A store no root opened (`createDeps` without one): calls on its areas wait for a connection
 * that never comes and fail after the store's buffer time.
 */
export function unopenedStore(): StoreHandle {
  return storeOn(mongoose.createConnection());
}

/**
 * Connects the root's own connection and the default one (waiting as `waits` allow) and returns
 * their handle; `ownConnectionOnly` leaves the default connection alone (a second app in a process
 * on a database of its own, whose areas not yet moved share the first app's).
 */
export async function openStore(uri: string, waits: Partial<StoreWaits> = {}, { ownConnectionOnly = false } = {}): Promise<StoreHandle> {
  const connection = await openConnection(uri, waits);
  if (ownConnectionOnly) return storeOn(connection);
  await connectStore(uri, waits);
  return storeOn(connection, { withDefault: true });
}

// Kept importable from here: most of core/ reads the duplicate-key test from this module.
export { isDuplicateKeyError } from './duplicateKey';
