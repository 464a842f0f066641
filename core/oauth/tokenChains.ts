import type { OAuthStores, ChainRecord } from './store';

/**
 * Token chains of people's clients (see tokenChainSchema in models.ts). Every access token of a
 * chain names it in `sid`, so revoking the chain stops its access tokens on the next tool call
 * as well as its refresh tokens.
 */
export type { ChainRecord } from './store';

/** Starts the chain of a redeemed code; false when it already exists (the code was used before). */
export async function startChain(stores: OAuthStores, chain: { id: string; userId: string; clientId: string; grantId: string }, now: Date): Promise<boolean> {
  return stores.oauth.insertTokenChain({ _id: chain.id, userId: chain.userId, clientId: chain.clientId, grantId: chain.grantId, createdAt: now });
}

export async function liveChain(stores: OAuthStores, chainId: string): Promise<ChainRecord | null> {
  if (typeof chainId !== 'string' || chainId.length > 100) return null;
  const chain = await stores.oauth.findTokenChain(chainId);
  return chain && !chain.revokedAt ? chain : null;
}

/** Revokes one chain: its record (access tokens) and its refresh tokens. */
export async function revokeChain(stores: OAuthStores, chainId: string, now: Date): Promise<void> {
  await stores.oauth.revokeTokenChains({ _id: chainId }, now);
  await stores.oauth.revokeRefreshTokens({ chainId }, now);
}

/** Revokes every chain of a person, or of a person with one client. */
export async function revokeChainsOf(stores: OAuthStores, userId: string, clientId: string | undefined, now: Date): Promise<number> {
  const chains = await stores.oauth.liveTokenChainIds({ userId, clientId });
  await stores.oauth.revokeTokenChains({ userId, clientId }, now);
  await stores.oauth.revokeRefreshTokens({ userId, clientId }, now);
  return chains.length;
}
