import { isDuplicateKeyError } from '../../store/connection';
import type { WebhookModels } from '../models';
import type { ReplaySlotRecord } from './records';

/** The replay slots of endpoints (core/webhooks/replayAllowance.ts holds the rule). */

/** ReplaySlotStore on the root's models (built by core/webhooks/store/webhookStore.ts). */
export function createReplaySlotStore(models: WebhookModels) {
  /** Takes the endpoint's least recently used slot last used at or before `freeBefore`; answers it as it was, or null. */
  async function takeSlotUsedBefore(endpointId: string, freeBefore: Date, now: Date): Promise<ReplaySlotRecord | null> {
    return models.replaySlots
      .findOneAndUpdate({ endpointId, usedAt: { $lte: freeBefore } }, { $set: { usedAt: now } }, { returnDocument: 'before', sort: { usedAt: 1 } })
      .lean<ReplaySlotRecord>();
  }

  async function slotsOf(endpointId: string): Promise<ReplaySlotRecord[]> {
    return models.replaySlots.find({ endpointId }).lean<ReplaySlotRecord[]>();
  }

  /** Creates the slot unless it exists. */
  async function createSlot(slot: ReplaySlotRecord): Promise<void> {
    try {
      await models.replaySlots.create(slot);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }

  /** Puts the slot's last use back to `previousUsedAt` if it is still `usedAt`. */
  async function restoreSlot(slotId: string, usedAt: Date, previousUsedAt: Date): Promise<void> {
    await models.replaySlots.updateOne({ _id: slotId, usedAt }, { $set: { usedAt: previousUsedAt } });
  }

  return { takeSlotUsedBefore, slotsOf, createSlot, restoreSlot };
}
