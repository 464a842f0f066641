import { LimitSettingsReads, setOrganizationRate } from '../../core/limits/limitSettings';
import { StoreAdmission } from '../../core/limits/requestAdmission';
import type { LimitsStore } from '../../core/limits/store';
import { testLogger } from '../support/capturedLogs';
import { createTenant } from '../support/fixtures';
import { api } from '../support/http';
import { replicasOnOneStore } from '../support/replicasOnOneStore';
import { TestClock } from '../support/testClock';

/**
 * The directory of organizations with limit settings of their own (core/limits/limitSettingsDirectory.ts)
 * across two replicas sharing one store: a new organization at the default limits is admitted
 * without a read of its settings, and a limit set through one replica holds on the other as soon
 * as the change has returned, as it did when every organization's settings were read.
 */

const replicas = replicasOnOneStore();
/** The clock both replicas' admissions read: the requests land in the second the test chooses. */
const clock = new TestClock();

/** A replica whose settings reads note each organization they ask the store for. */
async function replica() {
  const asked: string[] = [];
  const store = replicas.store.stores.limits;
  const limits: LimitsStore = { ...store, limitSettingsOf: (orgIds) => (asked.push(...orgIds), store.limitSettingsOf(orgIds)) };
  const app = await replicas.serve({
    admission: new StoreAdmission(store, clock.now, testLogger()),
    limitSettings: new LimitSettingsReads(limits),
  });
  return { url: app.url, stores: app.deps.stores, asked };
}

const whoami = (url: string, key: string) => api(url, 'GET', '/v1/whoami', { key });

test('a new organization at the default limits is admitted under them without a read of its settings', async () => {
  const a = await replica();
  const tenant = await createTenant();
  clock.nextSecond(100);
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await whoami(a.url, tenant.key));
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(answers[4].headers['ratelimit-policy']).toBe('"baseline";q=25;w=1, "in_flight";q=25;qu="concurrent-requests"');
  expect(a.asked).not.toContain(tenant.orgId);
});

test('a rate lowered through one replica holds on another, which read no settings before, once the change has returned', async () => {
  const [a, b] = [await replica(), await replica()];
  const tenant = await createTenant();
  clock.nextSecond(100);
  expect((await whoami(b.url, tenant.key)).status).toBe(200);
  expect(b.asked).not.toContain(tenant.orgId);

  // Through replica a's stores, as its console's Limits page or the operator CLI writes it.
  await setOrganizationRate(a.stores, replicas.cfg, tenant.orgId, { requestsPerSecond: 2 }, Date.now);

  clock.nextSecond(100);
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await whoami(b.url, tenant.key));
  expect(answers.map((r) => r.status)).toEqual([200, 200, 429]);
  expect(answers[0].headers['ratelimit-policy']).toBe('"baseline";q=2;w=1, "in_flight";q=25;qu="concurrent-requests"');
  expect(b.asked).toContain(tenant.orgId);
});
