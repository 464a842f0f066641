import type { Config } from '../../core/config';
import { purgeExpiredSignInRecords } from '../../core/oauth/expiredSignInRecords';
import {
  addPasskey,
  passkeyCountOf,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  removePasskey,
  signInWithPasskey,
} from '../../core/users/passkeyCeremonies';
import { CHALLENGE_TTL_MS, relyingPartyOf } from '../../core/users/passkeys';
import { findActiveUser, createUser, type UserRecord } from '../../core/users/users';
import { disableUser } from '../../core/oauth/personAccess';
import { createTenant, type TestTenant } from '../support/fixtures';
import { SoftAuthenticator } from '../support/softAuthenticator';
import { TestClock } from '../support/testClock';
import { testConfig } from '../support/testConfig';
import { fileStores, openTestStore, type TestStore } from '../support/testStore';

/**
 * The passkey ceremonies against the real store (FerretDB): a challenge answers once, only for
 * what it was issued to (the person adding, the browser signing in), and not after five minutes
 * on the injected clock; a passkey signs its own person in, and no one once removed or disabled.
 */
let testStore: TestStore;
let config: Config;
let tenant: TestTenant;
const rp = relyingPartyOf('http://localhost:8080');
const clock = new TestClock(Date.parse('2026-11-28T10:00:00Z'));
const now = () => new Date(clock.now());
const SESSION = 'a'.repeat(43);
const OTHER_SESSION = 'b'.repeat(43);

beforeAll(async () => {
  config = testConfig();
  testStore = await openTestStore(config);
  tenant = await createTenant();
});
afterAll(async () => testStore.close());

async function person(): Promise<UserRecord> {
  const made = await createUser(
    fileStores(),
    config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: `pk${clock.now()}${Math.random().toString(36).slice(2)}@example.com`,
      permissions: ['candidates.search'],
    },
    new Date(),
  );
  return (await findActiveUser(fileStores(), made.user_id))!;
}

async function enrolled(user: UserRecord, name = 'Laptop'): Promise<SoftAuthenticator> {
  const authenticator = new SoftAuthenticator();
  const options = await passkeyRegistrationOptions(fileStores(), rp, user, now());
  const added = await addPasskey(fileStores(), rp, user, JSON.stringify(authenticator.register(options, rp.origin)), name, now());
  expect(added).toEqual({ ok: true, passkey: expect.objectContaining({ name, userId: user._id, signCount: 0 }) });
  return authenticator;
}

test('a registration challenge answers once, only for its person, and not after it expired', async () => {
  const user = await person();
  const other = await person();
  const authenticator = new SoftAuthenticator();
  const options = await passkeyRegistrationOptions(fileStores(), rp, user, now());
  const answer = JSON.stringify(authenticator.register(options, rp.origin));
  // Another person cannot answer it.
  expect(await addPasskey(fileStores(), rp, other, answer, '', now())).toEqual({ ok: false, message: expect.any(String) });
  expect(await addPasskey(fileStores(), rp, user, answer, '', now())).toEqual({ ok: true, passkey: expect.objectContaining({ name: 'Passkey 1' }) });
  // Used once.
  expect(await addPasskey(fileStores(), rp, user, JSON.stringify(new SoftAuthenticator().register(options, rp.origin)), '', now())).toMatchObject({
    ok: false,
  });
  // Expired.
  const late = await passkeyRegistrationOptions(fileStores(), rp, user, now());
  clock.advance(CHALLENGE_TTL_MS);
  expect(await addPasskey(fileStores(), rp, user, JSON.stringify(new SoftAuthenticator().register(late, rp.origin)), '', now())).toMatchObject({ ok: false });
  expect(await passkeyCountOf(fileStores(), user._id)).toBe(1);
  expect(await passkeyCountOf(fileStores(), other._id)).toBe(0);
});

