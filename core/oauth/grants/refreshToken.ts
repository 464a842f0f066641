import type { Config } from '../../config';
import { sha256Hex } from '../../crypto/hash';
import type { PurposeKeys } from '../../crypto/purposeKeys';
import { openSecret, sealSecret } from '../../crypto/secretBox';
import type { Logger } from '../../observability/logger';
import { findActiveUser } from '../../users/users';
import { mayReplayRotation } from '../codeRules';
import { findRefreshToken } from '../refreshTokens';
import type { SigningKeys } from '../signingKeys';
import { liveChain, revokeChain } from '../tokenChains';
import { OAuthError, checkScope } from '../tokenRequest';
import { issueTokenPair, type TokenResponse } from './tokenPair';
import type { OAuthStores, RefreshTokenRecord } from '../store';
import type { UserStores } from '../../users/store';

/**
 * refresh_token (RFC 6749 6, RFC 9700 4.14.2): one rule for every client. Each use rotates:
 * the used token's rotation is recorded by a unique insert (of two concurrent uses exactly one
 * rotates) and a successor joins the chain. Presenting a used token again revokes the chain —
 * except a retry within the client's retry window, which gets the very pair the first use got
 * (clients lose responses). Public clients (people's MCP clients) have a window of
 * REFRESH_RETRY_WINDOW_MS; confidential M2M clients, which can simply ask for a new token,
 * have none. The pair is kept for the window sealed by the secret box under the configured master
 * (which derives its own key and also opens pairs sealed under SECRETS_ENCRYPTION_KEY_PREVIOUS),
 * never in plaintext.
 */
export const REFRESH_RETRY_WINDOW_MS = 10_000;

const INVALID = 'The refresh token is invalid, expired, revoked or already used.';

export interface RefreshCaller {
  clientId: string;
  retryWindowMs: number;
}

function rotationAad(tokenHash: string): string {
  return `oauth-refresh-rotation:${tokenHash}`;
}

async function refuseReuse(stores: OAuthStores, doc: RefreshTokenRecord, keys: PurposeKeys, now: Date, logger: Logger): Promise<TokenResponse> {
  const rotation = await stores.oauth.findRefreshRotation(doc.hash);
  if (rotation?.sealedPair && rotation.retryUntil > now) {
    const chainAlive = doc.userId ? (await liveChain(stores, doc.chainId)) !== null : !(await stores.oauth.refreshChainHasRevokedToken(doc.chainId));
    if (mayReplayRotation(rotation, chainAlive, now)) return JSON.parse(openSecret(keys, rotation.sealedPair, rotationAad(doc.hash))) as TokenResponse;
  }
  await revokeChain(stores, doc.chainId, now);
  logger.warn({ client_id: doc.clientId }, 'refresh token reuse: chain revoked');
  throw new OAuthError('invalid_grant', INVALID);
}

export async function refreshTokenGrant(
  stores: OAuthStores & UserStores,
  caller: RefreshCaller,
  presented: string,
  params: Map<string, string>,
  config: Config,
  keys: PurposeKeys,
  signingKeys: SigningKeys,
  now: Date,
  logger: Logger,
): Promise<TokenResponse> {
  const doc = await findRefreshToken(stores, presented);
  // Another client's token is refused without being consumed: the presenter cannot be its owner.
  if (!doc || doc.clientId !== caller.clientId) throw new OAuthError('invalid_grant', INVALID);
  if (doc.revokedAt || doc.expiresAt <= now) throw new OAuthError('invalid_grant', INVALID);
  if (doc.userId) {
    const user = await findActiveUser(stores, doc.userId);
    const chain = await liveChain(stores, doc.chainId);
    if (!user || !chain) throw new OAuthError('invalid_grant', INVALID);
  }
  if (params.has('scope')) checkScope(params.get('scope')!, doc.scope.split(' '));
  if (doc.usedAt) return refuseReuse(stores, doc, keys, now, logger);

  const pair = await issueTokenPair(
    stores,
    { clientId: doc.clientId, scope: doc.scope, resource: doc.resource, chainId: doc.chainId, userId: doc.userId ?? undefined, withRefreshToken: true },
    config,
    signingKeys,
    now,
  );
  const sealedPair = caller.retryWindowMs > 0 ? sealSecret(keys, JSON.stringify(pair), rotationAad(doc.hash)) : null;
  const rotated = await stores.oauth.insertRefreshRotation({
    _id: doc.hash,
    chainId: doc.chainId,
    sealedPair,
    retryUntil: new Date(now.getTime() + caller.retryWindowMs),
    createdAt: now,
  });
  if (!rotated) {
    // Another use rotated this token first: the successor minted here must never work.
    await stores.oauth.deleteRefreshTokenByHash(sha256Hex(pair.refresh_token!));
    return refuseReuse(stores, doc, keys, now, logger);
  }
  await stores.oauth.markRefreshTokenUsed(doc._id, now);
  return pair;
}
