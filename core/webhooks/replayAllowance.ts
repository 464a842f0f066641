import type { WebhookStores } from './store/webhookStore';

/**
 * Replay allowance (SPEC 8.1): 10 replays per endpoint in any trailing hour. Ten slot records
 * per endpoint; a replay atomically takes a slot last used more than an hour ago, so two API
 * replicas and concurrent requests can never exceed the allowance.
 */
export const REPLAYS_PER_HOUR = 10;
export const REPLAY_ALLOWANCE_WINDOW_MS = 3600 * 1000;

export type SlotVerdict = { ok: true; slotId: string; previousUsedAt: Date; usedAt: Date } | { ok: false; retryAfterSeconds: number };

/** Seconds until the oldest use leaves the trailing hour (the Retry-After of a refusal). */
export function retryAfterSeconds(usedAts: readonly Date[], now: Date): number {
  const oldest = Math.min(...usedAts.map((d) => d.getTime()));
  return Math.max(1, Math.ceil((oldest + REPLAY_ALLOWANCE_WINDOW_MS - now.getTime()) / 1000));
}

function claim(stores: WebhookStores, endpointId: string, now: Date) {
  return stores.webhooks.replaySlots.takeSlotUsedBefore(endpointId, new Date(now.getTime() - REPLAY_ALLOWANCE_WINDOW_MS), now);
}

export async function takeReplaySlot(stores: WebhookStores, endpointId: string, now: Date): Promise<SlotVerdict> {
  let prev = await claim(stores, endpointId, now);
  if (!prev) {
    const slots = await stores.webhooks.replaySlots.slotsOf(endpointId);
    if (slots.length < REPLAYS_PER_HOUR) {
      const have = new Set(slots.map((s) => s._id));
      const missing = Array.from({ length: REPLAYS_PER_HOUR }, (_, i) => `${endpointId}:${i}`).filter((id) => !have.has(id));
      for (const id of missing) await stores.webhooks.replaySlots.createSlot({ _id: id, endpointId, usedAt: new Date(0) });
      prev = await claim(stores, endpointId, now);
    }
    if (!prev) {
      const all = await stores.webhooks.replaySlots.slotsOf(endpointId);
      return {
        ok: false,
        retryAfterSeconds: retryAfterSeconds(
          all.map((s) => s.usedAt),
          now,
        ),
      };
    }
  }
  return { ok: true, slotId: prev._id, previousUsedAt: prev.usedAt, usedAt: now };
}

/** Gives a slot back when the replay it was taken for did not happen. */
export async function releaseReplaySlot(stores: WebhookStores, slot: { slotId: string; previousUsedAt: Date; usedAt: Date }): Promise<void> {
  await stores.webhooks.replaySlots.restoreSlot(slot.slotId, slot.usedAt, slot.previousUsedAt);
}

/** Uses in the trailing hour counted from the slots' last use times: what is left, and when the next one frees when none is. */
export function allowanceFrom(usedAts: readonly Date[], now: Date): { left: number; nextAllowedAt: Date | null } {
  const inWindow = usedAts.filter((d) => now.getTime() - d.getTime() < REPLAY_ALLOWANCE_WINDOW_MS);
  const left = Math.max(0, REPLAYS_PER_HOUR - inWindow.length);
  if (left > 0) return { left, nextAllowedAt: null };
  return { left, nextAllowedAt: new Date(now.getTime() + retryAfterSeconds(inWindow, now) * 1000) };
}

/** The endpoint's replays left in the trailing hour, as a page shows them before anyone asks for one. */
export async function replayAllowanceOf(stores: WebhookStores, endpointId: string, now: Date): Promise<{ left: number; nextAllowedAt: Date | null }> {
  const slots = await stores.webhooks.replaySlots.slotsOf(endpointId);
  return allowanceFrom(
    slots.map((s) => s.usedAt),
    now,
  );
}
