import { Problem } from './problems';

/**
 * The one decoding rule of every page cursor the API hands out: base64url text of a JSON
 * object, read by typed field readers. Whatever a caller forges (bad base64, JSON of another
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

/** Base64url JSON of `value`: what `cursorObject` reads back. */
export function cursorText(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
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

/**
 * A list's cursor: the list it belongs to (`scope`) and the position after which the next page
 * starts. A cursor of another list (or another job's result) is `invalid_cursor`, not a wrong page.
 */
export function encodeListCursor(scope: string, position: Record<string, string | number>): string {
  return cursorText({ s: scope, p: position });
}

export function decodeListCursor<T extends Record<string, unknown>>(cursor: unknown, scope: string, fields: { [K in keyof T]: CursorField<T[K]> }): T {
  const { s, p } = cursorObject(cursor);
  if (s !== scope || p === null || typeof p !== 'object' || Array.isArray(p)) throw invalidCursor();
  const position = p as Record<string, unknown>;
  const out = {} as T;
  for (const key of Object.keys(fields) as (keyof T & string)[]) out[key] = fields[key](position[key]);
  return out;
}
