import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { sha256Hex } from '../crypto/hash';
import { newId } from '../ids';
import { challengeHash, newChallenge, passkeyNameOf, PASSKEYS_PER_PERSON, type RelyingParty } from './passkeys';
import type { PasskeyRecord, PasskeyStores } from './passkeysStore';
import { findActiveUser, type UserRecord } from './users';
import type { UserStores } from './store';

/**
 * The two WebAuthn ceremonies through @simplewebauthn/server: adding a passkey (registration) and
 * signing in with one (authentication), each as options handed to the browser, then the browser's
 * answer verified. Passkeys are discoverable credentials with user verification, so a passkey
 * alone signs a person in; the browser's answer names the person (its user handle is the user id).
 * Each answer claims the challenge its options issued, once (passkeys.ts).
 */
const MAX_RESPONSE_LENGTH = 6000;
/**
 * @simplewebauthn/server, with the X.509 and ASN.1 code under it, loaded at the first ceremony:
 * most API processes (and every worker) never run one, and loading it costs each of them
 * half a second of start-up.
 */
const webauthn = () => import('@simplewebauthn/server');
const CEREMONY_TIMEOUT_MS = 120_000;

export const PASSKEY_NOT_ACCEPTED = 'The passkey could not be verified. Try again.';

/** The browser's answer (a PublicKeyCredential as JSON, from a form field), or null when it is not one. */
function credentialJson<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(raw: unknown): T | null {
  if (typeof raw !== 'string' || raw.length > MAX_RESPONSE_LENGTH) return null;
  try {
    const json: unknown = JSON.parse(raw);
    const parsed = json as Record<string, unknown> | null;
    const response = parsed?.response as Record<string, unknown> | undefined;
    if (typeof parsed?.id !== 'string' || parsed.type !== 'public-key' || typeof response !== 'object' || response === null) return null;
    if (typeof response.clientDataJSON !== 'string') return null;
    return json as T;
  } catch {
    return null;
  }
}

function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId, 'utf8'));
}

// ---- adding a passkey ---------------------------------------------------------------------

/** Options for the browser to create a passkey for `user` (none of the person's passkeys again). */
export async function passkeyRegistrationOptions(
  stores: PasskeyStores,
  rp: RelyingParty,
  user: UserRecord,
  now: Date,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await stores.passkeys.passkeysOfUser(user._id);
  const challenge = newChallenge(now);
  await stores.passkeys.insertPasskeyChallenge({
    _id: challenge.hash,
    purpose: 'registration',
    userId: user._id,
    sessionHash: null,
    expiresAt: challenge.expiresAt,
  });
  return (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandleOf(user._id),
    challenge: Buffer.from(challenge.value, 'base64url'),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  });
}

export type PasskeyAdded = { ok: true; passkey: PasskeyRecord } | { ok: false; message: string };

/** Verifies the browser's answer to registration options of `user` and stores the passkey under `typedName`. */
export async function addPasskey(
  stores: PasskeyStores,
  rp: RelyingParty,
  user: UserRecord,
  answer: unknown,
  typedName: unknown,
  now: Date,
): Promise<PasskeyAdded> {
  const existing = await stores.passkeys.countPasskeysOfUser(user._id);
  if (existing >= PASSKEYS_PER_PERSON) return { ok: false, message: `You have ${PASSKEYS_PER_PERSON} passkeys; remove one before adding another.` };
  const name = passkeyNameOf(typedName, existing + 1);
  if (!name.ok) return name;
  const response = credentialJson<RegistrationResponseJSON>(answer);
  if (!response) return { ok: false, message: PASSKEY_NOT_ACCEPTED };
  const { verifyRegistrationResponse } = await webauthn();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: (challenge) =>
        stores.passkeys.claimPasskeyChallenge(challengeHash(challenge), 'registration', { userId: user._id, sessionHash: null }, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch {
    return { ok: false, message: PASSKEY_NOT_ACCEPTED };
  }
  if (!verified.verified) return { ok: false, message: PASSKEY_NOT_ACCEPTED };
  const { credential, credentialBackedUp } = verified.registrationInfo;
  const passkey: PasskeyRecord = {
    _id: newId('pk'),
    userId: user._id,
    orgId: user.orgId,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    signCount: credential.counter,
    transports: credential.transports ?? [],
    name: name.name,
    backedUp: credentialBackedUp,
    createdAt: now,
    lastUsedAt: null,
  };
  try {
    await stores.passkeys.insertPasskey(passkey);
  } catch (err) {
    if ((err as { code?: number }).code === 11000) return { ok: false, message: 'This passkey is registered already.' };
    throw err;
  }
  return { ok: true, passkey };
}

// ---- signing in with a passkey ------------------------------------------------------------

/**
 * Options for the browser to sign in with a passkey. Without `userId` any passkey of this site
 * answers (the browser offers the person's discoverable ones); with it (the second factor after
 * the password), only that person's. The challenge is bound to the browser's session value.
 */
export async function passkeySignInOptions(
  stores: PasskeyStores,
  rp: RelyingParty,
  sessionValue: string,
  now: Date,
  userId: string | null = null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = newChallenge(now);
  await stores.passkeys.insertPasskeyChallenge({
    _id: challenge.hash,
    purpose: 'authentication',
    userId,
    sessionHash: sha256Hex(sessionValue),
    expiresAt: challenge.expiresAt,
  });
  const allowed = userId ? await stores.passkeys.passkeysOfUser(userId) : [];
  return (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    challenge: Buffer.from(challenge.value, 'base64url'),
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: 'required',
    allowCredentials: allowed.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
}

/**
 * Checks one assertion against a stored passkey: the signature by its public key, the origin, the
 * RP ID, user verification, and the signature counter (@simplewebauthn/server refuses a counter
 * that did not grow, unless the authenticator keeps none and both are 0). Answers the new counter.
 */
export async function checkAssertion(
  rp: RelyingParty,
  passkey: Pick<PasskeyRecord, 'credentialId' | 'publicKey' | 'signCount' | 'transports'>,
  response: AuthenticationResponseJSON,
  expectedChallenge: (challenge: string) => Promise<boolean>,
): Promise<{ ok: true; newCount: number } | { ok: false }> {
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.signCount,
        transports: passkey.transports,
      },
    });
    return verified.verified ? { ok: true, newCount: verified.authenticationInfo.newCounter } : { ok: false };
  } catch {
    return { ok: false };
  }
}

