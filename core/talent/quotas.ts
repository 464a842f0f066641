import { config } from '../config';
import { sha256Hex } from '../crypto/hash';
import { Problem, retryLater, type ProblemCode } from '../problems';
import { QuotaWindow } from './searchModels';

/**
 * Search bulk-extraction quotas (SPEC 7.3, 8.1 item 3), per organization:
 * - previews: unique people shown in search results per UTC day;
 * - distinct queries: distinct search parameter sets per UTC clock hour;
 * - deliveries: unique people delivered (unlocked or contact-retrieved) per UTC day.
 * Each window is one document holding the unique members; updates apply only to the count
 * they read (optimistic concurrency), so concurrent requests cannot overshoot a threshold.
 */
export type QuotaKind = 'previews' | 'queries' | 'deliveries';

const CODES: Record<QuotaKind, ProblemCode> = {
  previews: 'preview_quota_exceeded',
  queries: 'distinct_query_cap',
  deliveries: 'delivery_quota_exceeded',
};

const HOUR = 3600_000;
const DAY = 24 * HOUR;

function limitOf(kind: QuotaKind): number {
  const q = config().searchQuotas;
  return kind === 'previews' ? q.previewsPerDay : kind === 'queries' ? q.distinctQueriesPerHour : q.deliveriesPerDay;
}

function windowOf(kind: QuotaKind, now: number): { key: string; end: number } {
  const span = kind === 'queries' ? HOUR : DAY;
  const start = Math.floor(now / span) * span;
  return { key: new Date(start).toISOString().slice(0, kind === 'queries' ? 13 : 10), end: start + span };
}

function windowId(kind: QuotaKind, orgId: string, key: string): string {
  return `${orgId}:${kind}:${key}`;
}

function refusal(kind: QuotaKind, limit: number): Problem {
  const what = kind === 'previews' ? 'unique people previewed today' : kind === 'queries' ? 'distinct queries this hour' : 'unique people delivered today';
  return retryLater(CODES[kind], `The organization reached its search quota of ${limit} ${what}.`, 1, { extensions: { limit } });
}

async function readWindow(kind: QuotaKind, orgId: string, now: number) {
  const w = windowOf(kind, now);
  const id = windowId(kind, orgId, w.key);
  const doc = await QuotaWindow.findById(id, { members: 1, count: 1 }).lean();
  return { id, end: w.end, doc };
}

function freshMembers(existing: string[] | undefined, members: string[]): string[] {
  const have = new Set(existing ?? []);
  return [...new Set(members)].filter((m) => !have.has(m));
}

/**
 * Admits `members` into the current window of `kind` (adds the new ones) or throws the 429
 * when that would pass the threshold; members already counted are free.
 */
export async function admitToQuota(kind: QuotaKind, orgId: string, members: string[], now = Date.now()): Promise<void> {
  const limit = limitOf(kind);
  for (let attempt = 0; attempt < 50; attempt++) {
    const { id, end, doc } = await readWindow(kind, orgId, now);
    const fresh = freshMembers(doc?.members, members);
    if (!fresh.length) return;
    const count = doc?.count ?? 0;
    if (count + fresh.length > limit) throw refusal(kind, limit);
    if (!doc) {
      try {
        await QuotaWindow.create({ _id: id, orgId, kind, members: fresh, count: fresh.length, expiresAt: new Date(end + HOUR) });
        return;
      } catch {
        continue; // another request created the window first; read it again
      }
    }
    const res = await QuotaWindow.updateOne({ _id: id, count }, { $push: { members: { $each: fresh } }, $inc: { count: fresh.length } });
    if (res.modifiedCount === 1) return;
  }
  throw retryLater('rate_limited', 'The search quota is under heavy contention; retry shortly.', 1);
}

/** Throws 429 when `members` (the new ones among them) would pass the threshold; records nothing. */
export async function assertQuota(kind: QuotaKind, orgId: string, members: string[], now = Date.now()): Promise<void> {
  const limit = limitOf(kind);
  const { doc } = await readWindow(kind, orgId, now);
  const fresh = freshMembers(doc?.members, members);
  if (fresh.length && (doc?.count ?? 0) + fresh.length > limit) throw refusal(kind, limit);
}

/** 429 `delivery_quota_exceeded` (Retry-After 1) if delivering these unique people today would pass the quota. */
export async function assertDeliveryQuota(orgId: string, personIds: string[]): Promise<void> {
  await assertQuota('deliveries', orgId, personIds);
}

/**
 * Records people as delivered today. Called after a delivery that already happened, so it
 * never refuses: the quota is enforced by assertDeliveryQuota before the work.
 */
export async function recordDelivered(orgId: string, personIds: string[], now = Date.now()): Promise<void> {
  if (!personIds.length) return;
  for (let attempt = 0; attempt < 50; attempt++) {
    const { id, end, doc } = await readWindow('deliveries', orgId, now);
    const fresh = freshMembers(doc?.members, personIds);
    if (!fresh.length) return;
    if (!doc) {
      try {
        await QuotaWindow.create({ _id: id, orgId, kind: 'deliveries', members: fresh, count: fresh.length, expiresAt: new Date(end + HOUR) });
        return;
      } catch {
        continue;
      }
    }
    const res = await QuotaWindow.updateOne({ _id: id, count: doc.count }, { $push: { members: { $each: fresh } }, $inc: { count: fresh.length } });
    if (res.modifiedCount === 1) return;
  }
}

/** The member a search's parameters count as against the distinct-query cap. */
export function queryMember(fingerprint: string): string {
  return sha256Hex(`query:${fingerprint}`).slice(0, 32);
}

export async function purgeExpiredQuotaWindows(now = new Date()): Promise<void> {
  await QuotaWindow.deleteMany({ expiresAt: { $lte: now } });
}
