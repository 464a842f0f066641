import { MCP_TOOLS_SCOPE } from './clients';
import { isValidS256Challenge, PKCE_METHOD } from './pkce';

/**
 * Pure rules of the authorization endpoint after the client and redirect URI are known to be
 * good (RFC 6749 4.1.1 and 4.1.2.1, RFC 7636, RFC 8707, OAuth 2.1). Failures here go back to
 * the client's redirect URI as `error` with `state` and `iss`.
 */
export type AuthorizationErrorCode =
  'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target' | 'access_denied' | 'server_error' | 'unauthorized_client';

export interface AuthorizationParams {
  state: string | null;
  codeChallenge: string;
  scope: string;
  resource: string;
}

export type ParamsVerdict = { ok: true; params: AuthorizationParams } | { ok: false; error: AuthorizationErrorCode; description: string };

/** Scopes a client may ask for besides mcp:tools and that change nothing (refresh tokens are always offered). */
const IGNORED_SCOPES = new Set(['offline_access']);

/** Absent or empty means mcp:tools; anything but mcp:tools (and offline_access) is refused. */
export function resolveScope(requested: string | undefined): string | null {
  const scopes = (requested ?? '')
    .split(' ')
    .filter(Boolean)
    .filter((s) => !IGNORED_SCOPES.has(s));
  if (scopes.some((s) => s !== MCP_TOOLS_SCOPE)) return null;
  return MCP_TOOLS_SCOPE;
}

/** RFC 8707: absent means the tool server; the same URL with a trailing slash names it too; anything else is not ours. */
export function resolveResource(requested: string | undefined, toolsResource: string): string | null {
  if (requested === undefined || requested === '') return toolsResource;
  if (requested === toolsResource || requested === `${toolsResource}/`) return toolsResource;
  return null;
}

const MAX_STATE_LENGTH = 2048;

/** `params` maps each name to every value sent (a repeated parameter is invalid_request). */
export function checkAuthorizationParams(params: Map<string, string[]>, toolsResource: string): ParamsVerdict {
  for (const [name, values] of params) {
    if (values.length > 1)
      return { ok: false, error: name === 'resource' ? 'invalid_target' : 'invalid_request', description: `The parameter "${name}" was sent more than once.` };
  }
  const one = (name: string) => params.get(name)?.[0];
  const state = one('state');
  if (state !== undefined && state.length > MAX_STATE_LENGTH)
    return { ok: false, error: 'invalid_request', description: `state may be at most ${MAX_STATE_LENGTH} characters.` };
  const responseType = one('response_type');
  if (!responseType) return { ok: false, error: 'invalid_request', description: 'response_type is required (code).' };
  if (responseType !== 'code') return { ok: false, error: 'unsupported_response_type', description: 'Only response_type=code is supported.' };
  if (one('request') !== undefined || one('request_uri') !== undefined)
    return { ok: false, error: 'invalid_request', description: 'Request objects are not supported.' };
  const responseMode = one('response_mode');
  if (responseMode !== undefined && responseMode !== 'query')
    return { ok: false, error: 'invalid_request', description: 'Only response_mode=query is supported.' };
  const challenge = one('code_challenge');
  const method = one('code_challenge_method');
  if (!challenge) return { ok: false, error: 'invalid_request', description: 'PKCE is required: send code_challenge with code_challenge_method=S256.' };
  if (method !== PKCE_METHOD) return { ok: false, error: 'invalid_request', description: 'code_challenge_method must be S256 (plain is not supported).' };
  if (!isValidS256Challenge(challenge))
    return { ok: false, error: 'invalid_request', description: 'code_challenge must be the 43-character base64url SHA-256 of the code verifier.' };
  const scope = resolveScope(one('scope'));
  if (!scope) return { ok: false, error: 'invalid_scope', description: `The only scope is ${MCP_TOOLS_SCOPE}.` };
  const resource = resolveResource(one('resource'), toolsResource);
  if (!resource) return { ok: false, error: 'invalid_target', description: `The resource must be ${toolsResource}.` };
  return { ok: true, params: { state: state ?? null, codeChallenge: challenge, scope, resource } };
}

/** The redirect carrying an authorization response: code or error, always with state and iss (RFC 9207). */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  state: string | null,
  result: { code: string } | { error: AuthorizationErrorCode; description?: string },
): string {
  const url = new URL(redirectUri);
  if ('code' in result) url.searchParams.set('code', result.code);
  else {
    url.searchParams.set('error', result.error);
    if (result.description) url.searchParams.set('error_description', result.description);
  }
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}
