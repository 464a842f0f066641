import { CONSOLE_ROOT } from './consolePaths';

/**
 * Where a person may be sent back to after signing in or confirming their password: a path of
 * this service's console only, so a crafted link cannot use the sign-in pages to send someone
 * elsewhere (an open redirect). Anything else is null, and the caller goes to its default page.
 */
const MAX_RETURN_PATH = 512;

export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_PATH) return null;
  // Browsers read `\` as `/` and drop tabs and line breaks, so `/\evil` or `/\t/evil` would leave the host.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, 'http://console.invalid');
  } catch {
    return null;
  }
  if (url.origin !== 'http://console.invalid') return null;
  const inConsole = url.pathname === CONSOLE_ROOT || url.pathname.startsWith(`${CONSOLE_ROOT}/`);
  if (!inConsole || url.pathname.includes('/../') || url.pathname.endsWith('/..')) return null;
  return url.pathname + url.search;
}
