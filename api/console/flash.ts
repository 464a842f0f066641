import type { Context } from 'koa';
import { readCookie } from '../views/pageSecurity';

/**
 * The confirmation a write leaves for the page it redirects to (DECISIONS.md: after every write the
 * page it lands on shows a confirmation in `<div role="status">`). It rides in a short-lived cookie
 * scoped to the console, read once by the next page the layout renders and cleared there, so a
 * reload does not say it again and the page's URL stays clean. Only fixed sentences built from
 * names the store holds go in: never a secret, and always escaped when shown.
 */
const FLASH_COOKIE = 'console_flash';
const FLASH_MAX_AGE_SECONDS = 120;
const FLASH_MAX_LENGTH = 600;

function flashCookie(value: string, maxAge: number): string {
  return `${FLASH_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`;
}

/** Leaves `message` for the next console page this browser is shown. */
export function leaveFlash(ctx: Context, message: string): void {
  ctx.append('Set-Cookie', flashCookie(encodeURIComponent(message.slice(0, FLASH_MAX_LENGTH)), FLASH_MAX_AGE_SECONDS));
}

/** The message a write left, cleared as it is read; null when there is none. */
export function takeFlash(ctx: Context): string | null {
  const raw = readCookie(ctx, FLASH_COOKIE);
  if (raw === undefined) return null;
  ctx.append('Set-Cookie', flashCookie('', 0));
  try {
    const message = decodeURIComponent(raw).slice(0, FLASH_MAX_LENGTH);
    return message || null;
  } catch {
    return null;
  }
}
