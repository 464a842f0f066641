import type { Context, Middleware } from 'koa';
import { Problem } from '../core/problems';

/**
 * The host a request names (`Host`, or `X-Forwarded-Host` behind trusted proxies) and the
 * absolute URL built from it. A Host that is not `host[:port]` (RFC 9110 7.2: an IP literal,
 * an IPv4 address or a registered name, and a port of at most 65535) is a malformed request:
 * 400 `malformed_request` on every route, never an exception from URL parsing further on.
 */
const IP_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/;
// RFC 3986 reg-name (IPv4 addresses are made of the same characters): unreserved, sub-delims and %HH.
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const MAX_HOST_LENGTH = 1024;

function malformedHost(): Problem {
  return new Problem('malformed_request', 'The Host header is not a valid host name or address with an optional port.');
}

/** The absolute URL of `path` on `host`; a missing host (HTTP/1.0) is `localhost`. Throws only the 400 problem. */
export function requestUrl(host: string | undefined, path: string): URL {
  const named = host ?? '';
  if (named.length > MAX_HOST_LENGTH || !path.startsWith('/')) throw malformedHost();
  if (named !== '') {
    const portAt = named.lastIndexOf(':');
    const hasPort = portAt > named.lastIndexOf(']');
    const name = hasPort ? named.slice(0, portAt) : named;
    const port = hasPort ? named.slice(portAt + 1) : '';
    if (!(IP_LITERAL.test(name) || REG_NAME.test(name))) throw malformedHost();
    if (!/^\d{0,5}$/.test(port) || Number(port) > 65535) throw malformedHost();
  }
  try {
    return new URL(path, `http://${named || 'localhost'}`);
  } catch {
    // What the grammar admits and URL parsing still refuses (an IPv4-like name out of range, a bad IPv6 literal, %00).
    throw malformedHost();
  }
}

/**
 * The host as the request names it, from the header Koa's `ctx.host` reads, but unaltered (Koa
 * quietly drops a `user@` part, which makes a malformed Host look well-formed).
 */
export function namedHost(ctx: Context): string {
  const forwarded = ctx.app.proxy ? ctx.get('X-Forwarded-Host') : '';
  const raw = forwarded || (ctx.req.httpVersionMajor >= 2 ? ctx.get(':authority') : '') || ctx.get('Host');
  return raw.split(',', 1)[0].trim();
}

/**
 * Hosts a replica has already found well formed. Clients name the same few hosts again and
 * again, and checking one builds a URL; the bound keeps made-up hosts from growing it.
 */
const KNOWN_HOSTS_MAX = 64;

/** Refuses a request whose host is malformed before any route sees it, so no route has to handle one. */
export function wellFormedHost(): Middleware {
  const known = new Set<string>();
  return (ctx, next) => {
    const host = namedHost(ctx);
    if (!known.has(host)) {
      requestUrl(host, '/');
      if (known.size >= KNOWN_HOSTS_MAX) known.clear();
      known.add(host);
    }
    return next();
  };
}
