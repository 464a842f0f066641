import type { UserStores } from './store';

/**
 * A limit of `limit` counted attempts per `ttlMs` for one scope (an account, a client address),
 * shared by every replica: each attempt takes one of `limit` slot documents by a unique insert
 * and holds it until it expires, so the limit is exact under concurrency. An attempt that should not count gives its slot back.
 */
export type SlotVerdict = { ok: true; slotId: string } | { ok: false; retryAfterSeconds: number };

export function slotIds(scope: string, limit: number): string[] {
  return Array.from({ length: limit }, (_, k) => `${scope}:${k}`);
}

/** Seconds until the earliest live slot expires (at least 1). */
export function secondsUntilFree(expiries: readonly Date[], now: Date): number {
  const earliest = Math.min(...expiries.map((d) => d.getTime()));
  return Math.max(1, Math.ceil((earliest - now.getTime()) / 1000));
}

export async function takeSlot(stores: UserStores, scope: string, limit: number, ttlMs: number, now: Date): Promise<SlotVerdict> {
  const ids = slotIds(scope, limit);
  const existing = await stores.users.findAttemptSlots(ids);
  const byId = new Map(existing.map((s) => [s._id, s]));
  const expiresAt = new Date(now.getTime() + ttlMs);
  for (const id of ids) {
    const held = byId.get(id);
    if (held && held.expiresAt > now) continue;
    // An expired slot is deleted (only if still expired) before it is taken again.
    if (held) await stores.users.deleteExpiredAttemptSlot(id, now);
    if (await stores.users.insertAttemptSlot(id, expiresAt)) return { ok: true, slotId: id };
  }
  const live = await stores.users.liveAttemptSlots(ids, now);
  return {
    ok: false,
    retryAfterSeconds: live.length
      ? secondsUntilFree(
          live.map((s) => s.expiresAt),
          now,
        )
      : 1,
  };
}

export async function releaseSlot(stores: UserStores, slotId: string): Promise<void> {
  await stores.users.deleteAttemptSlot(slotId);
}

/** A one-time marker (e.g. a used setup token): true for exactly one caller. */
export async function claimOnce(stores: UserStores, id: string, expiresAt: Date): Promise<boolean> {
  return stores.users.insertAttemptSlot(id, expiresAt);
}
