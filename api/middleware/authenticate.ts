import type { Context, Middleware } from 'koa';
import { verifyApiKey } from '../../core/keys/apiKeys';
import { Problem } from '../../core/problems';

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;
/** Anything shaped like one of our keys, wherever it appears. */
export const KEY_LIKE = /sk_(live|test)_ext_/;
const CREDENTIAL_PARAMS = new Set(['api_key', 'apikey', 'key', 'access_token', 'token', 'authorization']);

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
}

/**
 * API-key authentication (SPEC 5.1, DECISIONS.md credential table). Runs before anything else
 * on /v1: a malformed or duplicated credential fails first, then the key is verified against
 * the store on every request so revocation is immediate on every replica.
 */
export function authenticate(audience: () => string): Middleware {
  return async (ctx, next) => {
    rejectCredentialsOutsideHeader(ctx);
    const headers = authorizationHeaders(ctx);
    if (headers.length > 1) throw malformed('Send exactly one Authorization header.');
    if (headers.length === 0) throw new Problem('missing_api_key', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
    const match = BEARER.exec(headers[0].trim());
    if (!match) throw malformed('The Authorization header must be `Bearer <API_KEY>`.');
    const verdict = await verifyApiKey(match[1], audience());
    if (!verdict.ok) {
      throw new Problem('invalid_api_key', 'The API key is not valid for this API: it is unknown, expired, revoked, or not a live key for this audience.');
    }
    ctx.state.principal = verdict.principal;
    await next();
  };
}
