import type { Middleware } from 'koa';
import { isOriginAllowed, type OriginRule } from '../../core/allowedOrigins';
import { Problem } from '../../core/problems';

/**
 * Browser clients and the `Origin` header on the tool server and the OAuth endpoints a browser
 * client calls (MCP transport: servers MUST validate Origin, against DNS rebinding).
 *
 * - A request without `Origin` (a server-side client, curl, Claude's back end) is unaffected.
 * - A request whose `Origin` is allowed gets CORS headers; its preflight is answered here,
 *   before authentication (a preflight carries no credentials, so it must never be a 401).
 * - A request whose `Origin` is present and not allowed is 403 before any work is done.
 *
 * Allowed: the service's own origins, and the operator's `MCP_ALLOWED_ORIGINS` entries
 * (core/allowedOrigins.ts).
 */
const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
  'X-Request-Id',
].join(', ');
const EXPOSED_HEADERS = [
  'WWW-Authenticate',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'X-Request-Id',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
].join(', ');

export interface BrowserOriginsOptions {
  rules: readonly OriginRule[];
  /** Whether the middleware applies to a path (it passes every other request through untouched). */
  applies: (path: string) => boolean;
}

export function browserOrigins({ rules, applies }: BrowserOriginsOptions): Middleware {
  return (ctx, next) => {
    if (!applies(ctx.path)) return next();
    const origin = ctx.get('Origin');
    if (!origin) return next();
    ctx.vary('Origin');
    if (!isOriginAllowed(origin, rules)) {
      throw new Problem('origin_not_allowed', 'Requests from this Origin are not accepted; an operator can allow it with MCP_ALLOWED_ORIGINS.');
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}
