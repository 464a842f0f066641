import { newId } from '../ids';
import { cursorId, cursorInstant, decodeListCursor, encodeListCursor } from '../pageCursor';
import { auditValues, isAuditActor, isAuditAction, type AuditAction, type AuditActor } from './auditActions';
import { AuditEvent } from './models';

/**
 * The audit log of each organization: every change made by a person, an API key, an M2M client
 * or the operator is recorded here through `recordAuditEvent`, the one writer, and read back
 * newest first through `listAuditEvents`. Append-only: see models.ts.
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
  now?: Date;
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

interface StoredAuditEvent {
  _id: string;
  orgId: string;
  time: Date;
  actor: string;
  action: string;
  target: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

export async function recordAuditEvent(input: AuditEventInput): Promise<AuditEventView> {
  if (!isAuditAction(input.action)) throw new Error(`unknown audit action ${String(input.action)}`);
  if (!isAuditActor(input.actor)) throw new Error(`malformed audit actor ${String(input.actor)}`);
  const doc: StoredAuditEvent = {
    _id: newId('aud'),
    orgId: input.orgId,
    time: input.now ?? new Date(),
    actor: input.actor,
    action: input.action,
    target: input.target,
    before: auditValues(input.action, input.before),
    after: auditValues(input.action, input.after),
    clientAddress: input.clientAddress ?? null,
  };
  await AuditEvent.create(doc);
  return view(doc);
}

function view(e: StoredAuditEvent): AuditEventView {
  return {
    event_id: e._id,
    time: e.time.toISOString(),
    actor: e.actor,
    action: e.action,
    target: e.target,
    before: e.before ?? null,
    after: e.after ?? null,
    client_address: e.clientAddress ?? null,
  };
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

/** One page of an organization's entries, newest first; `next_cursor` is null on the last page. */
export async function listAuditEvents(orgId: string, query: AuditEventQuery = {}): Promise<{ data: AuditEventView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? AUDIT_PAGE_DEFAULT, 1), AUDIT_PAGE_MAX);
  const filter: Record<string, unknown> = { orgId };
  if (query.action) filter.action = query.action;
  if (query.actor) filter.actor = query.actor;
  // The cursor names the list (and the filters) it belongs to: a page of another filter is invalid_cursor.
  const scope = `${CURSOR_SCOPE}:${query.action ?? ''}:${query.actor ?? ''}`;
  if (query.cursor !== undefined) {
    const after = decodeListCursor<{ t: Date; id: string }>(query.cursor, scope, { t: cursorInstant, id: cursorId });
    filter.$or = [{ time: { $lt: after.t } }, { time: after.t, _id: { $lt: after.id } }];
  }
  const rows = await AuditEvent.find(filter)
    .sort({ time: -1, _id: -1 })
    .limit(limit + 1)
    .lean<StoredAuditEvent[]>();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(view),
    next_cursor: rows.length > limit && last ? encodeListCursor(scope, { t: last.time.getTime(), id: last._id }) : null,
  };
}

const DAY_MS = 24 * 3600_000;

/** Retention, the only deletion of entries: those older than `retentionDays`. */
export async function purgeExpiredAuditEvents(now: Date, retentionDays: number): Promise<number> {
  const res = await AuditEvent.deleteMany({ time: { $lt: new Date(now.getTime() - retentionDays * DAY_MS) } });
  return res.deletedCount ?? 0;
}

/** Every entry matching the filters, newest first, read in batches as the consumer takes them (the CSV download). */
export async function* allAuditEvents(orgId: string, query: Pick<AuditEventQuery, 'action' | 'actor'> = {}): AsyncGenerator<AuditEventView> {
  const filter: Record<string, unknown> = { orgId };
  if (query.action) filter.action = query.action;
  if (query.actor) filter.actor = query.actor;
  const cursor = AuditEvent.find(filter).sort({ time: -1, _id: -1 }).lean<StoredAuditEvent[]>().cursor({ batchSize: 500 });
  try {
    for await (const doc of cursor) yield view(doc as unknown as StoredAuditEvent);
  } finally {
    await cursor.close();
  }
}
