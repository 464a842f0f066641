import type { Logger } from '../observability/logger';
import { EXACT_LEASES_UP_TO, LeaseBlockPool, WindowBlockPool, windowBlockSize, leaseBlockSize, type LeaseBlock, type WindowBlock } from './admissionBlocks';
import {
  everySlotHeldHere,
  freeLeaseSlots,
  inFlightRetryAfterSeconds,
  leaseSlotId,
  LeaseReleaser,
  newLeaseToken,
  probeOrder,
  SlotsHeldHere,
  type HeldLease,
} from './inFlightLeases';
import type { OperationName } from './limitTable';
import { freeSlotIds, secondsUntilNextWindow, windowSecond, windowSlotId, windowSlotIds, WindowSlotsTakenHere } from './strictWindow';
import { errorMessage } from '../observability/errorMessage';
import type { LimitsStore } from './store';

/**
 * Admission against the store (SPEC 8.1): the organization's strict per-second window and its
 * in-flight leases, and each operation's own window. Every admission is a unique insert (see
 * strictWindow.ts for why). At the default limits nothing in process memory is authoritative:
 * the only thing a process remembers is which slot to try first. Limits an operator raised far
 * above the defaults are admitted in blocks of slots (admissionBlocks.ts).
 *
 * The key, key-family and application windows of SPEC 8.1 item 1 have the same limit as the
 * organization's and their requests are a subset of the organization's, so the organization
 * window bounds them exactly; they are reported, not counted separately.
 */
export const requestScopeKey = (orgId: string) => `req:${orgId}`;
export const operationScopeKey = (orgId: string, operation: OperationName) => `op:${orgId}:${operation}`;

/** Every this many seconds old windows are also deleted by their second: slots a replica that stopped took. */
const SWEEP_EVERY_SECONDS = 60;
/** Slots per sweep: more (after a long outage) wait for the next one. */
const SWEEP_LIMIT = 10_000;
/**
 * Slot ids per delete, and one delete at a time: a purge of thousands of slots in one command held
 * the local store's write lock long enough to delay every admission insert queued behind it (at
 * 1,000 req/s, a slow stretch at every purge). Small deletes in turn let inserts in between.
 */
const PURGE_BATCH = 100;
/** Organizations whose names (scope key, lease slot ids) are kept, built once per organization. */
const KNOWN_ORGS = 10_000;
/**
 * How long a release waits for others to share its delete: the store's cost is mostly per command,
 * and the lease stays held that much longer, which only ever refuses, never admits, more.
 */
const RELEASE_GATHER_MS = 8;
/**
 * How long after one slot-insert command the next may go (GroupedInserts): under load the inserts
 * asked for meanwhile, every organization's, share one command; after a quiet spell an insert goes
 * at once. It adds at most this much to an admission, and only while inserts keep coming.
 */
const INSERT_SPACING_MS = 3;

export interface WindowTaken {
  slotId: string;
  /** Set when the slot came from a block this process holds. */
  block?: WindowBlock;
  /** The window (scope and second) and slot index of an exact window's slot. */
  window?: { key: string; index: number };
}

type WindowAdmitted = { admitted: true; taken: WindowTaken; limit: number; count: number };

export type WindowAdmission = WindowAdmitted | { admitted: false; retryAfterSeconds: number; limit: number; count: number };

export interface Lease {
  slotId: string;
  token: string;
  /** Set when the place is in a lease block this process holds. */
  block?: LeaseBlock;
  /** Until then its release deletes the slot by `_id` alone (LeaseReleaser). */
  releaseByIdUntil?: number;
}

export type LeaseAdmission = { admitted: true; lease: Lease } | { admitted: false; retryAfterSeconds: number; held: number };

type StoreLeaseAdmission = { admitted: true; lease: Lease; index: number; expiresAt: number } | { admitted: false; retryAfterSeconds: number; held: number };

export type RequestAdmission =
  | { admitted: true; lease: Lease; taken: WindowTaken; limit: number; count: number }
  | {
      admitted: false;
      reason: 'request_rate' | 'in_flight';
      retryAfterSeconds: number;
      limit: number;
      count: number;
      /** The lease a request refused by its rate took and is giving back (its release is on its way). */
      givenBack?: Lease;
    };

