import { cursorIndex, decodeListCursor, encodeListCursor, type CursorKey } from '../pageCursor';
import { EXPORT_ROWS_PER_READ, exportReadSize } from '../csvExport';
import { apiFields } from '../apiFields';
import { auditValues, isAuditActor, isAuditAction, type AuditAction, type AuditActor } from './auditActions';
import type { AuditEventMatch, AuditEventRecord, AuditStore } from './store';

/** What the log's functions read and write through: the root's stores (`deps.stores`) or any object holding the audit store. */
export interface AuditStores {
  audit: AuditStore;
}

/**
 * The audit log of each organization: every change made by a person, an API key, an M2M client
 * or the operator is recorded here through `recordAuditEvent`, the one writer, and read back
 * newest first through `listAuditEvents`. Append-only: only retention deletes entries.
 */
export interface AuditEventInput {
  orgId: string;
  actor: AuditActor;
  action: AuditAction;
  /** The id of what changed (a key, a person, an endpoint, a job, the organization for org-wide settings). */
  target: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  clientAddress?: string | null;
  /** When the change was made, on the clock of the app that made it. */
  now: Date;
}

export interface AuditEventView {
  event_id: string;
  time: string;
  actor: string;
  action: string;
  target: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  client_address: string | null;
}

/**
 * Entries are numbered per organization (1, 2, …) and the number is in the id, so a page is read
 * by ids (`_id $in`), the one lookup besides string equality that FerretDB's SQLite backend does
 * through an index (docs/local-store.md): sorting an organization's entries by time read and
 * decoded every one of them, seconds per page at 100,000 entries. Newest first is highest number first.
 */
export function auditEventId(orgId: string, seq: number): string {
  return `aud_${orgId.replace(/^org_/, '')}_${seq}`;
}

const RECORD_ATTEMPTS = 5;

function duplicateKey(err: unknown): boolean {
  return (err as { code?: number })?.code === 11000;
}

export async function recordAuditEvent(stores: AuditStores, input: AuditEventInput): Promise<AuditEventView> {
  if (!isAuditAction(input.action)) throw new Error(`unknown audit action ${String(input.action)}`);
  if (!isAuditActor(input.actor)) throw new Error(`malformed audit actor ${String(input.actor)}`);
  for (let attempt = 1; ; attempt++) {
    try {
      const seq = await stores.audit.takeAuditSeq(input.orgId);
      const doc: AuditEventRecord = {
        _id: auditEventId(input.orgId, seq),
        orgId: input.orgId,
        seq,
        time: input.now,
        actor: input.actor,
        action: input.action,
        target: input.target,
        before: auditValues(input.action, input.before),
        after: auditValues(input.action, input.after),
        clientAddress: input.clientAddress ?? null,
      };
      await stores.audit.insertAuditEvent(doc);
      return view(doc);
    } catch (err) {
      // Two first entries of an organization may both upsert its counter (one loses on the unique
      // _id), and a number taken twice loses on the entry's own _id: both take the next number.
      if (!duplicateKey(err) || attempt >= RECORD_ATTEMPTS) throw err;
    }
  }
}

function view(e: AuditEventRecord): AuditEventView {
  return { event_id: e._id, ...apiFields(e, ['time', 'actor', 'action', 'target', 'before', 'after', 'clientAddress']) };
}

export const AUDIT_PAGE_DEFAULT = 20;
export const AUDIT_PAGE_MAX = 100;
const CURSOR_SCOPE = 'audit-events';

export interface AuditEventQuery {
  action?: string;
  actor?: string;
  cursor?: string;
  limit?: number;
}

/** Ids read per store query while scanning down the numbers. */
const WINDOW = 500;
/**
 * Numbers one page request scans at most: a rare filter answers a shorter page with a cursor
 * instead of scanning the whole log (the jobs list and the ledger stop at the same count).
 */
export const MAX_SCAN = 2_000;

function storeFilter(query: Pick<AuditEventQuery, 'action' | 'actor'>): AuditEventMatch {
  return { action: query.action, actor: query.actor };
}

