import type { Config } from '../../core/config';
import { MCP_TOOLS_SCOPE } from '../../core/oauth/clients';
import { PKCE_METHOD } from '../../core/oauth/pkce';
import { SIGNING_ALG } from '../../core/oauth/signingKeys';
import { AUTHORIZE_PATH, REGISTER_PATH } from './pagePaths';
import { toolsResource } from './tokenEndpoint';

export const TOKEN_PATH = '/api/oauth/token';
export const JWKS_PATH = '/api/oauth/jwks';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
/** OpenID Connect Discovery location: MCP clients try it after RFC 8414's (MCP authorization, 2025-11-25). */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
/** RFC 9728 3.1: the well-known segment inserted before the resource's path (`/tools`). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/tools';
/**
 * The same document at the root location: clients that drop the resource's path (or reach the
 * tool server by its origin) look here, and a 404 sends some of them guessing `{origin}/authorize`.
 */
export const PROTECTED_RESOURCE_METADATA_ROOT_PATH = '/.well-known/oauth-protected-resource';

/**
 * RFC 8414 metadata: machine clients (client_credentials with a secret) and people's clients
 * (authorization code with PKCE S256, public, registered by metadata document or RFC 7591).
 */
export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  return {
    issuer: config.authUrl,
    authorization_endpoint: `${config.authUrl}${AUTHORIZE_PATH}`,
    token_endpoint: `${config.authUrl}${TOKEN_PATH}`,
    registration_endpoint: `${config.authUrl}${REGISTER_PATH}`,
    jwks_uri: `${config.authUrl}${JWKS_PATH}`,
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: [PKCE_METHOD],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    scopes_supported: [MCP_TOOLS_SCOPE],
    protected_resources: [toolsResource(config)],
  };
}

/** RFC 9728 metadata of the tool server, at the well-known path derived from `${MCP_URL}/tools`. */
export function protectedResourceMetadata(config: Config): Record<string, unknown> {
  return {
    resource: toolsResource(config),
    authorization_servers: [config.authUrl],
    scopes_supported: [MCP_TOOLS_SCOPE],
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: [SIGNING_ALG],
    resource_name: 'Talent platform tool server (MCP)',
  };
}

export function protectedResourceMetadataUrl(config: Config): string {
  return `${config.mcpUrl}${PROTECTED_RESOURCE_METADATA_PATH}`;
}
