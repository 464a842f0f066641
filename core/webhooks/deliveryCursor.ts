import { cursorId, cursorIndex, cursorInstant, cursorObject, decodeListCursor, encodeListCursor } from '../pageCursor';

/**
 * Page cursors of the newest-first webhook lists, in the shared cursor format
 * (core/pageCursor.ts), so a forged one is 400 `invalid_cursor` and one list's cursor is
 * refused by the other. Endpoints, and delivery records from before their numbering, carry the
 * position (created_at, id) of the last item returned; numbered delivery records carry the
 * number the next page reads down from.
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

/**
 * Where a page of delivery attempts starts: at or below a number (`below: 0` once every numbered
 * record was listed: the records from before the numbering come next), or after a record from
 * before the numbering.
 */
export type DeliveryPosition = { below: number } | { before: PagePosition };

/** The numbered cursors name the list and its filters: a cursor of another filter is `invalid_cursor`. */
const numberedScope = (filters: string) => `webhook_deliveries:n:${filters}`;

export function encodeDeliveryCursor(filters: string, pos: DeliveryPosition): string {
  return 'below' in pos ? encodeListCursor(numberedScope(filters), { below: pos.below }) : encodeCursor('webhook_deliveries', pos.before);
}

export function decodeDeliveryCursor(filters: string, cursor: string | undefined): DeliveryPosition | undefined {
  if (cursor === undefined) return undefined;
  if (cursorObject(cursor).s === numberedScope(filters)) {
    return { below: decodeListCursor<{ below: number }>(cursor, numberedScope(filters), { below: cursorIndex }).below };
  }
  return { before: decodeCursor('webhook_deliveries', cursor)! };
}

/** Whether a record comes strictly after `pos` in the list's order: numbered ones by number, highest first, then the others newest first. */
export function comesAfter(record: { seq?: number | null; createdAt: Date; _id: string }, pos: DeliveryPosition | undefined): boolean {
  if (!pos) return true;
  const numbered = typeof record.seq === 'number';
  if ('below' in pos) return numbered ? record.seq! <= pos.below : true;
  if (numbered) return false;
  const t = record.createdAt.getTime();
  const at = pos.before.createdAt.getTime();
  return t < at || (t === at && record._id < pos.before.id);
}

/** The list's order: numbered records by number, highest first, then the others by (created, id), newest first. */
export function listOrder(a: { seq?: number | null; createdAt: Date; _id: string }, b: { seq?: number | null; createdAt: Date; _id: string }): number {
  const an = typeof a.seq === 'number';
  const bn = typeof b.seq === 'number';
  if (an && bn) return b.seq! - a.seq!;
  if (an !== bn) return an ? -1 : 1;
  return b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}
