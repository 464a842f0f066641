import type { Middleware } from 'koa';
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
 * Allowed: the service's own origins, and the operator's `MCP_ALLOWED_ORIGINS` entries. An
 * entry is an exact origin (`https://inspector.example.com`) or an origin with any port
 * (`http://localhost:*`), which is how a local MCP Inspector is reached on a port it picks.
 */
export interface OriginRule {
  scheme: string;
  host: string;
  /** null: any port. */
  port: string | null;
}

export function parseOriginRule(entry: string): OriginRule | null {
  const m = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}|\*))?$/.exec(entry.trim());
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const host = m[2].toLowerCase();
  const port = m[3] === '*' ? null : (m[3] ?? (scheme === 'https' ? '443' : '80'));
  return { scheme, host, port };
}

/** The rule list for `entries`; throws naming the first entry that is not an origin. */
export function originRules(entries: readonly string[]): OriginRule[] {
  return entries.map((entry) => {
    const rule = parseOriginRule(entry);
    if (!rule) throw new Error(`not an origin: ${entry} (expected scheme://host[:port|:*])`);
    return rule;
  });
}

export function isOriginAllowed(origin: string, rules: readonly OriginRule[]): boolean {
  const offered = parseOriginRule(origin);
  if (!offered || offered.port === null) return false;
  return rules.some((r) => r.scheme === offered.scheme && r.host === offered.host && (r.port === null || r.port === offered.port));
}

/** The loopback origins a local MCP Inspector or a developer's page uses, on any port. */
export const LOOPBACK_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];

const ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
const ALLOWED_HEADERS = [
  'Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID', 'X-Request-Id',
].join(', ');
const EXPOSED_HEADERS = [
  'WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy',
].join(', ');

export interface BrowserOriginsOptions {
  rules: readonly OriginRule[];
  /** Whether the middleware applies to a path (it passes every other request through untouched). */
  applies: (path: string) => boolean;
}

export function browserOrigins({ rules, applies }: BrowserOriginsOptions): Middleware {
  return async (ctx, next) => {
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
    await next();
  };
}
