import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { Deps } from '../../core/deps';
import { verifyAccessToken } from '../../core/oauth/accessTokens';
import { admitClientRequest } from '../../core/oauth/clientRateLimit';
import { admitPersonRequest } from '../../core/oauth/personRateLimit';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { Permission } from '../../core/keys/permissions';
import { findActiveClient, MCP_TOOLS_SCOPE, type ClientRecord } from '../../core/oauth/clients';
import { isPublicClientRevoked } from '../../core/oauth/publicClients';
import { liveChain } from '../../core/oauth/tokenChains';
import { personPrincipal } from '../../core/users/personPrincipal';
import { mustEnrolSecondFactor } from '../../core/users/secondFactors';
import { findActiveUser } from '../../core/users/users';
import { agentOfCall } from '../../core/oauth/consentGrants';
import { protectedResourceMetadataUrl } from '../oauth/discovery';
import { toolsResource } from '../oauth/tokenEndpoint';

/**
 * Bearer validation of the tool server (RFC 6750, RFC 9068, MCP authorization): every request
 * carries an access token issued for exactly `${MCP_URL}/tools`. API keys are never accepted.
 * The token is checked here and dropped: nothing downstream ever sees it.
 */
const SECOND_FACTOR_REQUIRED =
  "Your organization requires two-factor authentication: set up a second factor on the console's Security page, then connect again.";

export class BearerRejection extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 429,
    readonly error: string | undefined,
    readonly description: string,
    readonly extraHeaders: Record<string, string> = {},
    /** The scopes the presented token had (for an insufficient_scope challenge). */
    readonly heldScopes: readonly string[] = [],
  ) {
    super(description);
  }
}

/** Every scope a call of the tool server needs. */
export const REQUIRED_SCOPES: readonly string[] = [MCP_TOOLS_SCOPE];

/**
 * The challenge names the resource metadata (RFC 9728; always an absolute URL, since clients
 * such as claude.ai ignore a relative one) and the scopes to ask for (MCP authorization). On
 * `insufficient_scope` it lists every scope the call needs, together with those the token
 * already had, so a step-up request asks for all of them at once.
 */
export function challenge(config: Config, error?: string, description?: string, heldScopes: readonly string[] = []): string {
  const scopes = [...new Set([...REQUIRED_SCOPES, ...(error === 'insufficient_scope' ? heldScopes : [])])];
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(config)}"`, `scope="${scopes.join(' ')}"`];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}

/**
 * Who a tool call acts as: shaped like an API key's principal, so the /v1 pipeline runs
 * unchanged. An M2M client acts as itself (its workspace, application and permissions); a
 * person's token acts as the person's organization, workspace and permissions.
 */
export type ToolPrincipal = KeyPrincipal & { subject: { type: 'client' | 'user'; id: string }; clientId: string };

export function clientPrincipal(client: ClientRecord, config: Config): ToolPrincipal {
  return {
    keyId: client._id,
    familyId: client._id,
    orgId: client.orgId,
    workspaceId: client.workspaceId,
    applicationId: client.applicationId,
    audience: toolsResource(config),
    scopes: client.permissions as Permission[],
    subject: { type: 'client', id: client._id },
    clientId: client._id,
  };
}

