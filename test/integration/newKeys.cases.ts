import { KeyReads, revokeApiKey } from '../../core/keys/apiKeys';
import { keepNewKeysReady, newKeyReadInterval, readNewKeys } from '../../core/keys/newKeys';
import { sha256Hex } from '../../core/crypto/hash';
import { createTenant } from '../support/fixtures';
import { api } from '../support/http';
import { replicasOnOneStore } from '../support/replicasOnOneStore';

/**
 * New keys held ready on a replica before their first use (core/keys/newKeys.ts): the first
 * request with a key made elsewhere is answered without a read of the key, and a revocation is
 * still honoured on that replica by the time it has returned.
 */

const replicas = replicasOnOneStore();

/** A replica whose key reads note each key hash they ask the store for. */
async function replica() {
  const asked: string[] = [];
  const store = replicas.store.stores.keys;
  const keyReads = new KeyReads({ ...store, keysByHashes: (hashes) => (asked.push(...hashes), store.keysByHashes(hashes)) });
  const app = await replicas.serve({ keyReads });
  return { url: app.url, keyReads, asked };
}

const whoami = (url: string, key: string) => api(url, 'GET', '/v1/whoami', { key });

test("a key made elsewhere is answered on its first request without a read of it, once the replica's read of new keys found it", async () => {
  const b = await replica();
  const tenant = await createTenant();
  expect(await readNewKeys(replicas.store.stores.keys, b.keyReads, replicas.cfg.readCacheMs, Date.now, () => performance.now())).toBeGreaterThanOrEqual(1);
  const res = await whoami(b.url, tenant.key);
  expect(res.status).toBe(200);
  expect(b.asked).not.toContain(sha256Hex(tenant.key));
});

test('a new key held ready and revoked before its first use is refused on that replica as soon as the revocation returns', async () => {
  const b = await replica();
  const tenant = await createTenant();
  // Held ready by one read of new keys, and not read again: only the read cache's bound stands between the revocation and the next request.
  expect(await readNewKeys(replicas.store.stores.keys, b.keyReads, replicas.cfg.readCacheMs, Date.now, () => performance.now())).toBeGreaterThanOrEqual(1);
  await revokeApiKey(replicas.store.stores, replicas.cfg, tenant.keyId, new Date());
  const res = await whoami(b.url, tenant.key);
  expect(res.status).toBe(401);
  expect(b.asked).toContain(sha256Hex(tenant.key));
});

test('a replica keeps reading new keys every half of READ_CACHE_MS until stopped', async () => {
  const b = await replica();
  // A READ_CACHE_MS of a second (the default): reads every 500 ms, each holding its keys for a second.
  const ttlMs = 1000;
  const kept = keepNewKeysReady(replicas.store.stores.keys, b.keyReads, ttlMs, Date.now);
  let tenant;
  try {
    // Made after the replica started keeping keys ready: found by a later read, not the first.
    tenant = await createTenant();
    await new Promise((resolve) => setTimeout(resolve, newKeyReadInterval(ttlMs) + 100));
  } finally {
    kept.stop();
  }
  expect((await whoami(b.url, tenant.key)).status).toBe(200);
  expect(b.asked).not.toContain(sha256Hex(tenant.key));
});
