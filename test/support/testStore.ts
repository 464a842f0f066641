import type { Config } from '../../core/config';
import { createStores, type Stores } from '../../core/deps';
import { openStore, type StoreHandle } from '../../core/store/connection';

export interface TestStore {
  /** The areas' stores on the file's own connection. */
  stores: Stores;
  /** The connection's handle, for `createDeps(config, { store })`. */
  handle: StoreHandle;
  close: () => Promise<void>;
}

/**
 * The store of a test file that starts no API: a connection of its own with the areas' stores
 * on it (and the default connection the areas not yet moved use), indexes created.
 */
export async function openTestStore(config: Config): Promise<TestStore> {
  const store = await openStore(config.mongodbUri, config.store);
  const stores = createStores(store.connection);
  await store.ensureIndexes();
  const forget = rememberFileStores(stores);
  return {
    stores,
    handle: store,
    close: async () => {
      forget();
      await store.close();
    },
  };
}

/**
 * The stores of the roots this test file opened and has not closed yet (its test API's, its
 * `openTestStore`'s), newest last: the helpers every file shares (`createTenant` and the like)
 * write through the newest, which is on the file's own database. Jest loads this module once
 * per file, so no file sees another's.
 */
const openRoots: Stores[] = [];

/** Notes a root's stores as the file's; the returned function forgets them when the root closes. */
export function rememberFileStores(stores: Stores): () => void {
  openRoots.push(stores);
  return () => {
    const at = openRoots.lastIndexOf(stores);
    if (at >= 0) openRoots.splice(at, 1);
  };
}

/** The stores of the newest root this file opened and still has open. */
export function fileStores(): Stores {
  const stores = openRoots[openRoots.length - 1];
  if (!stores) throw new Error('this test file has no store open: start its API (startTestApi) or open one (openTestStore) first');
  return stores;
}
