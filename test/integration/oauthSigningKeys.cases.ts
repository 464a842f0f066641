import { SIGNING_ALG, SigningKeys } from '../../core/oauth/signingKeys';
import { testConfig } from '../support/testConfig';
import { openTestStore, type TestStore } from '../support/testStore';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

/**
 * Each app holds its own view of the signing keys (built by the composition root): the app
 * that rotates signs with the new key at once, another app (a replica) keeps the key it loaded
 * until its cache time has passed on its own clock.
 */
const config = testConfig();

let testStore: TestStore;
beforeAll(async () => {
  testStore = await openTestStore(config);
});
afterAll(async () => testStore.close());

test('a replica signs with the key it loaded until 30 s pass on its clock; then with the key another replica rotated to', async () => {
  let t = 1_000_000;
  const replica = new SigningKeys(testStore.stores, config, purposeKeysOf(config), { clock: () => t });
  const rotating = new SigningKeys(testStore.stores, config, purposeKeysOf(config));
  const loaded = await replica.signer(new Date());
  expect(loaded.alg).toBe(SIGNING_ALG);

  const { kid } = await rotating.rotate(new Date());
  expect(kid).not.toBe(loaded.kid);
  expect((await rotating.signer(new Date())).kid).toBe(kid);
  expect((await replica.signer(new Date())).kid).toBe(loaded.kid);
  t += 29_999;
  expect((await replica.signer(new Date())).kid).toBe(loaded.kid);
  t += 1;
  // Another test file may rotate too: whatever the newest key is now, it is no longer the one loaded.
  expect((await replica.signer(new Date())).kid).not.toBe(loaded.kid);
  // The superseded key still verifies (a token lifetime), and both apps publish it.
  expect(await replica.verificationKey(loaded.kid, new Date())).not.toBeNull();
  expect((await rotating.publishedJwks(new Date())).keys.map((k) => k.kid)).toEqual(expect.arrayContaining([kid, loaded.kid]));
});

test('an unknown kid verifies nothing', async () => {
  expect(await new SigningKeys(testStore.stores, config, purposeKeysOf(config)).verificationKey('jwk_unknown0000000000000', new Date())).toBeNull();
});
