import { lazyLru } from '../store/lazyLru';
import type { Config } from '../config';
import { ChainHeads } from '../credits/chain';
import { sha256Hex } from '../crypto/hash';
import { Problem, retryLater, type ProblemCode } from '../problems';
import type { TalentStore, TalentStores } from './store';

/**
 * Search bulk-extraction quotas (SPEC 7.3, 8.1 item 3), per organization:
 * - previews: unique people shown in search results per UTC day;
 * - queries: distinct search parameter sets per UTC clock hour;
 * - deliveries: unique people delivered (unlocked or contact-retrieved) per UTC day.
 * A member already counted in the window is free. Windows are append-only chains, so the
 * check and the count are one atomic insert.
 */
export type QuotaKind = 'previews' | 'queries' | 'deliveries';

const CODES: Record<QuotaKind, ProblemCode> = {
  previews: 'preview_quota_exceeded',
  queries: 'distinct_query_cap',
  deliveries: 'delivery_quota_exceeded',
};

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** The quota figures (SEARCH_*_QUOTA_PER_DAY, SEARCH_DISTINCT_QUERIES_PER_HOUR). */
export type QuotaSettings = Pick<Config, 'searchQuotas'>;

export function quotaLimit(settings: QuotaSettings, kind: QuotaKind): number {
  const q = settings.searchQuotas;
  return kind === 'previews' ? q.previewsPerDay : kind === 'queries' ? q.distinctQueriesPerHour : q.deliveriesPerDay;
}

/** The window `now` falls in: UTC clock hour for queries, UTC day otherwise. */
export function quotaWindow(kind: QuotaKind, now: number): { key: string; end: number } {
  const span = kind === 'queries' ? HOUR : DAY;
  const start = Math.floor(now / span) * span;
  return { key: new Date(start).toISOString().slice(0, kind === 'queries' ? 13 : 10), end: start + span };
}

/** The 429 of a used-up quota (the reference's examples quote it too). */
export function quotaRefusal(kind: QuotaKind, limit: number): Problem {
  const what = kind === 'previews' ? 'unique people previewed per day' : kind === 'queries' ? 'distinct queries per hour' : 'unique people delivered per day';
  return retryLater(CODES[kind], `The organization reached its search quota of ${limit} ${what}.`, 1, { extensions: { limit } });
}

interface WindowState {
  chainId: string;
  seq: number;
  count: number;
  members: Set<string>;
  end: number;
}

/**
 * The quota windows one app (or worker) has read or written: a cache that saves re-reading a
 * window's chain on every search; the store decides (a conflict on append reloads the window).
 * The composition root builds one over its store (core/deps.ts, activities/contacts.ts); a
 * caller without one may use a fresh one.
 */
export class QuotaWindows {
  constructor(private readonly store: TalentStore) {}

  private readonly states = lazyLru<string, WindowState>({ max: 10_000 });
  /** The heads of the windows' chains, kept beyond a forgotten window: its reload probes from there. */
  readonly heads = new ChainHeads();

  async read(kind: QuotaKind, orgId: string, now: number): Promise<WindowState> {
    const w = quotaWindow(kind, now);
    const chainId = `${orgId}:${kind}:${w.key}`;
    const cached = this.states().get(chainId);
    if (cached) return cached;
    const seq = await this.store.quotaHeadSeq(chainId, this.heads);
    const members = new Set<string>();
    let count = 0;
    if (seq >= 0) {
      const entries = await this.store.quotaEntriesUpTo(chainId, seq);
      for (const e of entries) for (const m of e.members) members.add(m);
      count = (await this.store.readQuotaEntry(chainId, seq))?.countAfter ?? members.size;
    }
    const state = { chainId, seq, count, members, end: w.end };
    this.states().set(chainId, state);
    return state;
  }

  /** Forgets a window found stale, so the next read loads it from the store. */
  forget(chainId: string): void {
    this.states().delete(chainId);
  }

  /** Appends entry `seq` of a window's chain; the heads learn an appended seq. */
  append(chainId: string, seq: number, entry: { members: string[]; countAfter: number; expiresAt: Date }) {
    return this.store.appendQuotaEntry(chainId, seq, entry, this.heads);
  }
}

function freshOf(state: WindowState, members: string[]): string[] {
  return [...new Set(members)].filter((m) => !state.members.has(m));
}

/** Counts `members`; with a `limit`, refuses (counting nothing) when the new ones would pass it. */
async function add(windows: QuotaWindows, kind: QuotaKind, orgId: string, members: string[], limit: number | undefined, now: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const state = await windows.read(kind, orgId, now);
    const fresh = freshOf(state, members);
    if (!fresh.length) return;
    if (limit !== undefined && state.count + fresh.length > limit) throw quotaRefusal(kind, limit);
    const outcome = await windows.append(state.chainId, state.seq + 1, {
      members: fresh,
      countAfter: state.count + fresh.length,
      expiresAt: new Date(state.end + HOUR),
    });
    if (outcome === 'appended') {
      state.seq += 1;
      state.count += fresh.length;
      for (const m of fresh) state.members.add(m);
      return;
    }
    windows.forget(state.chainId);
  }
  throw retryLater('rate_limited', 'The search quota is under heavy contention; retry shortly.', 1);
}

/**
 * Counts `members` in the current window of `kind`, or throws its 429 (Retry-After 1,
 * nothing counted) when the new ones among them would pass the threshold.
 */
export async function admitToQuota(
  settings: QuotaSettings,
  windows: QuotaWindows,
  kind: QuotaKind,
  orgId: string,
  members: string[],
  now: number,
): Promise<void> {
  await add(windows, kind, orgId, members, quotaLimit(settings, kind), now);
}

/**
 * Throws the 429 when the current window is full, so no new member could be counted; records
 * nothing. A cheap refusal before costly work: a count only grows within its window, so a
 * cached full window is full indeed (a stale one that looks open is caught by admitToQuota).
 */
export async function assertQuotaHasRoom(settings: QuotaSettings, windows: QuotaWindows, kind: QuotaKind, orgId: string, now: number): Promise<void> {
  const limit = quotaLimit(settings, kind);
  if ((await windows.read(kind, orgId, now)).count >= limit) throw quotaRefusal(kind, limit);
}

/**
 * Records people as delivered today. Called after the delivery happened, so it never
 * refuses: the quota is admitted (admitToQuota) or reserved (core/jobs/deliveryReservations.ts) before the work.
 */
export async function recordDelivered(windows: QuotaWindows, orgId: string, personIds: string[], now: number): Promise<void> {
  if (personIds.length) await add(windows, 'deliveries', orgId, personIds, undefined, now);
}

/** What a search's parameters count as against the distinct-query cap. */
export function queryMember(fingerprint: string): string {
  return sha256Hex(`query:${fingerprint}`).slice(0, 32);
}

export async function purgeExpiredQuotaEntries(stores: TalentStores, now: Date): Promise<number> {
  return stores.talent.deleteExpiredQuotaEntries(now);
}
