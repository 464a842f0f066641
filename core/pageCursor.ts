import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PurposeKeys } from './crypto/purposeKeys';
import { Problem } from './problems';

/**
 * The one decoding rule of every page cursor the API hands out: base64url text carrying a JSON
 * object, read by typed field readers (list cursors also carry a MAC, `encodeListCursor`). Whatever a caller forges (bad base64, JSON of another
 * shape, a number outside what a Date or an index can hold, another list's cursor) is
 * 400 `invalid_cursor`, never an exception that would reach the problem mapper as a 500.
 */

/** Longest cursor any list accepts: cursors the API makes are far shorter. */
export const MAX_CURSOR_LENGTH = 512;

/** What the reference says a cursor looks like (the base64url alphabet, no padding). */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';
const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

export function invalidCursor(detail = 'The cursor is not one this list returned; start again without a cursor.'): Problem {
  return new Problem('invalid_cursor', detail);
}

export function cursorExpired(detail = 'The cursor is no longer valid; start again without a cursor.'): Problem {
  return new Problem('cursor_expired', detail);
}

/** The JSON object a cursor's base64url text carries; anything else is `invalid_cursor`. */
export function cursorObject(cursor: unknown, maxLength = MAX_CURSOR_LENGTH): Record<string, unknown> {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > maxLength || !CURSOR_TEXT.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidCursor();
  return parsed as Record<string, unknown>;
}

/** Milliseconds since the epoch a Date can hold (±8.64e15, ECMAScript's time range). */
const MAX_TIME_MS = 8.64e15;

/** A field readers turn into its typed value, or refuse. */
export type CursorField<T> = (value: unknown) => T;

/** An instant, as integer epoch milliseconds inside the Date range. */
export const cursorInstant: CursorField<Date> = (value) => {
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_TIME_MS) throw invalidCursor();
  return new Date(value);
};

/** A position in an ordered list: a non-negative safe integer. */
export const cursorIndex: CursorField<number> = (value) => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidCursor();
  return value;
};

/** An identifier of the API's own alphabet (prefix, underscore, letters and digits), at most 64 characters. */
export const cursorId: CursorField<string> = (value) => {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw invalidCursor();
  return value;
};

/** What list cursors are signed with: the app's purpose keys (its `page-cursor` key), so every replica accepts every replica's cursors. */
export type CursorKey = PurposeKeys;

/** Bytes of HMAC-SHA-256 a list cursor carries: forging one takes 2^128 tries. */
const MAC_BYTES = 16;

function listMac(key: CursorKey, scope: string, payload: Buffer): Buffer {
  return createHmac('sha256', key.key('page-cursor')).update(scope).update('\n').update(payload).digest().subarray(0, MAC_BYTES);
}

/**
 * A list's cursor: the position after which the next page starts, authenticated (HMAC) together
 * with the list it belongs to (`scope`: the list, its tenant and its filters). Whoever did not get
 * it from that list cannot make one: a forged, altered or foreign cursor (another organization's,
 * another filter's, another job's result) is `invalid_cursor` before the list reads anything, so
 * a cursor can never send a page into a scan of numbers the list never handed out.
 */
export function encodeListCursor(key: CursorKey, scope: string, position: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(position), 'utf8');
  return Buffer.concat([listMac(key, scope, payload), payload]).toString('base64url');
}

/** The position a cursor of this list carries, or undefined when it is not one this list signed. */
export function listCursorPosition(key: CursorKey, cursor: unknown, scope: string): Record<string, unknown> | undefined {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_TEXT.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= MAC_BYTES) return undefined;
  const payload = bytes.subarray(MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(0, MAC_BYTES), listMac(key, scope, payload))) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

export function decodeListCursor<T extends Record<string, unknown>>(
  key: CursorKey,
  cursor: unknown,
  scope: string,
  fields: { [K in keyof T]: CursorField<T[K]> },
): T {
  const position = listCursorPosition(key, cursor, scope);
  if (!position) throw invalidCursor();
  const out = {} as T;
  for (const field of Object.keys(fields) as (keyof T & string)[]) out[field] = fields[field](position[field]);
  return out;
}