/** What an organization's every request names in admission (StoreAdmission keeps one per organization). */
interface OrganizationNames {
  requestScopeKey: string;
  /** Made on the first request held to an exact in-flight limit. */
  leaseSlotIds?: readonly string[];
}

/** A request's place in a lease block (named field by field: a spread of the block's lease costs more than the rest of a fast admission). */
function leaseInBlock(block: LeaseBlock): Lease {
  return { slotId: block.lease.slotId, token: block.lease.token, block };
}

/** The store slot of a window block: the first slot's id, marked with the block's size. */
function blockSlotId(scopeKey: string, second: number, size: number, index: number): string {
  return `${windowSlotId(scopeKey, second, index)}:b${size}`;
}

async function deleteInTurns(limits: LimitsStore, slotIds: string[], warn: (err: unknown) => void): Promise<void> {
  for (let i = 0; i < slotIds.length; i += PURGE_BATCH) await limits.deleteWindowSlots(slotIds.slice(i, i + PURGE_BATCH)).catch(warn);
}

/**
 * Every lease slot an organization can hold, whatever its limit was when they were taken: one
 * per request up to EXACT_LEASES_UP_TO, one per block above it (never more blocks than that).
 * Read by `_id` because that is an index lookup on every store; a filter on `org` scans the
 * collection on FerretDB 1.x, and under load that scan is what a refused probe falls back to.
 */
function leaseSlotIdsOf(orgId: string): readonly string[] {
  return Array.from({ length: EXACT_LEASES_UP_TO }, (_, k) => leaseSlotId(orgId, k));
}

/** Leases an organization holds now, expired ones included (diagnostics, tests). */
export async function heldLeases(limits: LimitsStore, orgId: string): Promise<HeldLease[]> {
  return (await limits.leasesByIds(leaseSlotIdsOf(orgId))).map((d) => ({ slot: d.slot, exp: d.exp }));
}

/**
 * One app's admission against the store: what it remembers between requests (which slot to try
 * first, the slots its own requests hold, the blocks it took, the windows it must purge, the
 * releases it gathers) is only ever a hint or its own holdings; the store decides. The app's
 * composition root builds one (core/deps.ts) and closes it at shutdown.
 *
 * `now` is the clock its windows, leases and per-minute caps are judged by: the wall clock, or
 * one a test moves to put requests in the seconds it chooses.
 */
export class StoreAdmission {
  constructor(
    /** The app's limits store, which the operations' per-minute caps are counted in too. */
    readonly limits: LimitsStore,
    readonly now: () => number,
    private readonly logger: Logger,
  ) {
    this.slotInserts = limits.createSlotInserts(INSERT_SPACING_MS);
  }

  /**
   * Every slot is still taken by its own unique insert; inserts asked for together (a request's
   * window slot and lease, and concurrent requests' slots) travel to the store as one command
   * (groupedInserts.ts), so under load the store pays one command per round trip, not per slot.
   */
  private readonly slotInserts: ReturnType<LimitsStore['createSlotInserts']>;
  /** Which slot to try first per window: a hint only, the store decides. */
  private readonly slotHints = new Map<string, number>();
  /**
   * Per window of the current second, the slot indexes known taken (won here, or lost to another
   * insert), less those given back: what a RateLimit header reports as used. Exact with one
   * replica; with several, each knows the slots it ran into.
   */
  private readonly windowOccupancy = new Map<string, Set<number>>();
  /** Per scope whose window is in blocks (limits raised far above the defaults): what this process last saw left, and in which second. */
  private readonly blockWindowLeft = new Map<string, { second: number; left: number }>();
  private hintSecond = 0;
  private purgedSecond = 0;
  private sweptSecond = 0;
  private readonly takenHere = new WindowSlotsTakenHere();
  private purging: Promise<void> = Promise.resolve();
  private readonly windowBlocks = new WindowBlockPool((scopeKey, second, size, index) =>
    this.insertWindowSlot(blockSlotId(scopeKey, second, size, index), second),
  );
  /**
   * What every request of an organization names, built once per organization and kept (a bounded
   * number): its window's scope key, and the lease slot ids every request's probe looks up.
   */
  private readonly organizations = new Map<string, OrganizationNames>();
  /** Slots this app's requests hold: probes skip them, so under load they rarely fall back to a read. */
  private readonly slotsHeldHere = new SlotsHeldHere();
  readonly leaseReleaser = new LeaseReleaser(
    async (tokens, slotIds, byId) => {
      // By _id (an index lookup on every store); where the lease may have expired, only where the
      // token still matches: a slot reclaimed by another holder stays.
      try {
        await Promise.all([
          slotIds.length ? this.limits.deleteLeasesHeldBy(slotIds, tokens) : undefined,
          byId.length ? this.limits.deleteLeases(byId) : undefined,
        ]);
      } finally {
        for (const slotId of slotIds) this.slotsHeldHere.remove(slotId);
        for (const slotId of byId) this.slotsHeldHere.remove(slotId);
      }
    },
    (err) => this.logger.warn({ err: { message: errorMessage(err) } }, 'lease release failed; the lease will expire'),
    // Under load, releases that finish within a few milliseconds share one delete.
    RELEASE_GATHER_MS,
    // Read when the releases go out: field initializers run before the constructor sets `now`.
    () => this.now(),
  );
  private readonly leaseBlocks = new LeaseBlockPool(
    (orgId, blocks, ttlMs, now) => this.acquireStoreLease(orgId, blocks, ttlMs, now),
    (lease) => this.leaseReleaser.release(lease.token, lease.slotId),
  );

