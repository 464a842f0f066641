import { cursorId, cursorInstant, decodeListCursor, encodeListCursor } from '../pageCursor';

/**
 * Page cursors of the newest-first webhook lists (endpoints, deliveries): the position
 * (created_at, id) of the last item returned, in the shared cursor format (core/pageCursor.ts),
 * so a forged one is 400 `invalid_cursor` and one list's cursor is refused by the other.
 */
export type NewestFirstList = 'webhook_endpoints' | 'webhook_deliveries';

export interface PagePosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(list: NewestFirstList, pos: PagePosition): string {
  return encodeListCursor(list, { t: pos.createdAt.getTime(), id: pos.id });
}

export function decodeCursor(list: NewestFirstList, cursor: string | undefined): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  const { t, id } = decodeListCursor<{ t: Date; id: string }>(cursor, list, { t: cursorInstant, id: cursorId });
  return { createdAt: t, id };
}

/** Filter for "strictly after `pos`" in (createdAt desc, _id desc) order. */
export function afterPosition(pos: PagePosition | undefined): Record<string, unknown> {
  if (!pos) return {};
  return { $or: [{ createdAt: { $lt: pos.createdAt } }, { createdAt: pos.createdAt, _id: { $lt: pos.id } }] };
}
