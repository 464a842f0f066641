import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import type { Stores } from '../../core/deps';
import { resolveResource } from '../../core/oauth/authorizationRules';
import { admitClientRequest } from '../../core/oauth/clientRateLimit';
import { authenticateClient, findActiveClient, MCP_TOOLS_SCOPE, type ClientRecord } from '../../core/oauth/clients';
import { authorizationCodeGrant } from '../../core/oauth/grants/authorizationCode';
import { clientCredentialsGrant } from '../../core/oauth/grants/clientCredentials';
import { REFRESH_RETRY_WINDOW_MS, refreshTokenGrant } from '../../core/oauth/grants/refreshToken';
import type { TokenResponse } from '../../core/oauth/grants/tokenPair';
import { isPublicClientRevoked, type LookupCaller, type PublicClients } from '../../core/oauth/publicClients';
import type { SigningKeys } from '../../core/oauth/signingKeys';
import { basicFailure, checkResource, checkScope, clientCredentialsOf, OAuthError, parseTokenForm, requireParam } from '../../core/oauth/tokenRequest';
import type { Logger } from '../../core/observability/logger';
import { requestLogger } from '../requestLogger';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../../core/store/storeUnavailable';

const MAX_FORM_BYTES = 8192;

/** What the token endpoint works with: the settings, the app's signing keys, its public clients and its clock. */
export interface TokenEndpointDeps {
  config: Config;
  signingKeys: SigningKeys;
  publicClients: PublicClients;
  now: () => number;
  stores: Stores;
  /** The app's purpose keys: a refresh rotation's answer is sealed under them for its retry window. */
  purposeKeys: PurposeKeys;
}

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

async function authenticate(ctx: Context, stores: Stores, params: Map<string, string>, now: Date): Promise<ClientRecord> {
  const creds = clientCredentialsOf(authorizationHeaders(ctx), params);
  const client = await authenticateClient(stores, creds.clientId, creds.clientSecret, now);
  if (!client || !client.tokenEndpointAuthMethods.includes(creds.method)) {
    if (creds.method === 'client_secret_basic') throw basicFailure('Client authentication failed.');
    throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
  }
  return client;
}

/** A token request without client authentication: a public client naming itself by client_id. */
async function publicClientGrant(
  grantType: string,
  params: Map<string, string>,
  resource: string,
  deps: TokenEndpointDeps,
  caller: LookupCaller,
  logger: Logger,
): Promise<TokenResponse> {
  const { config, signingKeys, stores } = deps;
  const clientId = params.get('client_id');
  if (!clientId)
    throw new OAuthError('invalid_client', 'Client authentication is required: client_id and client_secret, HTTP Basic, or client_id of a public client.', 401);
  if (await findActiveClient(stores, clientId)) throw new OAuthError('invalid_client', 'This client must authenticate (client_secret or HTTP Basic).', 401);
  if (grantType === 'client_credentials') throw new OAuthError('unauthorized_client', 'Public clients may not use the client_credentials grant.');
  if (grantType === 'authorization_code') {
    const lookup = await deps.publicClients.resolve(clientId, caller);
    if (!lookup.ok) {
      if (lookup.status) {
        const retry = { 'Retry-After': String(lookup.retryAfterSeconds ?? 1), 'Cache-Control': 'private, no-store' };
        throw lookup.status === 429
          ? new OAuthError('rate_limited', `Refused: ${lookup.reason}.`, 429, retry)
          : new OAuthError('temporarily_unavailable', `Refused: ${lookup.reason}.`, 503, retry);
      }
      throw new OAuthError('invalid_client', `Unknown or unusable client: ${lookup.reason}.`, 401);
    }
    if (!lookup.client.grantTypes.includes('authorization_code'))
      throw new OAuthError('unauthorized_client', 'This client may not use the authorization_code grant.');
    return authorizationCodeGrant(stores, lookup.client, params, resource, config, signingKeys, new Date(deps.now()), logger);
  }
  // A refresh needs only the client's standing, not its (possibly remote) metadata document again.
  if (await isPublicClientRevoked(stores, clientId)) throw new OAuthError('invalid_client', 'Unknown or revoked client.', 401);
  const presented = requireParam(params, 'refresh_token');
  if (params.has('resource') && resolveResource(params.get('resource'), resource) !== resource)
    throw new OAuthError('invalid_target', `The resource must be ${resource}.`);
  return refreshTokenGrant(
    stores,
    { clientId, retryWindowMs: REFRESH_RETRY_WINDOW_MS },
    presented,
    params,
    config,
    deps.purposeKeys,
    signingKeys,
    new Date(deps.now()),
    logger,
  );
}

