import { randomUUID } from 'node:crypto';

/**
 * Requests in flight (SPEC 8.1, 8.3 `lease_ttl_seconds`): an organization with an in-flight
 * limit of M has M lease slots `l:<org>:<k>`; an admitted request inserts one (a unique insert,
 * so two requests never hold one slot) carrying its expiry and a random token, and deletes it
 * when its response is finished. A slot whose holder died is reclaimed once it expires.
 */
export function leaseSlotId(orgId: string, slot: number): string {
  return `l:${orgId}:${slot}`;
}

/**
 * A holder's token: it only has to differ from every other holder's (a delete matches it so that
 * a slot reclaimed by another holder stays); it grants nothing. A UUID comes from Node's buffered
 * entropy, where random bytes drawn per call cost a few percent of the request path.
 */
export function newLeaseToken(): string {
  return randomUUID();
}

/** Random draws before probeOrder lists the free slots instead: past them most slots are taken here. */
const PROBE_DRAWS_PER_PICK = 4;

/**
 * A few slots to try first, in random order, so concurrent requests rarely collide; slots this
 * process knows are taken (`taken`) are never tried, since an insert there can only fail.
 * Every request calls this, and usually few of its organization's slots are taken here, so it
 * draws slots at random and skips taken ones (each free slot stays equally likely) rather than
 * looking at every slot; only when draws keep hitting taken slots does it list the free ones.
 */
export function probeOrder(limit: number, count: number, random: () => number = Math.random, taken: (slot: number) => boolean = () => false): number[] {
  const picks: number[] = [];
  if (limit <= count * 2) return drawFromFree(limit, count, random, taken, picks);
  for (let draws = 0; picks.length < count && draws < count * PROBE_DRAWS_PER_PICK; draws++) {
    const k = Math.floor(random() * limit);
    if (!picks.includes(k) && !taken(k)) picks.push(k);
  }
  return picks.length < count ? drawFromFree(limit, count, random, taken, picks) : picks;
}

/** Adds to `picks` free slots drawn at random from a list of every free slot not picked yet. */
function drawFromFree(limit: number, count: number, random: () => number, taken: (slot: number) => boolean, picks: number[]): number[] {
  const candidates = Array.from({ length: limit }, (_, k) => k).filter((k) => !picks.includes(k) && !taken(k));
  while (picks.length < count && candidates.length) picks.push(candidates.splice(Math.floor(random() * candidates.length), 1)[0]);
  return picks;
}

/**
 * True when every one of the `limit` slots is held by this process (`heldHere`): the store holds
 * them all too, so a probe could only be refused. Checked from slot 0, so the usual answer (slot
 * 0 is free) costs one lookup.
 */
export function everySlotHeldHere(limit: number, heldHere: (slot: number) => boolean): boolean {
  for (let k = 0; k < limit; k++) if (!heldHere(k)) return false;
  return true;
}

/**
 * The lease slots this process holds, is taking (its insert is on the way) or is still giving
 * back, counted per slot id: a hint that keeps probes off them. The store's unique insert stays
 * what decides who holds a slot.
 */
export class SlotsHeldHere {
  private readonly held = new Map<string, number>();

  has(slotId: string): boolean {
    return this.held.has(slotId);
  }

  add(slotId: string): void {
    this.held.set(slotId, (this.held.get(slotId) ?? 0) + 1);
  }

  /** After the slot's release reached the store (or failed: the lease then expires there). */
  remove(slotId: string): void {
    const n = this.held.get(slotId) ?? 0;
    if (n <= 1) this.held.delete(slotId);
    else this.held.set(slotId, n - 1);
  }
}

export interface HeldLease {
  slot: number;
  exp: number;
}

/** Slots below the limit not held by a live lease, when fewer than `limit` live leases exist. */
export function freeLeaseSlots(held: HeldLease[], limit: number, nowMs: number): number[] {
  const live = held.filter((h) => h.exp > nowMs);
  if (live.length >= limit) return [];
  const taken = new Set(live.map((h) => h.slot));
  return Array.from({ length: limit }, (_, k) => k).filter((k) => !taken.has(k));
}

/**
 * Retry-After for an in-flight refusal. Usually a slot frees within a second; when every held
 * lease is old (slow requests, or a process that died holding them) the honest answer is the
 * time until the earliest lease expires, which can be up to the lease TTL.
 */
export function inFlightRetryAfterSeconds(expiries: number[], nowMs: number, ttlMs: number, slowAfterMs = 5000): number {
  if (expiries.length === 0) return 1;
  const newestStart = Math.max(...expiries) - ttlMs;
  if (nowMs - newestStart < slowAfterMs) return 1;
  return Math.max(1, Math.ceil((Math.min(...expiries) - nowMs) / 1000));
}

/**
 * Releases leases in small batches: under load many requests finish within the same few
 * milliseconds, and one delete per tick costs the store one write instead of many. A release
 * that fails is left to expire.
 *
 * A lease is normally deleted only where its token still matches, because once it expired another
 * holder may have reclaimed the slot. Before its `byIdUntil` (half its TTL: no replica can have
 * reclaimed it unless their clocks differ by that much) it is deleted by `_id` alone, which a store
 * can do without reading the slot first; nearly every request finishes long before that.
 */
export class LeaseReleaser {
  private pending: Array<{ token: string; slotId: string; byIdUntil?: number }> = [];
  private flushing = false;
  private inFlight = new Set<Promise<void>>();

  /**
   * `remove` gets the tokens and slot ids of the leases to delete where the token matches, and the
   * slot ids to delete by `_id` alone. Releases asked for within `gatherMs` of the first go in one
   * batch: a lease then stays held that much longer, which only ever refuses, never admits, more.
   */
  constructor(
    private readonly remove: (tokens: string[], slotIds: string[], byId: string[]) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly gatherMs = 0,
    private readonly now: () => number = Date.now,
  ) {}

  release(token: string, slotId: string, byIdUntil?: number): void {
    this.pending.push({ token, slotId, byIdUntil });
    if (!this.flushing) this.schedule();
  }

  private schedule(): void {
    this.flushing = true;
    const later = (send: () => void) => (this.gatherMs > 0 ? setTimeout(send, this.gatherMs) : setImmediate(send));
    later(() => {
      const batch = this.pending.splice(0);
      const t = this.now();
      const byId: typeof batch = [];
      const byToken: typeof batch = [];
      for (const b of batch) (b.byIdUntil !== undefined && t < b.byIdUntil ? byId : byToken).push(b);
      const p = (
        batch.length
          ? this.remove(
              byToken.map((b) => b.token),
              byToken.map((b) => b.slotId),
              byId.map((b) => b.slotId),
            )
          : Promise.resolve()
      )
        .catch(this.onError)
        .finally(() => {
          this.inFlight.delete(p);
          this.flushing = false;
          if (this.pending.length) this.schedule();
        });
      this.inFlight.add(p);
    });
  }

  /** Waits until every release asked for so far reached the store (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.pending.length || this.inFlight.size || this.flushing) {
      await Promise.all([...this.inFlight]);
      await new Promise((r) => setImmediate(r));
    }
  }
}
