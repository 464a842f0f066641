import { sha256Hex } from '../crypto/hash';
import { newId, randomBase62 } from '../ids';
import { RefreshToken } from './models';
import { revokeChain as revokeTokenChain } from './tokenChains';

/**
 * Rotating refresh tokens (SPEC 2.8, 4.3). Each use consumes the token atomically and issues
 * a successor in the same chain; a second use of a consumed token means it was copied, so the
 * whole chain is revoked (RFC 9700 section 4.14.2). Only hashes are stored.
 */
export const REFRESH_TOKEN_PREFIX = 'mrt_';

export interface RefreshTokenDoc {
  _id: string;
  hash: string;
  clientId: string;
  chainId: string;
  userId?: string | null;
  scope: string;
  resource: string;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export interface Grant {
  clientId: string;
  chainId: string;
  /** The person a browser sign-in chain acts for; absent for M2M chains. */
  userId?: string | null;
  scope: string;
  resource: string;
}

export async function issueRefreshToken(grant: Omit<Grant, 'chainId'> & { chainId?: string }, idleSeconds: number, now = new Date()): Promise<string> {
  const token = REFRESH_TOKEN_PREFIX + randomBase62(48);
  await RefreshToken.create({
    _id: newId('rt'),
    hash: sha256Hex(token),
    clientId: grant.clientId,
    chainId: grant.chainId ?? newId('rtc'),
    userId: grant.userId ?? null,
    scope: grant.scope,
    resource: grant.resource,
    createdAt: now,
    expiresAt: new Date(now.getTime() + idleSeconds * 1000),
  });
  return token;
}

export type RedeemVerdict = { ok: true; grant: Grant } | { ok: false; reason: 'unknown' | 'other_client' | 'expired' | 'revoked' | 'reused' };

/**
 * Consumes a refresh token presented by `clientId`. A token of another client is refused
 * without being consumed (the presenter cannot be its owner).
 */
export async function redeemRefreshToken(presented: string, clientId: string, now = new Date()): Promise<RedeemVerdict> {
  if (typeof presented !== 'string' || !presented.startsWith(REFRESH_TOKEN_PREFIX) || presented.length > 200) return { ok: false, reason: 'unknown' };
  const hash = sha256Hex(presented);
  const doc = await RefreshToken.findOne({ hash }).lean<RefreshTokenDoc>();
  if (!doc) return { ok: false, reason: 'unknown' };
  if (doc.clientId !== clientId) return { ok: false, reason: 'other_client' };
  if (doc.usedAt) {
    await revokeChain(doc.chainId, now);
    return { ok: false, reason: 'reused' };
  }
  if (doc.revokedAt) return { ok: false, reason: 'revoked' };
  if (doc.expiresAt <= now) return { ok: false, reason: 'expired' };
  // The conditional update is the race guard: of two concurrent uses exactly one wins.
  const consumed = await RefreshToken.findOneAndUpdate(
    { _id: doc._id, usedAt: null, revokedAt: null },
    { $set: { usedAt: now } },
    { returnDocument: 'after' },
  ).lean<RefreshTokenDoc>();
  if (!consumed) {
    await revokeChain(doc.chainId, now);
    return { ok: false, reason: 'reused' };
  }
  return { ok: true, grant: { clientId: doc.clientId, chainId: doc.chainId, userId: doc.userId ?? null, scope: doc.scope, resource: doc.resource } };
}

export async function findRefreshToken(presented: unknown): Promise<RefreshTokenDoc | null> {
  if (typeof presented !== 'string' || !presented.startsWith(REFRESH_TOKEN_PREFIX) || presented.length > 200) return null;
  return RefreshToken.findOne({ hash: sha256Hex(presented) }).lean<RefreshTokenDoc>();
}

export async function revokeChain(chainId: string, now = new Date()): Promise<void> {
  await revokeTokenChain(chainId, now);
}
