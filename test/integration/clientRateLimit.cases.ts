import { randomBytes } from 'node:crypto';
import { admitClientRequest, CLIENT_RATE_WINDOW_MS } from '../../core/oauth/clientRateLimit';
import { testConfig } from '../support/testConfig';
import { openTestStore, type TestStore } from '../support/testStore';

// The per-credential minute window of M2M clients, on the shared store.
let testStore: TestStore;
beforeAll(async () => {
  testStore = await openTestStore(testConfig());
});
afterAll(async () => testStore.close());

const minute = (n: number) => new Date(Math.floor(Date.now() / CLIENT_RATE_WINDOW_MS) * CLIENT_RATE_WINDOW_MS + n * CLIENT_RATE_WINDOW_MS + 500);

test('admits exactly the limit in one minute, refuses the next with Retry-After, and admits again in the next minute', async () => {
  const clientId = `mc_${randomBytes(6).toString('hex')}`;
  const verdicts = [];
  for (let i = 0; i < 4; i++) verdicts.push(await admitClientRequest(testStore.stores, clientId, 3, minute(0)));
  expect(verdicts.map((v) => v.ok)).toEqual([true, true, true, false]);
  expect(verdicts[3]).toEqual({ ok: false, retryAfterSeconds: 60 });
  expect(await admitClientRequest(testStore.stores, clientId, 3, minute(1))).toEqual({ ok: true });
});

test('concurrent requests across a minute boundary: one of the earlier minute that reaches the store after the next minute began is counted, not refused', async () => {
  const clientId = `mc_${randomBytes(6).toString('hex')}`;
  expect(await admitClientRequest(testStore.stores, clientId, 1000, minute(1))).toEqual({ ok: true });
  expect(await admitClientRequest(testStore.stores, clientId, 1000, minute(0))).toEqual({ ok: true });
  // Both counted in the newer window: the limit still holds over it.
  expect(await admitClientRequest(testStore.stores, clientId, 2, minute(1))).toEqual({ ok: false, retryAfterSeconds: 60 });
});
