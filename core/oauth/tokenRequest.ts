/**
 * Pure parsing rules of the token endpoint (RFC 6749 sections 2.3.1, 3.2, 5.2), kept apart
 * from HTTP so they can be unit-tested.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'rate_limited'
  | 'server_error'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** Form body → parameters; a parameter sent twice is invalid_request (RFC 6749 section 3.2). */
export function parseTokenForm(body: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (params.has(name)) throw new OAuthError('invalid_request', `The parameter "${name}" was sent more than once.`);
    params.set(name, value);
  }
  return params;
}

/** RFC 6749 2.3.1: client id and secret are form-urlencoded before Basic encoding. */
function formDecode(part: string): string {
  return decodeURIComponent(part.replace(/\+/g, '%20'));
}

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

/**
 * Finds the client's credentials: HTTP Basic or the `client_id`/`client_secret` parameters,
 * never both. `authorization` holds every Authorization header received.
 */
export function clientCredentialsOf(authorization: string[], params: Map<string, string>): ClientCredentials {
  if (authorization.length > 1) throw new OAuthError('invalid_request', 'Send at most one Authorization header.');
  const postId = params.get('client_id');
  const postSecret = params.get('client_secret');
  if (authorization.length === 1) {
    const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(authorization[0].trim());
    if (!match) throw new OAuthError('invalid_request', 'The token endpoint accepts HTTP Basic client authentication only in the Authorization header.');
    if (postSecret !== undefined)
      throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw basicFailure('The Basic credentials must be client_id:client_secret.');
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      clientSecret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw basicFailure('The Basic credentials are not correctly encoded.');
    }
    if (postId !== undefined && postId !== clientId)
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header.');
    return { clientId, clientSecret, method: 'client_secret_basic' };
  }
  if (!postId || !postSecret) throw new OAuthError('invalid_client', 'Client authentication is required: client_id and client_secret, or HTTP Basic.', 401);
  return { clientId: postId, clientSecret: postSecret, method: 'client_secret_post' };
}

export function basicFailure(description: string): OAuthError {
  return new OAuthError('invalid_client', description, 401, { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' });
}

export function requireParam(params: Map<string, string>, name: string): string {
  const v = params.get(name);
  if (v === undefined || v === '') throw new OAuthError('invalid_request', `The parameter "${name}" is required.`);
  return v;
}

/** The scope parameter must name exactly the scopes the grant allows (today only mcp:tools). */
export function checkScope(requested: string, allowed: readonly string[]): string {
  const scopes = [...new Set(requested.split(' ').filter(Boolean))];
  if (scopes.length === 0 || scopes.some((s) => !allowed.includes(s))) {
    throw new OAuthError('invalid_scope', `The scope must be ${allowed.join(' ')}.`);
  }
  return scopes.join(' ');
}

/**
 * The resource a token is for, canonical: `expected`, also when named with a trailing slash
 * (Claude Code sends one). The token's `aud` is always the canonical URL.
 */
export function checkResource(requested: string, expected: string): string {
  if (requested !== expected && requested !== `${expected}/`) throw new OAuthError('invalid_target', `The resource must be ${expected}.`);
  return expected;
}
