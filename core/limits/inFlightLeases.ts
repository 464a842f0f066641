import { randomBase62 } from '../ids';

/**
 * Requests in flight (SPEC 8.1, 8.3 `lease_ttl_seconds`): each admitted request holds a lease,
 * a token `<expires at ms>:<random>` in its organization's counter document (`l` array). The
 * count of tokens is the number in flight; the update that admits a request only matches while
 * fewer than the limit are present (`l.<limit-1>` does not exist). A finished response pulls
 * its token; a token whose process died is reclaimed once it expires.
 */
export function newLeaseToken(nowMs: number, ttlMs: number): string {
  return `${nowMs + ttlMs}:${randomBase62(12)}`;
}

export function leaseExpiry(token: string): number {
  return Number(token.slice(0, token.indexOf(':')));
}

/** Matches only while fewer than `limit` leases are held. */
export function leaseRoomCondition(limit: number): Record<string, unknown> {
  return { [`l.${limit - 1}`]: { $exists: false } };
}

export function expiredLeases(tokens: string[] | undefined, nowMs: number): string[] {
  return (tokens ?? []).filter((t) => leaseExpiry(t) <= nowMs);
}

/**
 * Retry-After for an in-flight refusal. Usually a slot frees within a second; when every held
 * lease is old (slow requests, or a process that died holding them) the honest answer is the
 * time until the earliest lease expires, which can be up to the lease TTL.
 */
export function inFlightRetryAfterSeconds(tokens: string[], nowMs: number, ttlMs: number, slowAfterMs = 5000): number {
  if (tokens.length === 0) return 1;
  const expiries = tokens.map(leaseExpiry);
  const newestStart = Math.max(...expiries) - ttlMs;
  if (nowMs - newestStart < slowAfterMs) return 1;
  return Math.max(1, Math.ceil((Math.min(...expiries) - nowMs) / 1000));
}

/**
 * Releases leases in small batches: under load many requests of one organization finish
 * within the same few milliseconds, and one `$pullAll` per document and tick costs the store
 * one write instead of many. A release that fails is left to expire.
 */
export class LeaseReleaser {
  private pending = new Map<string, string[]>();
  private flushing = new Set<string>();
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly pull: (docId: string, tokens: string[]) => Promise<void>, private readonly onError: (err: unknown) => void) {}

  release(docId: string, token: string): void {
    const list = this.pending.get(docId);
    if (list) list.push(token);
    else this.pending.set(docId, [token]);
    if (!this.flushing.has(docId)) this.schedule(docId);
  }

  private schedule(docId: string): void {
    this.flushing.add(docId);
    setImmediate(() => {
      const tokens = this.pending.get(docId) ?? [];
      this.pending.delete(docId);
      const p = (tokens.length ? this.pull(docId, tokens) : Promise.resolve())
        .catch(this.onError)
        .finally(() => {
          this.inFlight.delete(p);
          this.flushing.delete(docId);
          if (this.pending.has(docId)) this.schedule(docId);
        });
      this.inFlight.add(p);
    });
  }

  /** Waits until every release asked for so far reached the store (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size || this.inFlight.size || this.flushing.size) {
      await Promise.all([...this.inFlight]);
      await new Promise((r) => setImmediate(r));
    }
  }
}
