import { sha256Hex } from '../crypto/hash';
import { newId, randomBase62 } from '../ids';
import type { OAuthStores, RefreshTokenRecord } from './store';

/**
 * Rotating refresh tokens (SPEC 2.8, 4.3): issuing and finding them. Only hashes are stored.
 * Redemption (rotation, reuse detection, chain revocation) is the refresh_token grant's
 * (grants/refreshToken.ts), the one path the token endpoint runs.
 */
export const REFRESH_TOKEN_PREFIX = 'mrt_';

export type { RefreshTokenRecord } from './store';

export interface Grant {
  clientId: string;
  chainId: string;
  /** The person a browser sign-in chain acts for; absent for M2M chains. */
  userId?: string | null;
  scope: string;
  resource: string;
}

export async function issueRefreshToken(
  stores: OAuthStores,
  grant: Omit<Grant, 'chainId'> & { chainId?: string },
  idleSeconds: number,
  now: Date,
): Promise<string> {
  const token = REFRESH_TOKEN_PREFIX + randomBase62(48);
  await stores.oauth.insertRefreshToken({
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

export async function findRefreshToken(stores: OAuthStores, presented: unknown): Promise<RefreshTokenRecord | null> {
  if (typeof presented !== 'string' || !presented.startsWith(REFRESH_TOKEN_PREFIX) || presented.length > 200) return null;
  return stores.oauth.findRefreshTokenByHash(sha256Hex(presented));
}
