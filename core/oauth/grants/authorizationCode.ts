import type { Config } from '../../config';
import type { Logger } from '../../observability/logger';
import { findActiveUser } from '../../users/users';
import { codeRefusal } from '../codeRules';
import { findGrant } from '../consentGrants';
import { findCode } from '../pendingAuthorizations';
import type { PublicClientRecord } from '../publicClients';
import type { SigningKeys } from '../signingKeys';
import { revokeChain, startChain } from '../tokenChains';
import { OAuthError, requireParam } from '../tokenRequest';
import { issueTokenPair, type TokenResponse } from './tokenPair';
import type { OAuthStores } from '../store';
import type { UserStores } from '../../users/store';

const INVALID_CODE = 'The authorization code is invalid, expired or already used, or was issued to another client or redirect URI.';

/**
 * authorization_code (RFC 6749 4.1.3, RFC 7636, OAuth 2.1): the code must be the client's,
 * unexpired (60 s), sent with the exact redirect URI of the authorization request, and the
 * verifier must hash to its S256 challenge. Redemption starts the code's token chain by a
 * unique insert: a second redemption finds the chain and revokes it with everything it issued.
 */
export async function authorizationCodeGrant(
  stores: OAuthStores & UserStores,
  client: PublicClientRecord,
  params: Map<string, string>,
  toolsResource: string,
  config: Config,
  signingKeys: SigningKeys,
  now: Date,
  logger: Logger,
): Promise<TokenResponse> {
  const code = await findCode(stores, requireParam(params, 'code'));
  if (!code) throw new OAuthError('invalid_grant', INVALID_CODE);
  const refusal = codeRefusal(
    code,
    { clientId: client.clientId, redirectUri: params.get('redirect_uri'), codeVerifier: params.get('code_verifier'), resource: params.get('resource') },
    toolsResource,
    now,
  );
  if (refusal === 'resource') throw new OAuthError('invalid_target', `The resource must be ${code.resource}, the one authorized.`);
  if (refusal === 'verifier') throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
  if (refusal === 'expired') {
    // A late second use is still a second use.
    if (await stores.oauth.tokenChainExists(code.chainId)) await revokeChain(stores, code.chainId, now);
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  if (refusal) throw new OAuthError('invalid_grant', INVALID_CODE);
  if (!(await startChain(stores, { id: code.chainId, userId: code.userId, clientId: code.clientId, grantId: code.grantId }, now))) {
    await revokeChain(stores, code.chainId, now);
    logger.warn({ client_id: client.clientId }, 'authorization code reuse: its tokens revoked');
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  const user = await findActiveUser(stores, code.userId);
  const grant = await findGrant(stores, code.userId, code.clientId);
  if (!user || !grant || grant._id !== code.grantId) {
    // Disabled or revoked while the code was in flight.
    await revokeChain(stores, code.chainId, now);
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  return issueTokenPair(
    stores,
    {
      clientId: client.clientId,
      scope: code.scope,
      resource: code.resource,
      chainId: code.chainId,
      userId: code.userId,
      withRefreshToken: client.grantTypes.includes('refresh_token'),
    },
    config,
    signingKeys,
    now,
  );
}
