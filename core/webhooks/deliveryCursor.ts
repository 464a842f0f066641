import { Problem } from '../problems';

/**
 * Opaque page cursors for newest-first lists: the position (created_at, id) of the last item
 * returned, base64url JSON. Malformed input is 400 `invalid_cursor`.
 */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(pos: PagePosition): string {
  return Buffer.from(JSON.stringify({ t: pos.createdAt.getTime(), i: pos.id })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  try {
    if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw new Error('shape');
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    if (typeof v.t !== 'number' || !Number.isFinite(v.t) || typeof v.i !== 'string' || v.i.length > 64) throw new Error('fields');
    return { createdAt: new Date(v.t), id: v.i };
  } catch {
    throw new Problem('invalid_cursor', 'The cursor is not one this API returned.');
  }
}

/** Filter for "strictly after `pos`" in (createdAt desc, _id desc) order. */
export function afterPosition(pos: PagePosition | undefined): Record<string, unknown> {
  if (!pos) return {};
  return { $or: [{ createdAt: { $lt: pos.createdAt } }, { createdAt: pos.createdAt, _id: { $lt: pos.id } }] };
}
