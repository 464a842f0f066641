import type { Config } from '../../core/config';
import { readLimitSettings, setCap } from '../../core/limits/limitSettings';
import type { Scope } from '../../core/limits/limitTable';
import { findScopeChain, scopeChain } from '../../core/limits/scopeChain';
import { Problem } from '../../core/problems';
import { openTestStore, type TestStore, fileStores } from '../support/testStore';
import { runAdminWith } from '../support/adminCli';
import { createDeps } from '../../core/deps';
import { createTenant, type TestTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { testLogger } from '../support/capturedLogs';

let testStore: TestStore;

let config: Config;
let mine: TestTenant;
let theirs: TestTenant;

beforeAll(async () => {
  config = testConfig({ READ_CACHE_MS: '0' });
  testStore = await openTestStore(config);
  [mine, theirs] = [await createTenant(), await createTenant()];
});
afterAll(async () => testStore.close());

const scopesOf = (t: TestTenant): Scope[] => [
  { type: 'organization', id: t.orgId },
  { type: 'application', id: t.applicationId },
  { type: 'key_family', id: t.familyId },
  { type: 'key', id: t.keyId },
];

test('each scope of the organization resolves to the organization and every narrower scope down to it, from the stored key', async () => {
  const [org, app, family, key] = scopesOf(mine);
  expect(await scopeChain(fileStores(), mine.orgId, org)).toEqual([org]);
  expect(await scopeChain(fileStores(), mine.orgId, app)).toEqual([org, app]);
  expect(await scopeChain(fileStores(), mine.orgId, family)).toEqual([org, app, family]);
  expect(await scopeChain(fileStores(), mine.orgId, key)).toEqual([org, app, family, key]);
});

test("another organization's scopes, and ids that exist nowhere, are not_found (404), naming the scope", async () => {
  const unknown: Scope[] = [
    { type: 'application', id: 'app_doesnotexist1' },
    { type: 'key_family', id: 'kf_doesnotexist1' },
    { type: 'key', id: 'key_doesnotexist1' },
  ];
  for (const scope of [...scopesOf(theirs), ...unknown]) {
    expect(await findScopeChain(fileStores(), mine.orgId, scope)).toBeUndefined();
    const refusal = scopeChain(fileStores(), mine.orgId, scope);
    await expect(refusal).rejects.toBeInstanceOf(Problem);
    await expect(refusal).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
      detail: `The ${scope.type.replace('_', ' ')} ${scope.id} does not exist in organization ${mine.orgId}.`,
    });
  }
});

test("a limit change on another organization's key is not_found and changes nothing", async () => {
  const foreignKey: Scope = { type: 'key', id: theirs.keyId };
  const before = await readLimitSettings(testStore.stores, mine.orgId);
  await expect(
    setCap(fileStores(), config, { orgId: mine.orgId, operation: 'whoami', scope: foreignKey, requestsPerMinute: 5, now: Date.now }),
  ).rejects.toMatchObject({
    code: 'not_found',
  });
  expect(await readLimitSettings(testStore.stores, mine.orgId)).toEqual(before);
});

test("the operator CLI reports another organization's key as one not-found line with exit 1", async () => {
  const shown = await runAdminWith(createDeps(config, { logger: testLogger(), store: testStore.handle }), [
    'limit',
    'show',
    '--org',
    mine.orgId,
    '--operation',
    'whoami',
    '--key-id',
    theirs.keyId,
  ]);
  expect(shown.status).toBe(1);
  expect(shown.stdout).toBe('');
  expect(shown.stderr).toBe(`error: The key ${theirs.keyId} does not exist in organization ${mine.orgId}.\n`);
});
