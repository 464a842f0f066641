import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import { constantTimeEqual } from '../crypto/hash';
import { cursorExpired as listCursorExpired, cursorId, cursorIndex, cursorObject, invalidCursor as listCursorInvalid, MAX_CURSOR_LENGTH } from '../pageCursor';
import type { Problem } from '../problems';

/**
 * Search cursors: opaque, signed (HMAC-SHA-256 under a key derived from the secrets key), so
 * a forged or altered cursor is 400 `invalid_cursor`, another organization's cursor is 400
 * too, and one older than SEARCH_CURSOR_TTL_SECONDS is 410 `cursor_expired`.
 */
interface CursorPayload {
  v: 1;
  org: string;
  search: string;
  offset: number;
  /** Issued at, epoch seconds. */
  iat: number;
}

function signingKey(secretsKey: Buffer): Buffer {
  return createHmac('sha256', secretsKey).update('search-cursor:v1').digest();
}

function sign(secretsKey: Buffer, payload: string): string {
  return createHmac('sha256', signingKey(secretsKey)).update(payload).digest('base64url');
}

export function encodeCursor(settings: Pick<Config, 'secretsKey'>, orgId: string, searchId: string, offset: number, now: number): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, org: orgId, search: searchId, offset, iat: Math.floor(now / 1000) } satisfies CursorPayload)).toString(
    'base64url',
  );
  return `${payload}.${sign(settings.secretsKey, payload)}`;
}

export function invalidCursor(detail = 'The cursor is not valid for this request; start the search again without a cursor.'): Problem {
  return listCursorInvalid(detail);
}

export function cursorExpired(): Problem {
  return listCursorExpired('The cursor is no longer valid; start the search again.');
}

/** The text of a search cursor: base64url payload, a dot, base64url signature. */
export const SEARCH_CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';

/** `settings`: the secrets key the cursor is signed under and SEARCH_CURSOR_TTL_SECONDS. */
export function decodeCursor(
  settings: Pick<Config, 'secretsKey' | 'search'>,
  cursor: string,
  orgId: string,
  now: number,
): { searchId: string; offset: number } {
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined || !constantTimeEqual(signature, sign(settings.secretsKey, payload))) throw invalidCursor();
  const parsed = cursorObject(payload);
  if (parsed.v !== 1 || parsed.org !== orgId) throw invalidCursor();
  const searchId = cursorId(parsed.search);
  const offset = cursorIndex(parsed.offset);
  const issuedAt = cursorIndex(parsed.iat);
  if (now / 1000 - issuedAt > settings.search.cursorTtlSeconds) throw cursorExpired();
  return { searchId, offset };
}
