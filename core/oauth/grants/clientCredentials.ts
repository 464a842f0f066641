import type { Config } from '../../config';
import type { ClientRecord } from '../clients';
import type { SigningKeys } from '../signingKeys';
import { checkResource, checkScope, requireParam } from '../tokenRequest';
import { issueTokenPair, type TokenResponse } from './tokenPair';
import type { OAuthStores } from '../store';

/** client_credentials (SPEC 4.3): an authenticated M2M client asks for mcp:tools on the tool server, by name. */
export async function clientCredentialsGrant(
  stores: OAuthStores,
  client: ClientRecord,
  params: Map<string, string>,
  resource: string,
  config: Config,
  signingKeys: SigningKeys,
  now: Date,
): Promise<TokenResponse> {
  const scope = checkScope(requireParam(params, 'scope'), client.oauthScopes);
  checkResource(requireParam(params, 'resource'), resource);
  return issueTokenPair(stores, { clientId: client._id, scope, resource, withRefreshToken: true }, config, signingKeys, now);
}