/** The entries numbered `from` down to `to` (inclusive) that match, highest number first. */
async function window(stores: AuditStores, orgId: string, filter: AuditEventMatch, from: number, to: number): Promise<AuditEventRecord[]> {
  const ids: string[] = [];
  for (let seq = from; seq >= to; seq--) ids.push(auditEventId(orgId, seq));
  const rows = await stores.audit.auditEventsByIds(orgId, ids, filter);
  return rows.sort((a, b) => b.seq - a.seq);
}

/**
 * One page of an organization's entries, newest first; `next_cursor` is null on the last page.
 * A page holds at most `limit` entries, and fewer when a filter matched few of the `scan` numbers
 * one request scans at most (MAX_SCAN unless a reader sets a smaller budget); its cursor then
 * goes on from there.
 */
export async function listAuditEvents(
  stores: AuditStores,
  cursorKey: CursorKey,
  orgId: string,
  query: AuditEventQuery = {},
  scan = MAX_SCAN,
): Promise<{ data: AuditEventView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? AUDIT_PAGE_DEFAULT, 1), AUDIT_PAGE_MAX);
  const filter = storeFilter(query);
  const filtered = Boolean(query.action || query.actor);
  // The cursor is signed for the organization and the filters: another's, or a made-up number, is invalid_cursor before any read.
  const scope = `${CURSOR_SCOPE}:${orgId}:${query.action ?? ''}:${query.actor ?? ''}`;
  let next =
    query.cursor !== undefined
      ? decodeListCursor<{ below: number }>(cursorKey, query.cursor, scope, { below: cursorIndex }).below
      : await stores.audit.auditHeadSeq(orgId);
  const rows: AuditEventRecord[] = [];
  const floor = Math.max(0, next - Math.min(scan, MAX_SCAN));
  while (next > floor && rows.length <= limit) {
    // Unfiltered, the page's own numbers (and one more, to know whether another page follows).
    const size = filtered ? WINDOW : limit + 1 - rows.length;
    const to = Math.max(floor + 1, next - size + 1);
    const found = await window(stores, orgId, filter, next, to);
    rows.push(...found);
    next = to - 1;
    // Retention deletes the oldest entries first: an empty stretch of the unfiltered log is its end.
    if (!filtered && found.length === 0) next = 0;
  }
  const page = rows.slice(0, limit);
  let below = next;
  if (rows.length > limit) below = page[page.length - 1].seq - 1;
  return {
    data: page.map(view),
    next_cursor: below > 0 ? encodeListCursor(cursorKey, scope, { below }) : null,
  };
}

const DAY_MS = 24 * 3600_000;

/** Retention, the only deletion of entries: those older than `retentionDays`. */
export async function purgeExpiredAuditEvents(stores: AuditStores, now: Date, retentionDays: number): Promise<number> {
  return stores.audit.deleteAuditEventsBefore(new Date(now.getTime() - retentionDays * DAY_MS));
}

/**
 * Every entry matching the filters, newest first, read in windows of numbers as the consumer
 * takes them (the CSV download): windows of about EXPORT_ROWS_PER_READ entries, wider while a
 * filter matches few (the store drops the others before decoding them). `beforeRead` is awaited
 * with each window's size before it is read (the console's export pace).
 */
export async function* allAuditEvents(
  stores: AuditStores,
  orgId: string,
  query: Pick<AuditEventQuery, 'action' | 'actor'> = {},
  beforeRead?: (numbers: number) => Promise<void>,
): AsyncGenerator<AuditEventView> {
  const filter = storeFilter(query);
  let size = EXPORT_ROWS_PER_READ;
  for (let next = await stores.audit.auditHeadSeq(orgId); next > 0;) {
    const to = Math.max(1, next - size + 1);
    await beforeRead?.(next - to + 1);
    const found = await window(stores, orgId, filter, next, to);
    for (const doc of found) yield view(doc);
    size = exportReadSize(next - to + 1, found.length);
    next = to - 1;
  }
}