  // ---- strict window ----

  /** Once a second: the windows this app took that are more than two seconds old. */
  private purgeOldWindows(second: number): void {
    if (second === this.purgedSecond) return;
    this.purgedSecond = second;
    const warn = (err: unknown) => this.logger.warn({ err: { message: errorMessage(err) } }, 'could not purge old request windows');
    const old = this.takenHere.takeOld(second);
    if (old.length) this.purging = this.purging.then(() => deleteInTurns(this.limits, old, warn));
    if (second - this.sweptSecond < SWEEP_EVERY_SECONDS) return;
    this.sweptSecond = second;
    // Found by a read, then deleted in turns by `_id`: a delete by second would hold the write lock
    // while FerretDB reads every slot.
    this.purging = this.purging.then(async () => {
      const stale = await this.limits.staleWindowSlotIds(second - 2, SWEEP_LIMIT).catch((err: unknown) => (warn(err), []));
      await deleteInTurns(this.limits, stale, warn);
    });
  }

  /** Inserts a window slot; the ones taken are remembered so that they are purged by `_id`. */
  private async insertWindowSlot(slotId: string, second: number): Promise<boolean> {
    const won = await this.slotInserts.insertOnce({ _id: slotId, s: second });
    if (won) this.takenHere.add(second, slotId);
    return won;
  }

  /** One more request in a scope's strict one-second window, or a refusal that writes nothing. */
  async admitWindow(scopeKey: string, limit: number, now: () => number = this.now): Promise<WindowAdmission> {
    const t = now();
    const second = windowSecond(t);
    if (second !== this.hintSecond) {
      this.slotHints.clear();
      this.windowOccupancy.clear();
      this.blockWindowLeft.clear();
      this.hintSecond = second;
    }
    if (windowBlockSize(limit) > 1) {
      this.purgeOldWindows(windowSecond(now()));
      const got = await this.windowBlocks.admit(scopeKey, limit, () => windowSecond(now()));
      this.noteBlockWindowLeft(scopeKey, windowSecond(now()), got ? limit - got.count : 0);
      if (got) return this.admittedFromBlock(got, limit);
      return { admitted: false, retryAfterSeconds: secondsUntilNextWindow(now()), limit, count: limit };
    }
    this.purgeOldWindows(second);
    const hints = this.slotHints;
    const hintKey = `${scopeKey}:${second}`;
    let occupied = this.windowOccupancy.get(hintKey);
    if (!occupied) this.windowOccupancy.set(hintKey, (occupied = new Set()));
    for (let k = hints.get(hintKey) ?? 0; k < limit; k = Math.max(k + 1, hints.get(hintKey) ?? 0)) {
      // Moved on before the insert: requests of this app asking at the same moment try the
      // next slots, instead of all trying slot k and then k+1 one round trip after another. (Never
      // backwards: the hints are cleared when a new second begins, maybe during this insert.)
      hints.set(hintKey, Math.max(k + 1, hints.get(hintKey) ?? 0));
      const slotId = windowSlotId(scopeKey, second, k);
      const won = await this.insertWindowSlot(slotId, second);
      occupied.add(k);
      if (won) return { admitted: true, taken: { slotId, window: { key: hintKey, index: k } }, limit, count: occupied.size };
    }
    // Every slot looked taken; slots given back by refused requests leave holes, so ask the store.
    const all = windowSlotIds(scopeKey, second, limit);
    const taken = new Set(await this.limits.takenWindowSlotIds(all));
    occupied.clear();
    all.forEach((id, k) => taken.has(id) && occupied.add(k));
    for (const slotId of freeSlotIds(all, taken)) {
      const k = all.indexOf(slotId);
      const won = await this.insertWindowSlot(slotId, second);
      occupied.add(k);
      if (won) return { admitted: true, taken: { slotId, window: { key: hintKey, index: k } }, limit, count: occupied.size };
    }
    return { admitted: false, retryAfterSeconds: secondsUntilNextWindow(now()), limit, count: limit };
  }

