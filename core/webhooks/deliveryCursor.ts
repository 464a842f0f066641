import { cursorId, cursorIndex, cursorInstant, decodeListCursor, encodeListCursor, listCursorPosition, type CursorKey } from '../pageCursor';

/**
 * Page cursors of the newest-first webhook lists, in the shared signed cursor format
 * (core/pageCursor.ts): each is bound to its list, its workspace and its filters, so a forged,
 * altered or foreign one is 400 `invalid_cursor`. Endpoints, and delivery records from before
 * their numbering, carry the position (created_at, id) of the last item returned; numbered
 * delivery records carry the number the next page reads down from.
 */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

/** The scope of a workspace's endpoint list cursors. */
export const endpointListScope = (workspaceId: string) => `webhook_endpoints:${workspaceId}`;

export function encodeCursor(cursorKey: CursorKey, scope: string, pos: PagePosition): string {
  return encodeListCursor(cursorKey, scope, { t: pos.createdAt.getTime(), id: pos.id });
}

export function decodeCursor(cursorKey: CursorKey, scope: string, cursor: string | undefined): PagePosition | undefined {
  if (cursor === undefined) return undefined;
  const { t, id } = decodeListCursor<{ t: Date; id: string }>(cursorKey, cursor, scope, { t: cursorInstant, id: cursorId });
  return { createdAt: t, id };
}

/**
 * Where a page of delivery attempts starts: at or below a number (`below: 0` once every numbered
 * record was listed: the records from before the numbering come next), or after a record from
 * before the numbering.
 */
export type DeliveryPosition = { below: number } | { before: PagePosition };

/** `filters`: the workspace and the list's filters, which both forms of cursor are bound to. */
const numberedScope = (filters: string) => `webhook_deliveries:n:${filters}`;
const datedScope = (filters: string) => `webhook_deliveries:t:${filters}`;

export function encodeDeliveryCursor(cursorKey: CursorKey, filters: string, pos: DeliveryPosition): string {
  return 'below' in pos ? encodeListCursor(cursorKey, numberedScope(filters), { below: pos.below }) : encodeCursor(cursorKey, datedScope(filters), pos.before);
}

export function decodeDeliveryCursor(cursorKey: CursorKey, filters: string, cursor: string | undefined): DeliveryPosition | undefined {
  if (cursor === undefined) return undefined;
  if (listCursorPosition(cursorKey, cursor, numberedScope(filters))) {
    return { below: decodeListCursor<{ below: number }>(cursorKey, cursor, numberedScope(filters), { below: cursorIndex }).below };
  }
  return { before: decodeCursor(cursorKey, datedScope(filters), cursor)! };
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
