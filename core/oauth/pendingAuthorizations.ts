import { sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';
import { AuthorizationCode, AuthorizationRequest } from './models';
import { newId } from '../ids';

/**
 * An authorization request waiting while the person signs in and consents: stored server-side
 * (10 minutes) and named by a random handle the pages carry, so nothing the person could alter
 * (redirect URI, challenge, resource) travels through the forms.
 */
export const PENDING_TTL_MS = 10 * 60_000;
export const CODE_TTL_MS = 60_000;
export const CODE_PREFIX = 'mac_';

export interface PendingAuthorization {
  _id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scope: string;
  resource: string;
  expiresAt: Date;
}

export async function savePending(request: Omit<PendingAuthorization, '_id' | 'expiresAt'>, now = new Date()): Promise<string> {
  const handle = randomBase62(32);
  await AuthorizationRequest.create({ _id: sha256Hex(handle), ...request, expiresAt: new Date(now.getTime() + PENDING_TTL_MS) });
  return handle;
}

export async function findPending(handle: unknown, now = new Date()): Promise<PendingAuthorization | null> {
  if (typeof handle !== 'string' || !/^[0-9A-Za-z]{32}$/.test(handle)) return null;
  const doc = await AuthorizationRequest.findById(sha256Hex(handle)).lean<PendingAuthorization>();
  return doc && doc.expiresAt > now ? doc : null;
}

/** Ends a pending request; true for exactly one caller (deletes hold on FerretDB too). */
export async function finishPending(handle: string): Promise<boolean> {
  const res = await AuthorizationRequest.deleteOne({ _id: sha256Hex(handle) });
  return res.deletedCount === 1;
}

export interface CodeRecord {
  _id: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
  userId: string;
  grantId: string;
  chainId: string;
  expiresAt: Date;
}

/** A single-use code (60 s) bound to the client, redirect URI, PKCE challenge, resource, person and grant; stored as its hash. */
export async function issueCode(pending: PendingAuthorization, userId: string, grantId: string, now = new Date()): Promise<string> {
  const code = CODE_PREFIX + randomBase62(43);
  await AuthorizationCode.create({
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

export async function findCode(code: unknown): Promise<CodeRecord | null> {
  if (typeof code !== 'string' || !code.startsWith(CODE_PREFIX) || code.length > 100) return null;
  return AuthorizationCode.findById(sha256Hex(code)).lean<CodeRecord>();
}