export type PasskeySignIn = { ok: true; user: UserRecord; passkey: PasskeyRecord } | { ok: false; message: string };

/**
 * Verifies the browser's answer to sign-in options issued to this session: the passkey must be
 * registered, its person active (and `userId`'s, when the options named one), the assertion valid.
 * Every refusal reads the same.
 */
export async function signInWithPasskey(
  stores: PasskeyStores & UserStores,
  rp: RelyingParty,
  sessionValue: string,
  answer: unknown,
  now: Date,
  userId: string | null = null,
): Promise<PasskeySignIn> {
  const refused = { ok: false as const, message: PASSKEY_NOT_ACCEPTED };
  const response = credentialJson<AuthenticationResponseJSON>(answer);
  if (!response) return refused;
  const passkey = await stores.passkeys.findPasskeyWithCredentialId(response.id);
  if (!passkey || (userId !== null && passkey.userId !== userId)) return refused;
  const handle = response.response.userHandle;
  if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== passkey.userId) return refused;
  const user = await findActiveUser(stores, passkey.userId);
  if (!user) return refused;
  const checked = await checkAssertion(rp, passkey, response, (challenge) =>
    stores.passkeys.claimPasskeyChallenge(challengeHash(challenge), 'authentication', { userId, sessionHash: sha256Hex(sessionValue) }, now),
  );
  if (!checked.ok) return refused;
  if (!(await stores.passkeys.recordPasskeyUse(passkey._id, passkey.signCount, checked.newCount, now))) return refused;
  return { ok: true, user, passkey: { ...passkey, signCount: checked.newCount, lastUsedAt: now } };
}

// ---- the person's passkeys ----------------------------------------------------------------

export async function passkeysOf(stores: PasskeyStores, userId: string): Promise<PasskeyRecord[]> {
  return stores.passkeys.passkeysOfUser(userId);
}

/** How many passkeys the person has: with an authenticator app, what "has a second factor" counts. */
export async function passkeyCountOf(stores: PasskeyStores, userId: string): Promise<number> {
  return stores.passkeys.countPasskeysOfUser(userId);
}

/** Removes one of the person's passkeys; the removed passkey, or null when it was not theirs (or gone already). */
export async function removePasskey(stores: PasskeyStores, userId: string, passkeyId: string): Promise<PasskeyRecord | null> {
  const passkey = await stores.passkeys.findPasskeyOfUser(userId, passkeyId);
  if (!passkey) return null;
  return (await stores.passkeys.deletePasskeyOfUser(userId, passkeyId)) ? passkey : null;
}

export async function findPasskeyOf(stores: PasskeyStores, userId: string, passkeyId: string): Promise<PasskeyRecord | null> {
  return stores.passkeys.findPasskeyOfUser(userId, passkeyId);
}

export type PasskeyRenamed = { ok: true; passkey: PasskeyRecord; before: string } | { ok: false; message: string } | { ok: false; absent: true };

/** Gives one of the person's passkeys the name typed (passkeys.ts rules; empty keeps its number). */
export async function renamePasskey(stores: PasskeyStores, userId: string, passkeyId: string, typedName: unknown): Promise<PasskeyRenamed> {
  const passkey = await stores.passkeys.findPasskeyOfUser(userId, passkeyId);
  if (!passkey) return { ok: false, absent: true };
  const ordinal = (await stores.passkeys.passkeysOfUser(userId)).findIndex((p) => p._id === passkeyId) + 1;
  const name = passkeyNameOf(typedName, ordinal);
  if (!name.ok) return name;
  if (!(await stores.passkeys.renamePasskeyOfUser(userId, passkeyId, name.name))) return { ok: false, absent: true };
  return { ok: true, passkey: { ...passkey, name: name.name }, before: passkey.name };
}
