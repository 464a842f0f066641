import { cursorIndex, decodeListCursor, encodeListCursor, type CursorKey } from '../pageCursor';
import { EXPORT_ROWS_PER_READ } from '../csvExport';
import type { ChainHeads } from './chain';
import { fundingState, stateOf, type CreditDeps, type FundingState } from './credits';
import type { CreditStores, LedgerEntryRecord } from './store';

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

/** Whether an entry is one the filter keeps (applied to entries read by id). */
export function matchesFilter(doc: Pick<LedgerEntryRecord, 'kind' | 'operation' | 'familyId' | 'createdAt'>, filter: LedgerFilter): boolean {
  if (!MOVEMENTS.includes(doc.kind)) return false;
  if (filter.operation && doc.operation !== filter.operation) return false;
  if (filter.familyId && doc.familyId !== filter.familyId) return false;
  if (filter.from && doc.createdAt < filter.from) return false;
  if (filter.to && doc.createdAt >= filter.to) return false;
  return true;
}

function scopeOf(orgId: string, filter: LedgerFilter): string {
  return ['ledger', orgId, filter.operation ?? '', filter.familyId ?? '', filter.from?.getTime() ?? '', filter.to?.getTime() ?? ''].join(':');
}

function view(doc: LedgerEntryRecord): LedgerEntryView {
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

/**
 * How the ledger is read: by id, never by a sorted query. Entries are `<org_id>:<seq>` with
 * contiguous seq, so the newest are the ids just below the head, and a window of ids is one
 * `_id: {$in}` read, the one look-up FerretDB 1.x answers from an index for a list of values
 * (it sorts in memory, so a sorted query reads every entry of the organization first). A page
 * reads windows downwards until it has its rows or has looked at `MAX_SCANNED_PER_PAGE`
 * entries: a filter that matches rarely then answers a shorter page with a cursor to carry on,
 * so no page costs more than a few windows however large the ledger. Entries are appended in
 * time order, so "From" ends the walk and "To" is found by a binary search over seq.
 */
const WINDOW = 250;
export const MAX_SCANNED_PER_PAGE = 2_000;

async function headOf(stores: CreditStores, orgId: string, heads?: ChainHeads): Promise<number> {
  // The organization's mirror names a recent head: the probe then needs a read or two, not a search from 0.
  // The mirror is a best-effort copy that may lag far behind; the head this app last saw (`heads`) starts the probe nearer.
  const org = await stores.credits.creditMirrorOf(orgId);
  return stores.credits.ledgerHeadSeq(orgId, org?.creditSeq ?? -1, heads);
}

/** How far above the hint the first window of a page looks for the head. */
const HEAD_LOOKAHEAD = 16;

/**
 * The head and the `size` entries up to it, newest first. The hint's window reaches
 * HEAD_LOOKAHEAD above it: seqs are contiguous, so when its top is absent the newest entry in
 * it is the head, and the probe and the first window are one read. Otherwise (the head is
 * further on, or the hint is past it) the head is probed and its window read after.
 */
async function headWindow(stores: CreditStores, orgId: string, size: number, heads?: ChainHeads): Promise<{ head: number; docs: LedgerEntryRecord[] }> {
  const org = await stores.credits.creditMirrorOf(orgId);
  const hint = Math.max(org?.creditSeq ?? -1, heads?.known(orgId) ?? -1);
  if (hint >= 0) {
    const docs = await stores.credits.ledgerWindow(orgId, hint + HEAD_LOOKAHEAD, HEAD_LOOKAHEAD + size);
    const head = docs[0]?.seq;
    if (head !== undefined && head >= hint && head < hint + HEAD_LOOKAHEAD) {
      heads?.found(orgId, head);
      return { head, docs: docs.filter((d) => d.seq > head - size) };
    }
  }
  const head = await stores.credits.ledgerHeadSeq(orgId, hint, heads);
  return { head, docs: head >= 0 ? await stores.credits.ledgerWindow(orgId, head, size) : [] };
}

/**
 * The organization's funding as its people see it (the console's overview): the head's state,
 * read through the head window (one read after the mirror when the head is near the hint), or
 * fundingState's probe for a ledger without an entry yet, which it opens.
 */
export async function shownFunding(deps: CreditDeps, orgId: string): Promise<FundingState> {
  const { docs } = await headWindow(deps.stores, orgId, 1, deps.ledgerHeads?.seqs);
  return docs[0] ? stateOf(docs[0]) : fundingState(deps, orgId);
}

/** The highest seq whose entry was made before `to` (-1 when none): O(log n) reads by id. */
async function lastSeqBefore(stores: CreditStores, orgId: string, head: number, to: Date): Promise<number> {
  let lo = -1;
  let hi = head + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const createdAt = await stores.credits.ledgerEntryTime(orgId, mid);
    if (createdAt && createdAt < to) lo = mid;
    else hi = mid;
  }
  return lo;
}