  private noteBlockWindowLeft(scopeKey: string, second: number, left: number): void {
    const seen = this.blockWindowLeft.get(scopeKey);
    if (!seen) this.blockWindowLeft.set(scopeKey, { second, left });
    else {
      seen.second = second;
      seen.left = left;
    }
  }

  private admittedFromBlock(got: { block: WindowBlock; count: number }, limit: number): WindowAdmitted {
    const b = got.block;
    b.slotId ??= blockSlotId(b.scopeKey, b.second, b.size, b.index);
    return { admitted: true, taken: { slotId: b.slotId, block: b }, limit, count: got.count };
  }

  /** Gives back a window slot taken by a request that a later check refused (refusals consume nothing). */
  async returnWindowSlot(taken: WindowTaken): Promise<void> {
    if (taken.block) {
      const seen = this.blockWindowLeft.get(taken.block.scopeKey);
      if (seen && seen.second === taken.block.second) seen.left++;
      return this.windowBlocks.giveBack(taken.block);
    }
    await this.limits.deleteWindowSlot(taken.slotId);
    if (taken.window) this.windowOccupancy.get(taken.window.key)?.delete(taken.window.index);
  }

  /** What the next request in a scope's window would find left this second (RateLimit `r`). */
  windowRemaining(scopeKey: string, limit: number): number {
    const second = windowSecond(this.now());
    if (windowBlockSize(limit) > 1) {
      const seen = this.blockWindowLeft.get(scopeKey);
      return seen && seen.second === second ? seen.left : limit;
    }
    return Math.max(0, limit - (this.windowOccupancy.get(`${scopeKey}:${second}`)?.size ?? 0));
  }

  /**
   * In-flight places of an organization free once `own` (the asking request's lease, if it holds
   * one) is given back: what the next request would find (RateLimit `r`). Counted from the places
   * this app's requests hold, which is also what its admission refuses on without asking the store.
   */
  inFlightRemaining(orgId: string, limit: number, own?: Lease): number {
    const held =
      leaseBlockSize(limit) > 1
        ? this.leaseBlocks.inUse(orgId)
        : this.everyLeaseSlotId(orgId)
            .slice(0, limit)
            .filter((id) => this.slotsHeldHere.has(id)).length;
    return Math.max(0, Math.min(limit, limit - held + (own ? 1 : 0)));
  }

  // ---- in-flight leases ----

  /** Takes one of the organization's in-flight places; expired slots (their process died) are reclaimed. */
  async acquireLease(orgId: string, limit: number, ttlMs: number, now: () => number = this.now): Promise<LeaseAdmission> {
    if (leaseBlockSize(limit) > 1) {
      const got = await this.leaseBlocks.acquire(orgId, limit, ttlMs, now);
      if (!got.admitted) return { admitted: false, retryAfterSeconds: got.retryAfterSeconds, held: limit };
      return { admitted: true, lease: leaseInBlock(got.block) };
    }
    const got = await this.acquireStoreLease(orgId, limit, ttlMs, now);
    return got.admitted ? { admitted: true, lease: got.lease } : got;
  }

  /**
   * True when every one of a scope's `limit` places (leases of one slot each) is held by this
   * app's own holders, so that the store could only refuse: a caller may refuse before doing any
   * other work. Always false for limits held in blocks.
   */
  everyPlaceHeldHere(scopeKey: string, limit: number): boolean {
    if (leaseBlockSize(limit) > 1) return false;
    const slotIds = this.everyLeaseSlotId(scopeKey);
    return everySlotHeldHere(limit, (k) => this.slotsHeldHere.has(slotIds[k]));
  }

