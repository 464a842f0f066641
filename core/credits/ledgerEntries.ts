import { cursorIndex, decodeListCursor, encodeListCursor } from '../pageCursor';
import { LedgerEntry, type LedgerEntryDoc } from './models';

/**
 * What an organization's people read of its credit ledger: every grant and charge, newest
 * first, with its receipt id, operation, key family, amount and the balance after it, down to
 * the opening entry, whose amount is the balance the organization started with. Budget changes
 * are bookkeeping of the chain, not movements of credits.
 */
export interface LedgerEntryView {
  receipt_id: string;
  kind: 'opening' | 'grant' | 'charge';
  operation: string | null;
  family_id: string | null;
  amount: number;
  balance_after: number;
  time: string;
}

export interface LedgerFilter {
  operation?: string;
  familyId?: string;
  from?: Date;
  to?: Date;
}

export const LEDGER_PAGE_DEFAULT = 50;
export const LEDGER_PAGE_MAX = 200;
const MOVEMENTS = ['opening', 'grant', 'charge'];

function storeFilter(orgId: string, filter: LedgerFilter): Record<string, unknown> {
  const query: Record<string, unknown> = { orgId, kind: { $in: MOVEMENTS } };
  if (filter.operation) query.operation = filter.operation;
  if (filter.familyId) query.familyId = filter.familyId;
  if (filter.from || filter.to) query.createdAt = { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) };
  return query;
}

function scopeOf(filter: LedgerFilter): string {
  return ['ledger', filter.operation ?? '', filter.familyId ?? '', filter.from?.getTime() ?? '', filter.to?.getTime() ?? ''].join(':');
}

function view(doc: LedgerEntryDoc): LedgerEntryView {
  return {
    receipt_id: doc.receiptId,
    kind: doc.kind as LedgerEntryView['kind'],
    operation: doc.operation,
    family_id: doc.familyId,
    amount: doc.kind === 'opening' ? doc.balanceAfter : doc.amount,
    balance_after: doc.balanceAfter,
    time: doc.createdAt.toISOString(),
  };
}

/** One page of the filtered entries; the cursor belongs to its filter (another filter's is `invalid_cursor`). */
export async function listLedgerEntries(
  orgId: string,
  filter: LedgerFilter,
  page: { cursor?: string; limit?: number } = {},
): Promise<{ data: LedgerEntryView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(page.limit ?? LEDGER_PAGE_DEFAULT, 1), LEDGER_PAGE_MAX);
  const scope = scopeOf(filter);
  const query = storeFilter(orgId, filter);
  if (page.cursor !== undefined) query.seq = { $lt: decodeListCursor<{ seq: number }>(page.cursor, scope, { seq: cursorIndex }).seq };
  const docs = await LedgerEntry.find(query)
    .sort({ orgId: 1, seq: -1 })
    .limit(limit + 1)
    .lean<LedgerEntryDoc[]>();
  const rows = docs.slice(0, limit);
  const last = rows[rows.length - 1];
  return { data: rows.map(view), next_cursor: docs.length > limit && last ? encodeListCursor(scope, { seq: last.seq }) : null };
}

/** Every filtered entry, newest first, read from the store in batches as the consumer takes them. */
export async function* allLedgerEntries(orgId: string, filter: LedgerFilter): AsyncGenerator<LedgerEntryView> {
  const cursor = LedgerEntry.find(storeFilter(orgId, filter)).sort({ orgId: 1, seq: -1 }).lean<LedgerEntryDoc[]>().cursor({ batchSize: 500 });
  try {
    for await (const doc of cursor) yield view(doc as unknown as LedgerEntryDoc);
  } finally {
    await cursor.close();
  }
}
