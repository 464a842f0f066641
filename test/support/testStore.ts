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
  return { stores, handle: store, close: () => store.close() };
}