  /** Finishes a request's hold on its in-flight place. */
  releaseLease(lease: Lease): void {
    if (lease.block) this.leaseBlocks.release(lease.block, this.now());
    else this.leaseReleaser.release(lease.token, lease.slotId, lease.releaseByIdUntil);
  }

  /**
   * Deletes every window slot this admission took, the current second's too, and waits for it.
   * Only for an admission whose scopes no one else admits in (a warm-up's synthetic
   * organizations): a live scope's slots of this second must stay, or another replica could admit
   * more than the limit.
   */
  async deleteEveryWindowSlot(): Promise<void> {
    const warn = (err: unknown) => this.logger.warn({ err: { message: errorMessage(err) } }, 'could not delete request windows');
    await this.purging;
    await deleteInTurns(this.limits, this.takenHere.takeOld(Infinity), warn);
  }

  /** Gives back every place this app holds in blocks and waits for the releases (shutdown, tests). */
  async close(): Promise<void> {
    this.leaseBlocks.releaseIdle();
    await this.leaseReleaser.drain();
  }

  private organization(orgId: string): OrganizationNames {
    let names = this.organizations.get(orgId);
    if (!names) {
      if (this.organizations.size >= KNOWN_ORGS) this.organizations.clear();
      names = { requestScopeKey: requestScopeKey(orgId) };
      this.organizations.set(orgId, names);
    }
    return names;
  }

  private everyLeaseSlotId(orgId: string): readonly string[] {
    const names = this.organization(orgId);
    return (names.leaseSlotIds ??= leaseSlotIdsOf(orgId));
  }

  /** The organization's strict window's scope key (requestScopeKey), made once per organization. */
  requestScopeKeyOf(orgId: string): string {
    return this.organization(orgId).requestScopeKey;
  }

  /** One store slot of `slots`, by unique insert; expired ones are reclaimed. */
  private async acquireStoreLease(orgId: string, slots: number, ttlMs: number, now: () => number): Promise<StoreLeaseAdmission> {
    const limit = slots;
    const token = newLeaseToken();
    const slotIds = this.everyLeaseSlotId(orgId);
    const heldHere = this.slotsHeldHere;
    // Every place is held by this app's own holders: the store could only refuse.
    if (everySlotHeldHere(limit, (k) => heldHere.has(slotIds[k]))) return { admitted: false, retryAfterSeconds: 1, held: limit };
    const take = async (slot: number): Promise<StoreLeaseAdmission | undefined> => {
      const slotId = slotIds[slot];
      // Taken or being taken by another request of this app: the insert could only fail.
      if (heldHere.has(slotId)) return undefined;
      // Marked before the insert, so that concurrent requests here probe other slots and do not fall
      // back to reading the organization's leases because they collided with each other.
      heldHere.add(slotId);
      const takenAt = now();
      const exp = takenAt + ttlMs;
      let won = false;
      try {
        won = await this.slotInserts.insertOnce({ _id: slotId, org: orgId, slot, exp, token });
      } finally {
        if (!won) heldHere.remove(slotId);
      }
      return won ? { admitted: true, lease: { slotId, token, releaseByIdUntil: takenAt + ttlMs / 2 }, index: slot, expiresAt: exp } : undefined;
    };
    for (const slot of probeOrder(limit, 2, Math.random, (k) => heldHere.has(slotIds[k]))) {
      const lease = await take(slot);
      if (lease) return lease;
    }
    for (let round = 0; round < 3; round++) {
      const held = await this.limits.leasesByIds(slotIds);
      const t = now();
      const expired = held.filter((h) => h.exp <= t);
      if (expired.length)
        await this.limits.deleteLeasesHeldBy(
          expired.map((h) => h._id),
          expired.map((h) => h.token),
        );
      const free = freeLeaseSlots(held, limit, t);
      if (free.length === 0) {
        const live = held.filter((h) => h.exp > t);
        return {
          admitted: false,
          retryAfterSeconds: inFlightRetryAfterSeconds(
            live.map((h) => h.exp),
            t,
            ttlMs,
          ),
          held: live.length,
        };
      }
      for (const slot of free) {
        const lease = await take(slot);
        if (lease) return lease;
      }
    }
    return { admitted: false, retryAfterSeconds: 1, held: limit };
  }