/** A token request of an authenticated (confidential, M2M) client: rate limited per credential. */
async function confidentialClientGrant(
  ctx: Context,
  grantType: string,
  params: Map<string, string>,
  resource: string,
  { config, signingKeys, now, stores, purposeKeys }: TokenEndpointDeps,
): Promise<TokenResponse> {
  const client = await authenticate(ctx, stores, params, new Date(now()));
  if (!client.grantTypes.includes(grantType)) throw new OAuthError('unauthorized_client', `This client may not use the ${grantType} grant.`);
  const admitted = await admitClientRequest(stores, client._id, client.rateLimitPerMinute, new Date(now()));
  if (!admitted.ok) {
    throw new OAuthError('rate_limited', 'The rate limit of this client credential was reached; retry after Retry-After seconds.', 429, {
      'Retry-After': String(admitted.retryAfterSeconds),
      'Cache-Control': 'private, no-store',
    });
  }
  if (grantType === 'client_credentials') return clientCredentialsGrant(stores, client, params, resource, config, signingKeys, new Date(now()));
  const presented = requireParam(params, 'refresh_token');
  // Carried over; if a client repeats them they must match, checked before the token is consumed.
  if (params.has('scope')) checkScope(params.get('scope')!, [MCP_TOOLS_SCOPE]);
  if (params.has('resource')) checkResource(params.get('resource')!, resource);
  return refreshTokenGrant(
    stores,
    { clientId: client._id, retryWindowMs: 0 },
    presented,
    params,
    config,
    purposeKeys,
    signingKeys,
    new Date(now()),
    requestLogger(ctx),
  );
}

/** The store is unreachable: 503 with Retry-After in the OAuth error shape clients parse, with the API's problem code. */
export function sendTokenStoreOutage(ctx: Context, err: unknown): void {
  requestLogger(ctx).warn({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, 'store unavailable');
  ctx.status = 503;
  ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'temporarily_unavailable', error_description: 'The store is unavailable; retry shortly.', code: 'dependency_unavailable' };
}

const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'];

/**
 * POST {AUTH_URL}/api/oauth/token (SPEC 4.3): a thin adapter over the grant use cases in
 * core/oauth/grants. Order: form → grant type → client (authenticated M2M client, or a public
 * client by client_id) → grant allowed for the client → (M2M) rate limit → the grant's checks.
 */
export function tokenEndpoint(deps: TokenEndpointDeps) {
  const resource = toolsResource(deps.config);
  return async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    try {
      const params = await readForm(ctx);
      const grantType = requireParam(params, 'grant_type');
      if (!GRANT_TYPES.includes(grantType)) throw new OAuthError('unsupported_grant_type', `Supported grant types: ${GRANT_TYPES.join(', ')}.`);
      const authenticates = authorizationHeaders(ctx).length > 0 || params.has('client_secret');
      const body =
        authenticates || grantType === 'client_credentials'
          ? await confidentialClientGrant(ctx, grantType, params, resource, deps)
          : await publicClientGrant(grantType, params, resource, deps, { address: ctx.ip, requestId: ctx.state.requestId }, requestLogger(ctx));
      ctx.status = 200;
      ctx.body = body;
    } catch (err) {
      let e: OAuthError;
      if (err instanceof OAuthError) e = err;
      else if (isStoreUnavailable(err)) return sendTokenStoreOutage(ctx, err);
      else {
        requestLogger(ctx).error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack } }, 'token endpoint failure');
        e = new OAuthError('server_error', 'The token could not be issued; retry later.', 500);
      }
      ctx.status = e.status;
      for (const [name, value] of Object.entries(e.headers)) ctx.set(name, value);
      ctx.body = { error: e.error, error_description: e.description };
    }
  };
}