test('a sign-in challenge answers once, only in the browser it was issued to, and the passkey names its person', async () => {
  const user = await person();
  const authenticator = await enrolled(user);
  const options = await passkeySignInOptions(fileStores(), rp, SESSION, now());
  expect(options.allowCredentials ?? []).toEqual([]);
  authenticator.signCount = 1;
  const answer = JSON.stringify(authenticator.assert(options.challenge, rp.origin));
  expect(await signInWithPasskey(fileStores(), rp, OTHER_SESSION, answer, now())).toMatchObject({ ok: false });
  const signedIn = await signInWithPasskey(fileStores(), rp, SESSION, answer, now());
  expect(signedIn).toMatchObject({ ok: true, user: { _id: user._id }, passkey: { signCount: 1, lastUsedAt: now() } });
  expect(await signInWithPasskey(fileStores(), rp, SESSION, answer, now())).toMatchObject({ ok: false });

  const expiring = await passkeySignInOptions(fileStores(), rp, SESSION, now());
  authenticator.signCount = 2;
  const lateAnswer = JSON.stringify(authenticator.assert(expiring.challenge, rp.origin));
  clock.advance(CHALLENGE_TTL_MS);
  expect(await signInWithPasskey(fileStores(), rp, SESSION, lateAnswer, now())).toMatchObject({ ok: false });
});

test("after the password, only that person's passkeys answer; a removed passkey or a disabled person signs no one in", async () => {
  const user = await person();
  const other = await person();
  const mine = await enrolled(user);
  const theirs = await enrolled(other);

  const options = await passkeySignInOptions(fileStores(), rp, SESSION, now(), user._id);
  expect(options.allowCredentials?.map((c) => c.id)).toEqual([mine.id]);
  theirs.signCount = 1;
  expect(await signInWithPasskey(fileStores(), rp, SESSION, JSON.stringify(theirs.assert(options.challenge, rp.origin)), now(), user._id)).toMatchObject({
    ok: false,
  });

  mine.signCount = 1;
  const signedIn = await signInWithPasskey(
    fileStores(),
    rp,
    SESSION,
    JSON.stringify(mine.assert((await passkeySignInOptions(fileStores(), rp, SESSION, now())).challenge, rp.origin)),
    now(),
  );
  if (!signedIn.ok) throw new Error('the passkey did not sign its person in');
  // Another person's passkey is not found for them; a passkey is removed once.
  expect(await removePasskey(fileStores(), other._id, signedIn.passkey._id)).toBeNull();
  expect(await removePasskey(fileStores(), user._id, signedIn.passkey._id)).toMatchObject({ name: 'Laptop' });
  expect(await removePasskey(fileStores(), user._id, signedIn.passkey._id)).toBeNull();
  mine.signCount = 2;
  expect(
    await signInWithPasskey(
      fileStores(),
      rp,
      SESSION,
      JSON.stringify(mine.assert((await passkeySignInOptions(fileStores(), rp, SESSION, now())).challenge, rp.origin)),
      now(),
    ),
  ).toMatchObject({
    ok: false,
  });

  await disableUser(fileStores(), other._id, new Date());
  theirs.signCount = 2;
  expect(
    await signInWithPasskey(
      fileStores(),
      rp,
      SESSION,
      JSON.stringify(theirs.assert((await passkeySignInOptions(fileStores(), rp, SESSION, now())).challenge, rp.origin)),
      now(),
    ),
  ).toMatchObject({
    ok: false,
  });
});

test('the store-maintenance purge reclaims expired challenges and keeps live ones', async () => {
  const challenges = testStore.handle.connection.collection('passkey_challenges');
  const user = await person();
  await passkeyRegistrationOptions(fileStores(), rp, user, now());
  clock.advance(CHALLENGE_TTL_MS);
  const live = await passkeyRegistrationOptions(fileStores(), rp, user, now());
  expect(await challenges.countDocuments({ userId: user._id })).toBe(2);
  await purgeExpiredSignInRecords(fileStores(), now());
  expect(await challenges.countDocuments({ userId: user._id })).toBe(1);
  // The live one still answers.
  expect(await addPasskey(fileStores(), rp, user, JSON.stringify(new SoftAuthenticator().register(live, rp.origin)), 'Kept', now())).toMatchObject({
    ok: true,
  });
});
