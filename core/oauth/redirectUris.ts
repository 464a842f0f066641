/**
 * Redirect URI rules of the authorization endpoint and client registration (RFC 6749 3.1.2,
 * RFC 8252 7.1–7.3, OAuth 2.1). A redirect URI matches a registered one exactly, except a
 * loopback http redirect (127.0.0.1, [::1], localhost), which matches on any port: native
 * clients listen on whatever port is free at the time.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export function isLoopbackHttp(uri: string): boolean {
  const u = parse(uri);
  return u !== null && u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
}

/** Same URI but for the port, both loopback http on the same host name. */
function sameLoopbackRedirect(registered: string, requested: string): boolean {
  const a = parse(registered);
  const b = parse(requested);
  if (!a || !b || !isLoopbackHttp(registered) || !isLoopbackHttp(requested)) return false;
  return (
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    a.hash === '' &&
    b.hash === '' &&
    a.username === '' &&
    b.username === '' &&
    a.password === '' &&
    b.password === ''
  );
}

export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (typeof requested !== 'string' || requested.length > 2048) return false;
  return registered.some((r) => r === requested || sameLoopbackRedirect(r, requested));
}

export type RedirectUriVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Whether a client may register this redirect URI: https (any host), loopback http, or, for
 * native applications, a private-use scheme (`cursor://…`, `com.example.app:/cb`). Never a
 * fragment, credentials, or a scheme that runs code in the browser.
 */
export function checkRegisteredRedirectUri(uri: unknown, applicationType: string): RedirectUriVerdict {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > 2048) return { ok: false, reason: 'must be an absolute URI of at most 2048 characters' };
  const u = parse(uri);
  if (!u) return { ok: false, reason: `${uri} is not an absolute URI` };
  if (u.hash !== '' || uri.includes('#')) return { ok: false, reason: `${uri} must not have a fragment` };
  if (u.username !== '' || u.password !== '') return { ok: false, reason: `${uri} must not carry credentials` };
  if (u.protocol === 'https:') return { ok: true };
  if (u.protocol === 'http:')
    return isLoopbackHttp(uri) ? { ok: true } : { ok: false, reason: `${uri}: http is allowed only for loopback redirects (127.0.0.1, [::1], localhost)` };
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (['javascript', 'data', 'file', 'vbscript', 'blob', 'about', 'ws', 'wss', 'ftp'].includes(scheme))
    return { ok: false, reason: `${uri}: the ${scheme} scheme is not allowed` };
  if (applicationType !== 'native') return { ok: false, reason: `${uri}: a private-use scheme needs application_type "native"` };
  return { ok: true };
}

/** The host shown on the consent page: where the code will go. */
export function redirectHostOf(uri: string): string {
  const u = parse(uri);
  if (!u) return uri;
  return u.host || `${u.protocol}${u.pathname.split('/').filter(Boolean)[0] ?? ''}`;
}
