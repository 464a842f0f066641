import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { csrfMatches, csrfTokenFor, isSessionValue, newSessionValue } from '../../core/users/sessions';

/**
 * What every sign-in page shares: security headers, the session cookie, CSRF tokens and
 * form bodies.
 *
 * The cookie is `__Host-talent_session` with `Secure` when AUTH_URL is https or a loopback
 * http URL (browsers treat http://127.0.0.1 and http://localhost as secure contexts and accept
 * `Secure` cookies there); on any other plain-http AUTH_URL it is `talent_session` without
 * `Secure`, since a `__Host-` cookie must be Secure and would be dropped. Always HttpOnly,
 * SameSite=Lax (a client's redirect to /authorize is a top-level GET, which Lax allows), Path=/.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";
const MAX_FORM_BYTES = 8192;

export function cookieSettings(config: Config): { name: string; secure: boolean } {
  const url = new URL(config.authUrl);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  return { name: secure ? '__Host-talent_session' : 'talent_session', secure };
}

/** Security headers of a page for people: the sign-in pages' CSP unless the page family has its own. */
export function setPageHeaders(ctx: Context, contentSecurityPolicy = CONTENT_SECURITY_POLICY): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

export function readCookie(ctx: Context, name: string): string | undefined {
  const header = ctx.get('Cookie');
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionValueOf(ctx: Context, config: Config): string | undefined {
  const value = readCookie(ctx, cookieSettings(config).name);
  return isSessionValue(value) ? value : undefined;
}

export function setSessionCookie(ctx: Context, config: Config, value: string, maxAgeSeconds?: number): void {
  const { name, secure } = cookieSettings(config);
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (secure) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearSessionCookie(ctx: Context, config: Config): void {
  setSessionCookie(ctx, config, '', 0);
}

/** The cookie that lets sign-in recognise a browser the person used before (a random value, not a session). */
function browserCookieName(config: Config): string {
  return cookieSettings(config).secure ? '__Host-talent_browser' : 'talent_browser';
}

export function knownBrowserOf(ctx: Context, config: Config): string | undefined {
  return readCookie(ctx, browserCookieName(config));
}

export function setKnownBrowserCookie(ctx: Context, config: Config, value: string): void {
  const parts = [`${browserCookieName(config)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${400 * 24 * 3600}`];
  if (cookieSettings(config).secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/** The browser's session value, giving it a fresh (not yet signed-in) one when it has none. */
export function ensureSessionValue(ctx: Context, config: Config): string {
  const existing = sessionValueOf(ctx, config);
  if (existing) return existing;
  const value = newSessionValue();
  setSessionCookie(ctx, config, value);
  return value;
}

/** `keys`: the app's purpose keys (Deps.purposeKeys). */
export function csrfToken(sessionValue: string, keys: PurposeKeys): string {
  return csrfTokenFor(sessionValue, keys);
}

export function csrfValid(ctx: Context, config: Config, keys: PurposeKeys, form: URLSearchParams): boolean {
  return csrfMatches(sessionValueOf(ctx, config), form.get('csrf_token'), keys);
}

/** An application/x-www-form-urlencoded body of at most 8 KiB; null when it is anything else. */
export async function readPageForm(ctx: Context): Promise<URLSearchParams | null> {
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return null;
  try {
    const raw = await getRawBody(ctx.req, { limit: MAX_FORM_BYTES, length: ctx.get('Content-Length') || undefined, encoding: 'utf8' });
    return new URLSearchParams(raw);
  } catch {
    ctx.set('Connection', 'close');
    return null;
  }
}