  // ---- both, for every request ----

  /**
   * admitRequest's admission when both of the organization's limits are held in blocks and this
   * app's blocks have room for one more: taken at once, with no store command and nothing to wait
   * for. Undefined whenever the answer needs more (a new block, a new second, an exact limit, a
   * refusal): then admitRequest decides, having taken nothing here.
   */
  admitRequestNow(input: { orgId: string; requestsPerSecond: number; maxConcurrency: number; leaseTtlMs: number }): RequestAdmission | undefined {
    if (windowBlockSize(input.requestsPerSecond) === 1 || leaseBlockSize(input.maxConcurrency) === 1) return undefined;
    const t = this.now();
    const second = windowSecond(t);
    // The first admission of a second (admitWindow) starts it: hints cleared, old windows purged.
    if (second !== this.hintSecond) return undefined;
    const scopeKey = this.organization(input.orgId).requestScopeKey;
    const got = this.windowBlocks.admitNow(scopeKey, input.requestsPerSecond, second);
    if (!got) return undefined;
    const block = this.leaseBlocks.acquireNow(input.orgId, input.leaseTtlMs, t);
    if (!block) {
      this.windowBlocks.giveBack(got.block);
      return undefined;
    }
    this.noteBlockWindowLeft(scopeKey, second, input.requestsPerSecond - got.count);
    const w = this.admittedFromBlock(got, input.requestsPerSecond);
    return { admitted: true, lease: leaseInBlock(block), taken: w.taken, limit: w.limit, count: w.count };
  }

  /**
   * Admits one request of an organization against its request rate and in-flight limit (both
   * asked at once), or refuses it; whichever of the two admitted a refused request is given back.
   */
  async admitRequest(input: {
    orgId: string;
    requestsPerSecond: number;
    maxConcurrency: number;
    leaseTtlMs: number;
    now?: () => number;
  }): Promise<RequestAdmission> {
    // Every in-flight place of the organization is held by this app's own requests, so the store
    // would refuse: refuse without a store command. An overloaded replica, whose requests wait long
    // enough to fill the limit, then sheds the excess for free instead of feeding the store more.
    const slotIds = this.everyLeaseSlotId(input.orgId);
    if (leaseBlockSize(input.maxConcurrency) === 1 && everySlotHeldHere(input.maxConcurrency, (k) => this.slotsHeldHere.has(slotIds[k])))
      return { admitted: false, reason: 'in_flight', retryAfterSeconds: 1, limit: input.requestsPerSecond, count: input.requestsPerSecond };
    const [ws, ls] = await Promise.allSettled([
      this.admitWindow(this.organization(input.orgId).requestScopeKey, input.requestsPerSecond, input.now),
      this.acquireLease(input.orgId, input.maxConcurrency, input.leaseTtlMs, input.now),
    ]);
    if (ws.status === 'rejected' || ls.status === 'rejected') {
      // A store error on one side: give back what the other took, or its place would stay taken
      // (a lease until its TTL in the store, and here for good: this app would skip the slot).
      if (ws.status === 'fulfilled' && ws.value.admitted) await this.returnWindowSlot(ws.value.taken).catch(() => undefined);
      if (ls.status === 'fulfilled' && ls.value.admitted) this.releaseLease(ls.value.lease);
      throw ws.status === 'rejected' ? ws.reason : (ls as PromiseRejectedResult).reason;
    }
    const w = ws.value;
    const l = ls.value;
    if (w.admitted && l.admitted) return { admitted: true, lease: l.lease, taken: w.taken, limit: w.limit, count: w.count };
    if (w.admitted) await this.returnWindowSlot(w.taken);
    if (l.admitted) this.releaseLease(l.lease);
    if (!w.admitted)
      return {
        admitted: false,
        reason: 'request_rate',
        retryAfterSeconds: w.retryAfterSeconds,
        limit: w.limit,
        count: w.count,
        givenBack: l.admitted ? l.lease : undefined,
      };
    return { admitted: false, reason: 'in_flight', retryAfterSeconds: (l as { retryAfterSeconds: number }).retryAfterSeconds, limit: w.limit, count: w.count };
  }
}
