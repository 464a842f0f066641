import type { Config } from '../../config';
import { issueAccessToken } from '../accessTokens';
import { issueRefreshToken } from '../refreshTokens';
import type { SigningKeys } from '../signingKeys';
import type { OAuthStores } from '../store';

/** The token response body of every grant (RFC 6749 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export interface PairInput {
  clientId: string;
  scope: string;
  resource: string;
  /** The chain the refresh token joins; a new one when absent. */
  chainId?: string;
  /** For a person's chain: the user (the access token's subject, `sid` = the chain). */
  userId?: string;
  withRefreshToken: boolean;
}

/** One access token (RFC 9068) and, when the client may refresh, the next refresh token of the chain. */
export async function issueTokenPair(
  stores: OAuthStores,
  input: PairInput,
  config: Config,
  signingKeys: SigningKeys,
  now: Date,
): Promise<TokenResponse & { refreshTokenId?: string }> {
  const access = await issueAccessToken({
    issuer: config.authUrl,
    audience: input.resource,
    clientId: input.clientId,
    scope: input.scope,
    ttlSeconds: config.oauth.accessTokenTtlSeconds,
    signingKeys,
    now,
    ...(input.userId && input.chainId ? { user: { userId: input.userId, chainId: input.chainId } } : {}),
  });
  const body: TokenResponse = { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, scope: input.scope };
  if (input.withRefreshToken) {
    body.refresh_token = await issueRefreshToken(
      stores,
      { clientId: input.clientId, chainId: input.chainId, userId: input.userId ?? null, scope: input.scope, resource: input.resource },
      config.oauth.refreshTokenIdleSeconds,
      now,
    );
  }
  return body;
}
