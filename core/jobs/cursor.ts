import { Problem } from '../problems';

/**
 * Opaque page cursors: base64url JSON naming the list they belong to, so a cursor from one
 * list (or one job's result) used on another is 400 `invalid_cursor` instead of a wrong page.
 */
export function encodeCursor(scope: string, position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify({ s: scope, p: position }), 'utf8').toString('base64url');
}

export function decodeCursor<T extends Record<string, string | number>>(cursor: string, scope: string, shape: Record<keyof T, 'string' | 'number'>): T {
  const bad = () => new Problem('invalid_cursor', 'The cursor is not one this list returned; start again without a cursor.');
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const { s, p } = (parsed ?? {}) as { s?: unknown; p?: Record<string, unknown> };
  if (s !== scope || !p || typeof p !== 'object') throw bad();
  for (const [k, type] of Object.entries(shape)) {
    if (typeof p[k] !== type) throw bad();
  }
  return p as T;
}
