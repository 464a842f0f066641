import type { Config } from '../../core/config';
import { Problem } from '../../core/problems';
import { createUser, setUserRole } from '../../core/users/users';
import { disableUser } from '../../core/oauth/personAccess';
import { createTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { fileStores, openTestStore, type TestStore } from '../support/testStore';

// "An organization always keeps at least one active admin", decided against the store while
// admins demote and disable each other at the same moment.
let testStore: TestStore;
let config: Config;

beforeAll(async () => {
  config = testConfig({ AUTH_URL: 'http://auth.test.invalid' });
  testStore = await openTestStore(config);
});
afterAll(async () => testStore.close());

async function admins(n: number) {
  const tenant = await createTenant();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const made = await createUser(
      fileStores(),
      config,
      {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email: `admin${i}.${tenant.orgId}@example.com`,
        permissions: ['jobs.v1:read'],
        role: 'admin',
      },
      new Date(),
    );
    ids.push(made.user_id);
  }
  return { orgId: tenant.orgId, ids };
}

const activeAdmins = (orgId: string) => testStore.stores.users.countActiveAdmins(orgId);

test.each([1, 2, 3, 4, 5])('round %i: two admins demoting and disabling each other at once leave one active admin', async (round) => {
  const { orgId, ids } = await admins(2);
  const [a, b] = ids;
  const outcomes = await Promise.allSettled(
    round % 2
      ? [setUserRole(fileStores(), a, 'member'), setUserRole(fileStores(), b, 'member')]
      : [setUserRole(fileStores(), a, 'member'), disableUser(fileStores(), b, new Date())],
  );
  const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
  expect(refused).toHaveLength(1);
  expect(refused[0]).toBeInstanceOf(Problem);
  expect((refused[0] as Problem).code).toBe('last_admin');
  expect(await activeAdmins(orgId)).toBe(1);
});

test('five admins all demoted at once: exactly four go through', async () => {
  const { orgId, ids } = await admins(5);
  const outcomes = await Promise.allSettled(ids.map((id) => setUserRole(fileStores(), id, 'member')));
  expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4);
  expect(await activeAdmins(orgId)).toBe(1);
});

test('a person stored before roles existed reads as member and can be promoted, after which the others can step down', async () => {
  const tenant = await createTenant();
  const old = await createUser(
    fileStores(),
    config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: `old.${tenant.orgId}@example.com`,
      permissions: ['jobs.v1:read'],
    },
    new Date(),
  );
  await testStore.stores.users.unsetUserRole(old.user_id);
  const first = await setUserRole(fileStores(), old.user_id, 'admin');
  expect(first).toMatchObject({ role_before: 'member', role: 'admin' });
  await expect(setUserRole(fileStores(), old.user_id, 'member')).rejects.toMatchObject({ code: 'last_admin' });
  await expect(disableUser(fileStores(), old.user_id, new Date())).rejects.toMatchObject({ code: 'last_admin' });
  const second = await createUser(
    fileStores(),
    config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: `new.${tenant.orgId}@example.com`,
      permissions: ['jobs.v1:read'],
      role: 'admin',
    },
    new Date(),
  );
  await disableUser(fileStores(), old.user_id, new Date());
  // A disabled admin is not counted: the remaining one is the last.
  await expect(setUserRole(fileStores(), second.user_id, 'member')).rejects.toMatchObject({ code: 'last_admin' });
  expect(await activeAdmins(tenant.orgId)).toBe(1);
});
