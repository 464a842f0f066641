import { createStores } from '../../core/deps';
import { openStore, type StoreHandle } from '../../core/store/connection';
import { INDEX_SET_COLLECTION, INDEX_SET_ID } from '../../core/store/indexSet';
import { testConfig } from '../support/testConfig';

/**
 * A database is prepared once per index set: the first root to open it creates every model's
 * indexes and writes their digest; later roots (replicas, workers, operator commands) that find
 * the same digest create nothing; a database prepared with another set (an older release) gets
 * every index again.
 */
const uri = testConfig().mongodbUri;
const opened: StoreHandle[] = [];

/** A root's store on the test database, with the areas' models bound as every root binds them. */
async function openRoot(): Promise<StoreHandle> {
  const store = await openStore(uri);
  opened.push(store);
  createStores(store.connection);
  return store;
}

/** Counts each model's createIndexes calls while `ensure` runs. */
async function createIndexesCalls(store: StoreHandle, ensure: () => Promise<void>): Promise<number> {
  const spies = Object.values(store.connection.models).map((model) => jest.spyOn(model, 'createIndexes'));
  try {
    await ensure();
    return spies.reduce((n, spy) => n + spy.mock.calls.length, 0);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

async function indexNames(store: StoreHandle, collection: string): Promise<string[]> {
  return (await store.connection.db!.collection(collection).indexes()).map((i) => String(i.name)).sort();
}

async function digestOf(store: StoreHandle): Promise<string | undefined> {
  return (await store.connection.db!.collection<{ _id: string; digest: string }>(INDEX_SET_COLLECTION).findOne({ _id: INDEX_SET_ID }))?.digest;
}

afterAll(async () => {
  for (const store of opened) await store.close();
});

test('the first root creates every index and writes the digest; the next finds it and creates none', async () => {
  const first = await openRoot();
  const models = Object.keys(first.connection.models).length;
  expect(await createIndexesCalls(first, () => first.ensureIndexes())).toBe(models);
  const digest = await digestOf(first);
  expect(digest).toMatch(/^[\w-]{43}$/);
  // The key hashes' unique index is one of those the first root created.
  expect(await indexNames(first, 'api_keys')).toEqual(expect.arrayContaining(['_id_', 'hash_1']));

  const next = await openRoot();
  expect(await createIndexesCalls(next, () => next.ensureIndexes())).toBe(0);
  expect(await digestOf(next)).toBe(digest);
});

test('a database prepared with another index set gets every index again, and the new digest', async () => {
  const store = await openRoot();
  await store.ensureIndexes();
  const current = await digestOf(store);
  const sets = store.connection.db!.collection<{ _id: string; digest: string }>(INDEX_SET_COLLECTION);
  await sets.updateOne({ _id: INDEX_SET_ID }, { $set: { digest: 'an-older-release' } });
  await store.connection.db!.collection('api_keys').dropIndex('hash_1');

  const upgraded = await openRoot();
  expect(await createIndexesCalls(upgraded, () => upgraded.ensureIndexes())).toBe(Object.keys(upgraded.connection.models).length);
  expect(await digestOf(upgraded)).toBe(current);
  expect(await indexNames(upgraded, 'api_keys')).toContain('hash_1');
});
