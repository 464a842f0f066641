import type { Config } from '../../core/config';
import { createDeps } from '../../core/deps';
import { KeyReads, revokeApiKey } from '../../core/keys/apiKeys';
import { keepNewKeysReady, readNewKeys } from '../../core/keys/newKeys';
import { sha256Hex } from '../../core/crypto/hash';
import type { KeysStore } from '../../core/keys/store';
import { testLogger } from '../support/capturedLogs';
import { createTenant } from '../support/fixtures';
import { api } from '../support/http';
import { testConfig } from '../support/testConfig';
import { serveApp } from '../support/testApi';
import { openTestStore, type TestStore } from '../support/testStore';

/**
 * New keys held ready on a replica before their first use (core/keys/newKeys.ts): the first
 * request with a key made elsewhere is answered without a read of the key, and a revocation is
 * still honoured on that replica by the time it has returned.
 */

let testStore: TestStore;
let cfg: Config;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  cfg = testConfig();
  testStore = await openTestStore(cfg);
});

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await testStore.close();
});

/** A replica whose key reads note each key hash they ask the store for. */
async function replica() {
  const asked: string[] = [];
  const keys: KeysStore = { ...testStore.stores.keys, keysByHashes: (hashes) => (asked.push(...hashes), testStore.stores.keys.keysByHashes(hashes)) };
  const keyReads = new KeyReads(keys);
  const app = await serveApp(createDeps(cfg, { logger: testLogger(), store: testStore.handle, keyReads }));
  closers.push(app.close);
  return { url: app.url, keyReads, asked };
}

const whoami = (url: string, key: string) => api(url, 'GET', '/v1/whoami', { key });

test("a key made elsewhere is answered on its first request without a read of it, once the replica's read of new keys found it", async () => {
  const b = await replica();
  const tenant = await createTenant();
  expect(await readNewKeys(testStore.stores.keys, b.keyReads, cfg.readCacheMs, Date.now, () => performance.now())).toBeGreaterThanOrEqual(1);
  const res = await whoami(b.url, tenant.key);
  expect(res.status).toBe(200);
  expect(b.asked).not.toContain(sha256Hex(tenant.key));
});

test('a new key held ready and revoked before its first use is refused on that replica as soon as the revocation returns', async () => {
  const b = await replica();
  const tenant = await createTenant();
  // Held ready by one read of new keys, and not read again: only the read cache's bound stands between the revocation and the next request.
  expect(await readNewKeys(testStore.stores.keys, b.keyReads, cfg.readCacheMs, Date.now, () => performance.now())).toBeGreaterThanOrEqual(1);
  await revokeApiKey(testStore.stores, cfg, tenant.keyId, new Date());
  const res = await whoami(b.url, tenant.key);
  expect(res.status).toBe(401);
  expect(b.asked).toContain(sha256Hex(tenant.key));
});

test('a replica keeps reading new keys every half of READ_CACHE_MS until stopped', async () => {
  const b = await replica();
  const kept = keepNewKeysReady(testStore.stores.keys, b.keyReads, cfg.readCacheMs, Date.now);
  let tenant;
  try {
    // Made after the replica started keeping keys ready: found by a later read, not the first.
    tenant = await createTenant();
    await new Promise((resolve) => setTimeout(resolve, cfg.readCacheMs));
  } finally {
    kept.stop();
  }
  expect((await whoami(b.url, tenant.key)).status).toBe(200);
  expect(b.asked).not.toContain(sha256Hex(tenant.key));
});