async function startSeq(stores: CreditStores, orgId: string, filter: LedgerFilter, heads?: ChainHeads): Promise<number> {
  const head = await headOf(stores, orgId, heads);
  return filter.to ? lastSeqBefore(stores, orgId, head, filter.to) : head;
}

/**
 * One page of the filtered entries; the cursor is signed for the organization and its filter (another's is `invalid_cursor`).
 * `heads`: the app's ledger heads (core/deps.ts), which the head probe starts from and learns.
 */
export async function listLedgerEntries(
  stores: CreditStores,
  cursorKey: CursorKey,
  orgId: string,
  filter: LedgerFilter,
  page: { cursor?: string; limit?: number } = {},
  heads?: ChainHeads,
): Promise<{ data: LedgerEntryView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(page.limit ?? LEDGER_PAGE_DEFAULT, 1), LEDGER_PAGE_MAX);
  const scope = scopeOf(orgId, filter);
  // The first window is the page and one more (every entry a person reads is a movement, so an
  // unfiltered page needs no more); a filter's misses grow the next windows up to WINDOW.
  const firstSize = Math.min(limit + 1, WINDOW, MAX_SCANNED_PER_PAGE);
  let first: LedgerEntryRecord[] | undefined;
  let top: number;
  if (page.cursor !== undefined) top = decodeListCursor<{ seq: number }>(cursorKey, page.cursor, scope, { seq: cursorIndex }).seq - 1;
  else if (filter.to) top = await startSeq(stores, orgId, filter, heads);
  else ({ head: top, docs: first } = await headWindow(stores, orgId, firstSize, heads));
  const rows: LedgerEntryRecord[] = [];
  let scanned = 0;
  let reachedFrom = false;
  while (top >= 0 && rows.length <= limit && scanned < MAX_SCANNED_PER_PAGE && !reachedFrom) {
    const size = scanned === 0 ? firstSize : Math.min(Math.max(limit + 1, scanned), WINDOW, MAX_SCANNED_PER_PAGE - scanned);
    const docs = first ?? (await stores.credits.ledgerWindow(orgId, top, size));
    first = undefined;
    for (const doc of docs) {
      if (filter.from && doc.createdAt < filter.from) {
        reachedFrom = true;
        break;
      }
      if (matchesFilter(doc, filter)) rows.push(doc);
    }
    top -= size;
    scanned += size;
  }
  if (rows.length > limit) {
    const shown = rows.slice(0, limit);
    return { data: shown.map(view), next_cursor: encodeListCursor(cursorKey, scope, { seq: shown[shown.length - 1].seq }) };
  }
  // The scan budget ran out before the ledger (or "From") did: carry on below what was looked at.
  const more = top >= 0 && !reachedFrom;
  return { data: rows.map(view), next_cursor: more ? encodeListCursor(cursorKey, scope, { seq: top + 1 }) : null };
}

/**
 * Every filtered entry, newest first, read from the store EXPORT_ROWS_PER_READ at a time as the
 * consumer takes them (the filter is applied here, so every entry read is decoded by the store).
 * `beforeRead` is awaited with each read's size before it is read (the console's export pace).
 */
export async function* allLedgerEntries(
  stores: CreditStores,
  orgId: string,
  filter: LedgerFilter,
  beforeRead?: (rows: number) => Promise<void>,
): AsyncGenerator<LedgerEntryView> {
  let top = await startSeq(stores, orgId, filter);
  while (top >= 0) {
    await beforeRead?.(Math.min(EXPORT_ROWS_PER_READ, top + 1));
    for (const doc of await stores.credits.ledgerWindow(orgId, top, EXPORT_ROWS_PER_READ)) {
      if (filter.from && doc.createdAt < filter.from) return;
      if (matchesFilter(doc, filter)) yield view(doc);
    }
    top -= EXPORT_ROWS_PER_READ;
  }
}