function requireScopes(held: readonly string[]): void {
  const missing = REQUIRED_SCOPES.filter((s) => !held.includes(s));
  if (missing.length > 0) throw new BearerRejection(403, 'insufficient_scope', `The access token lacks the scopes: ${missing.join(' ')}.`, {}, held);
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

const INVALID_TOKEN = 'The access token is invalid or expired.';

/** An API key's shape (core/keys/apiKeyFormat.ts), told apart so its sender learns what to send instead. */
const API_KEY_HEAD = /^sk_(live|test)_ext_/;

function apiKeyRefusal(config: Config): BearerRejection {
  return new BearerRejection(
    401,
    'invalid_token',
    `API keys are not accepted by the tool server: it takes an OAuth access token for ${toolsResource(config)}. ` +
      `An M2M client gets one from ${config.authUrl}/api/oauth/token (grant_type=client_credentials, scope=mcp:tools, resource=${toolsResource(config)}); ` +
      'an operator creates the client with the operator CLI (m2m create). An MCP client that signs in gets one through the authorization server this challenge names.',
  );
}

export async function authenticateBearer(ctx: Context, deps: Pick<Deps, 'config' | 'admission' | 'signingKeys' | 'stores' | 'now'>): Promise<ToolPrincipal> {
  const { signingKeys } = deps;
  const { config } = deps;
  const raw = ctx.req.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === 'authorization') values.push(raw[i + 1]);
  if (ctx.query.access_token !== undefined)
    throw new BearerRejection(400, 'invalid_request', 'Send the access token in the Authorization header, never in the URL.');
  if (values.length > 1) throw new BearerRejection(400, 'invalid_request', 'Send exactly one Authorization header.');
  if (values.length === 0) throw new BearerRejection(401, undefined, 'An access token is required.');
  const match = BEARER.exec(values[0].trim());
  if (!match) throw new BearerRejection(401, 'invalid_token', 'The Authorization header must be `Bearer <access token>`.');
  if (API_KEY_HEAD.test(match[1])) throw apiKeyRefusal(config);
  const verdict = await verifyAccessToken(match[1], {
    issuer: config.authUrl,
    audience: toolsResource(config),
    signingKeys,
    now: new Date(deps.now()),
  });
  if (!verdict.ok) throw new BearerRejection(401, 'invalid_token', INVALID_TOKEN);
  const person = verdict.token.user;
  if (person) {
    // Read on every request: a disabled user, a revoked grant (its chains) or a revoked client stops here at once.
    const [user, chain, clientRevoked] = await Promise.all([
      findActiveUser(deps.stores, person.userId),
      liveChain(deps.stores, person.chainId),
      isPublicClientRevoked(deps.stores, verdict.token.clientId),
    ]);
    if (!user || !chain || chain.userId !== user._id || chain.clientId !== verdict.token.clientId || clientRevoked) {
      throw new BearerRejection(401, 'invalid_token', INVALID_TOKEN);
    }
    // RFC 9470: the person's sign-in no longer meets their organization's policy; a new sign-in takes them to enrol.
    if (await mustEnrolSecondFactor(deps.stores, user)) throw new BearerRejection(401, 'insufficient_user_authentication', SECOND_FACTOR_REQUIRED);
    requireScopes(verdict.token.scopes);
    const perSecond = config.oauth.personToolRequestsPerSecond;
    const admitted = await admitPersonRequest(deps.admission, user._id, perSecond);
    if (!admitted.ok) {
      throw new BearerRejection(
        429,
        undefined,
        `This person's tool-server request rate (${perSecond} per second) is used up; retry after Retry-After seconds.`,
        {
          'Retry-After': String(admitted.retryAfterSeconds),
        },
      );
    }
    const agent = await agentOfCall(deps.stores, user, verdict.token.clientId);
    // What the person allowed this application (read only, a daily allowance): the charge path and the tool list hold it to that.
    return { ...personPrincipal(user, toolsResource(config)), clientId: verdict.token.clientId, ...(agent ? { agent } : {}) };
  }
  const client = await findActiveClient(deps.stores, verdict.token.clientId);
  if (!client) throw new BearerRejection(401, 'invalid_token', INVALID_TOKEN);
  requireScopes(verdict.token.scopes);
  const admitted = await admitClientRequest(deps.stores, client._id, client.rateLimitPerMinute, new Date(deps.now()));
  if (!admitted.ok) {
    throw new BearerRejection(429, undefined, 'The rate limit of this client credential was reached; retry after Retry-After seconds.', {
      'Retry-After': String(admitted.retryAfterSeconds),
    });
  }
  return clientPrincipal(client, config);
}

export function sendBearerRejection(ctx: Context, config: Config, rejection: BearerRejection): void {
  ctx.status = rejection.status;
  if (rejection.status === 401 || rejection.status === 403 || rejection.status === 400) {
    ctx.set(
      'WWW-Authenticate',
      challenge(config, rejection.error, rejection.status === 401 && !rejection.error ? undefined : rejection.description, rejection.heldScopes),
    );
  }
  for (const [k, v] of Object.entries(rejection.extraHeaders)) ctx.set(k, v);
  ctx.set('Cache-Control', rejection.status === 429 ? 'private, no-store' : 'no-store');
  ctx.body = { error: rejection.error ?? (rejection.status === 429 ? 'rate_limited' : 'invalid_token'), error_description: rejection.description };
}
