import type { Context, Middleware } from 'koa';
import type { Config } from '../../core/config';
import { verifyApiKey, type KeyReads } from '../../core/keys/apiKeys';
import type { KeyUseRecorder } from '../../core/keys/keyUse';
import { AddressBlocks, clientAddressBucket, type ClientAddressLimits } from '../../core/limits/clientAddressLimits';
import { Problem, retryLater } from '../../core/problems';

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;
/** Anything shaped like one of our keys, wherever it appears. */
export const KEY_LIKE = /sk_(live|test)_ext_/;
const CREDENTIAL_PARAMS = new Set(['api_key', 'apikey', 'key', 'access_token', 'token', 'authorization']);
/** Headers other APIs take credentials in; a client sending one expects it to count, and it never does here. */
const CREDENTIAL_HEADERS = new Set([
  'x-api-key',
  'api-key',
  'apikey',
  'x-apikey',
  'x-api-token',
  'api-token',
  'x-auth-token',
  'x-access-token',
  'access-token',
  'x-authorization',
  'x-key',
]);

function malformed(detail: string): Problem {
  return new Problem('malformed_authorization', detail);
}

/** Node folds duplicate Authorization headers into one; the raw list shows them. */
function authorizationHeaders(ctx: Context): string[] {
  const raw = ctx.req.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === 'authorization') values.push(raw[i + 1]);
  }
  return values;
}

/** Checks where a credential may not be: the query string and cookies (SPEC 5.1 item 1). */
function rejectCredentialsOutsideHeader(ctx: Context): void {
  for (const [name, value] of Object.entries(ctx.query)) {
    const values = Array.isArray(value) ? value : [value ?? ''];
    if (CREDENTIAL_PARAMS.has(name.toLowerCase()) || values.some((v) => KEY_LIKE.test(v))) {
      throw malformed('Credentials are accepted only in the Authorization header, never in the URL.');
    }
  }
  const cookie = ctx.get('Cookie');
  if (cookie && KEY_LIKE.test(cookie)) {
    throw malformed('Credentials are accepted only in the Authorization header, never in a cookie.');
  }
  const raw = ctx.req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name === 'authorization' || name === 'cookie') continue;
    if (CREDENTIAL_HEADERS.has(name) || KEY_LIKE.test(raw[i + 1])) {
      throw malformed(`Credentials are accepted only in the Authorization header, never in ${raw[i]}.`);
    }
  }
}

/** Failed authentications per client address (see core/limits/clientAddressLimits.ts). */
export interface FailedAuthenticationLimit {
  /** Seconds this client's failing requests are refused for (without counting them again), or 0. */
  retryAfterSeconds(ctx: Context): number;
  /** Counts a failed authentication; the seconds to wait when it is over the limit, or 0. */
  recordFailure(ctx: Context): Promise<number>;
}

/** One per app (a replica): its memory of blocked addresses is its own, the counts are the store's. */
export function failedAuthenticationLimit(config: Config, addressLimits: ClientAddressLimits): FailedAuthenticationLimit {
  const blocks = new AddressBlocks();
  return {
    retryAfterSeconds: (ctx) => (blocks.empty ? 0 : blocks.retryAfterSeconds(clientAddressBucket(ctx.ip), addressLimits.now())),
    recordFailure: async (ctx) => {
      const got = await addressLimits.admit('auth-failures', ctx.ip, config.addressLimits.authFailuresPerMinute);
      if (got.admitted) return 0;
      blocks.block(clientAddressBucket(ctx.ip), got.retryAfterSeconds, addressLimits.now());
      return got.retryAfterSeconds;
    },
  };
}

function tooManyFailures(retryAfterSeconds: number): Problem {
  return retryLater('rate_limited', 'Too many failed authentications from this address; a valid key is still admitted.', retryAfterSeconds, {
    extensions: { limit: 'failed_authentications_per_minute' },
  });
}

/**
 * API-key authentication (SPEC 5.1, DECISIONS.md credential table). Runs before anything else
 * on /v1: a malformed or duplicated credential fails first, then the key is verified against
 * the store on every request so revocation is immediate on every replica; a key that fails
 * counts against its address's failed-authentication limit (docs/limits.md). A verified key's use
 * is noted for its `last_used_at` (written at most once a minute, never awaited here).
 */
export function authenticate(
  settings: Pick<Config, 'apiAudience' | 'readCacheMs'>,
  keyReads: KeyReads,
  failures?: FailedAuthenticationLimit,
  keyUse?: KeyUseRecorder,
  /** The app's clock (core/deps.ts): a key past its expiry is refused by it. */
  now: () => number = Date.now,
): Middleware {
  return async (ctx, next) => {
    rejectCredentialsOutsideHeader(ctx);
    const headers = authorizationHeaders(ctx);
    if (headers.length > 1) throw malformed('Send exactly one Authorization header.');
    if (headers.length === 0) throw new Problem('missing_api_key', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
    const match = BEARER.exec(headers[0].trim());
    if (!match) throw malformed('The Authorization header must be `Bearer <API_KEY>`.');
    const verdict = await verifyApiKey(match[1], settings, keyReads, new Date(now()));
    if (!verdict.ok) {
      // Only a failing request is refused past the limit: a valid key from the same address (a
      // shared egress, a proxy whose hops are not trusted) is always admitted. An address this
      // replica already saw over the limit is refused without another store write.
      const blocked = failures?.retryAfterSeconds(ctx) ?? 0;
      if (blocked > 0) throw tooManyFailures(blocked);
      const wait = (await failures?.recordFailure(ctx)) ?? 0;
      if (wait > 0) throw tooManyFailures(wait);
      throw new Problem('invalid_api_key', 'The API key is not valid for this API: it is unknown, expired, revoked, or not a live key for this audience.');
    }
    ctx.state.principal = verdict.principal;
    void keyUse?.note(verdict.principal.keyId);
    await next();
  };
}
