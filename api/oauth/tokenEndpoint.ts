import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { Config } from '../../core/config';
import { issueAccessToken } from '../../core/oauth/accessTokens';
import { admitClientRequest } from '../../core/oauth/clientRateLimit';
import { authenticateClient, MCP_TOOLS_SCOPE, type ClientRecord } from '../../core/oauth/clients';
import { issueRefreshToken, redeemRefreshToken, type Grant } from '../../core/oauth/refreshTokens';
import {
  basicFailure, checkResource, checkScope, clientCredentialsOf, OAuthError, parseTokenForm, requireParam,
} from '../../core/oauth/tokenRequest';
import { logger } from '../../core/observability/logger';

const MAX_FORM_BYTES = 8192;

export function toolsResource(config: Config): string {
  return `${config.mcpUrl}/tools`;
}

function authorizationHeaders(ctx: Context): string[] {
  const raw = ctx.req.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'authorization') values.push(raw[i + 1]);
  return values;
}

async function readForm(ctx: Context): Promise<Map<string, string>> {
  if (ctx.querystring) throw new OAuthError('invalid_request', 'Token requests carry their parameters in the form body, never in the URL.');
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_FORM_BYTES, length: ctx.get('Content-Length') || undefined, encoding: 'utf8' });
  } catch {
    ctx.set('Connection', 'close');
    throw new OAuthError('invalid_request', `The form body could not be read or exceeds ${MAX_FORM_BYTES} bytes.`);
  }
  return parseTokenForm(raw);
}

async function authenticate(ctx: Context, params: Map<string, string>): Promise<ClientRecord> {
  const creds = clientCredentialsOf(authorizationHeaders(ctx), params);
  const client = await authenticateClient(creds.clientId, creds.clientSecret);
  if (!client || !client.tokenEndpointAuthMethods.includes(creds.method)) {
    if (creds.method === 'client_secret_basic') throw basicFailure('Client authentication failed.');
    throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  }
  return client;
}

/**
 * POST {AUTH_URL}/api/oauth/token (SPEC 4.3): client_credentials and refresh_token grants for
 * confidential clients. Order: form → grant type present → client authentication → grant
 * allowed for the client → per-client rate limit → grant-specific checks → tokens.
 */
export function tokenEndpoint(config: Config) {
  const resource = toolsResource(config);
  return async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    try {
      const params = await readForm(ctx);
      const grantType = requireParam(params, 'grant_type');
      if (grantType !== 'client_credentials' && grantType !== 'refresh_token') {
        throw new OAuthError('unsupported_grant_type', 'Supported grant types: client_credentials, refresh_token.');
      }
      const client = await authenticate(ctx, params);
      if (!client.grantTypes.includes(grantType)) throw new OAuthError('unauthorized_client', `This client may not use the ${grantType} grant.`);
      const admitted = await admitClientRequest(client._id, client.rateLimitPerMinute);
      if (!admitted.ok) {
        throw new OAuthError('rate_limited', 'The rate limit of this client credential was reached; retry after Retry-After seconds.', 429, {
          'Retry-After': String(admitted.retryAfterSeconds),
          'Cache-Control': 'private, no-store',
        });
      }
      let grant: Omit<Grant, 'chainId'> & { chainId?: string };
      if (grantType === 'client_credentials') {
        const scope = checkScope(requireParam(params, 'scope'), client.oauthScopes);
        checkResource(requireParam(params, 'resource'), resource);
        grant = { clientId: client._id, scope, resource };
      } else {
        const presented = requireParam(params, 'refresh_token');
        // Carried over; if a client repeats them they must match, checked before the token is consumed.
        if (params.has('scope')) checkScope(params.get('scope')!, [MCP_TOOLS_SCOPE]);
        if (params.has('resource')) checkResource(params.get('resource')!, resource);
        const redeemed = await redeemRefreshToken(presented, client._id);
        if (!redeemed.ok) {
          if (redeemed.reason === 'reused') logger.warn({ client_id: client._id }, 'refresh token reuse: chain revoked');
          throw new OAuthError('invalid_grant', 'The refresh token is invalid, expired, revoked or already used.');
        }
        grant = redeemed.grant;
        if (params.has('scope')) checkScope(params.get('scope')!, grant.scope.split(' '));
      }
      const access = await issueAccessToken({
        issuer: config.authUrl,
        audience: grant.resource,
        clientId: client._id,
        scope: grant.scope,
        ttlSeconds: config.oauth.accessTokenTtlSeconds,
        secretsKey: config.secretsKey,
      });
      const refreshToken = await issueRefreshToken(grant, config.oauth.refreshTokenIdleSeconds);
      ctx.status = 200;
      ctx.body = { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refreshToken, scope: grant.scope };
    } catch (err) {
      let e: OAuthError;
      if (err instanceof OAuthError) e = err;
      else {
        logger.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, request_id: ctx.state.requestId }, 'token endpoint failure');
        e = new OAuthError('server_error', 'The token could not be issued; retry later.', 500);
      }
      ctx.status = e.status;
      for (const [name, value] of Object.entries(e.headers)) ctx.set(name, value);
      ctx.body = { error: e.error, error_description: e.description };
    }
  };
}
