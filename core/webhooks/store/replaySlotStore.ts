import { isDuplicateKeyError } from '../../store/connection';
import { WebhookReplaySlot } from '../models';
import type { ReplaySlotRecord } from './records';

/** The replay slots of endpoints (core/webhooks/replayAllowance.ts holds the rule). */

/** Takes the endpoint's least recently used slot last used at or before `freeBefore`; answers it as it was, or null. */
export async function takeSlotUsedBefore(endpointId: string, freeBefore: Date, now: Date): Promise<ReplaySlotRecord | null> {
  return WebhookReplaySlot.findOneAndUpdate(
    { endpointId, usedAt: { $lte: freeBefore } },
    { $set: { usedAt: now } },
    { returnDocument: 'before', sort: { usedAt: 1 } },
  ).lean<ReplaySlotRecord>();
}

export async function slotsOf(endpointId: string): Promise<ReplaySlotRecord[]> {
  return WebhookReplaySlot.find({ endpointId }).lean<ReplaySlotRecord[]>();
}

/** Creates the slot unless it exists. */
export async function createSlot(slot: ReplaySlotRecord): Promise<void> {
  try {
    await WebhookReplaySlot.create(slot);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Puts the slot's last use back to `previousUsedAt` if it is still `usedAt`. */
export async function restoreSlot(slotId: string, usedAt: Date, previousUsedAt: Date): Promise<void> {
  await WebhookReplaySlot.updateOne({ _id: slotId, usedAt }, { $set: { usedAt: previousUsedAt } });
}
