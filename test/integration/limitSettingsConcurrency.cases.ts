import { LimitChangeError, readLimitSettings, setCap } from '../../core/limits/limitSettings';
import { OPERATIONS } from '../../core/limits/limitTable';
import { createOrganization } from '../../core/tenancy/provisioning';
import { testConfig } from '../support/testConfig';
import type { Config } from '../../core/config';
import { fileStores, openTestStore, type TestStore } from '../support/testStore';

// Limit changes are versioned compare-and-set writes whose first one is an upsert; on the local
// store (FerretDB) concurrent first-time upserts collide on the organization's _id.
let testStore: TestStore;
let config: Config;

beforeAll(async () => {
  config = testConfig({ READ_CACHE_MS: '0' });
  testStore = await openTestStore(config);
});
afterAll(async () => testStore.close());

test.each([2, 10])('%i first-time limit changes at once each succeed or get a clean conflict, and none is lost', async (n) => {
  const org = await createOrganization(fileStores(), `limits race ${n}`, 0);
  const operations = OPERATIONS.slice(0, n);
  const outcomes = await Promise.allSettled(
    operations.map((op, i) =>
      setCap(fileStores(), config, {
        orgId: org.org_id,
        operation: op,
        scope: { type: 'organization', id: org.org_id },
        requestsPerMinute: i + 1,
        now: Date.now,
      }),
    ),
  );

  const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []));
  for (const err of failures) {
    expect(err).toBeInstanceOf(LimitChangeError);
    expect(err.message).toBe('limit settings changed concurrently; try again');
  }
  const succeeded = operations.filter((_, i) => outcomes[i].status === 'fulfilled');
  expect(succeeded.length).toBeGreaterThan(0);

  // Every change reported as made is in the stored settings: no write overwrote another.
  const stored = await readLimitSettings(testStore.stores, org.org_id);
  const caps = new Map(stored.overrides.map((o) => [o.operation, o.requestsPerMinute]));
  for (const op of succeeded) expect(caps.get(op)).toBe(operations.indexOf(op) + 1);
  expect(stored.v).toBe(succeeded.length);
});
