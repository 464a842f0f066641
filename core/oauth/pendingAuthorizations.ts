import { sha256Hex } from '../crypto/hash';
import { newId, randomBase62 } from '../ids';
import type { OAuthStores, CodeRecord, PendingAuthorization } from './store';

/**
 * An authorization request waiting while the person signs in and consents: stored server-side
 * (10 minutes) and named by a random handle the pages carry, so nothing the person could alter
 * (redirect URI, challenge, resource) travels through the forms.
 */
export const PENDING_TTL_MS = 10 * 60_000;
export const CODE_TTL_MS = 60_000;
export const CODE_PREFIX = 'mac_';

export type { CodeRecord, PendingAuthorization } from './store';

export async function savePending(stores: OAuthStores, request: Omit<PendingAuthorization, '_id' | 'expiresAt'>, now: Date): Promise<string> {
  const handle = randomBase62(32);
  await stores.oauth.insertAuthorizationRequest({ _id: sha256Hex(handle), ...request, expiresAt: new Date(now.getTime() + PENDING_TTL_MS) });
  return handle;
}

export async function findPending(stores: OAuthStores, handle: unknown, now: Date): Promise<PendingAuthorization | null> {
  if (typeof handle !== 'string' || !/^[0-9A-Za-z]{32}$/.test(handle)) return null;
  const doc = await stores.oauth.findAuthorizationRequest(sha256Hex(handle));
  return doc && doc.expiresAt > now ? doc : null;
}

/** Ends a pending request; true for exactly one caller. */
export async function finishPending(stores: OAuthStores, handle: string): Promise<boolean> {
  return stores.oauth.deleteAuthorizationRequest(sha256Hex(handle));
}

/** A single-use code (60 s) bound to the client, redirect URI, PKCE challenge, resource, person and grant; stored as its hash. */
export async function issueCode(stores: OAuthStores, pending: PendingAuthorization, userId: string, grantId: string, now: Date): Promise<string> {
  const code = CODE_PREFIX + randomBase62(43);
  await stores.oauth.insertAuthorizationCode({
    _id: sha256Hex(code),
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    scope: pending.scope,
    resource: pending.resource,
    userId,
    grantId,
    chainId: newId('rtc'),
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  return code;
}

export async function findCode(stores: OAuthStores, code: unknown): Promise<CodeRecord | null> {
  if (typeof code !== 'string' || !code.startsWith(CODE_PREFIX) || code.length > 100) return null;
  return stores.oauth.findAuthorizationCode(sha256Hex(code));
}
