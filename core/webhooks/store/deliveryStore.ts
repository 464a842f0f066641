import { isDuplicateKeyError } from '../../store/connection';
import { deliveryIdOf } from '../deliveryNumbering';
import type { DeliveryStatus } from '../deliveryStatus';
import type { DeliveryHeadRecord, HealthDayRecord, WebhookModels } from '../models';
import { typedCollection } from '../../store/typedCollection';
import type { AttemptKey, DeliveryRecord } from './records';

/**
 * Delivery records, attempt claims, each workspace's delivery number and its health counters
 * (the rules: webhookDeliveries.ts, webhookHealth.ts). Records are read by id wherever a list
 * is long: FerretDB 1.x pushes only `_id` look-ups and string equality down to SQLite and
 * sorts in memory (docs/local-store.md).
 */

export type NewDelivery = Omit<DeliveryRecord, '_id' | 'seq' | 'createdAt' | 'updatedAt'>;

const RECORD_TRIES = 5;

export interface DeliveryFilterFields {
  endpointId?: string;
  status?: DeliveryStatus;
}

// ---- health counters ------------------------------------------------------------------------

export interface HealthCounts {
  failed: number;
  deadLettered: number;
}

export const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
const dayOf = (hourStartMs: number) => Math.floor(hourStartMs / DAY_MS) * DAY_MS;
const healthDayId = (workspaceId: string, dayStartMs: number) => `${workspaceId}:${dayStartMs}`;
const hourOfDay = (hourStartMs: number) => Math.floor((hourStartMs - dayOf(hourStartMs)) / HOUR_MS);

// ---- bulk set-up (benchmarks) ---------------------------------------------------------------

/** DeliveryStore on the root's models (built by core/webhooks/store/webhookStore.ts). */
export function createDeliveryStore(models: WebhookModels) {
  /** Claims one attempt before its POST: true the first time, false when it was claimed before. */
  async function claimAttempt(key: AttemptKey, now: Date): Promise<boolean> {
    try {
      await models.attemptClaims.create({ _id: `${key.eventId}:${key.replay}:${key.attempt}`, claimedAt: now });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /** The claimed attempts of an event, as `{replay, attempt}` (the dev listener's view). */
  async function claimedAttemptsOf(eventId: string): Promise<Array<{ replay: number; attempt: number }>> {
    // An id range, not a regex: FerretDB reads ids in order for a range of them.
    const claims = await models.attemptClaims.find({ _id: { $gt: `${eventId}:`, $lt: `${eventId};` } }, { _id: 1 }).lean<Array<{ _id: string }>>();
    return claims.map((c) => {
      const [, replay, attempt] = c._id.split(':');
      return { replay: Number(replay), attempt: Number(attempt) };
    });
  }

  async function deleteAttemptClaimsBefore(before: Date): Promise<number> {
    return (await models.attemptClaims.deleteMany({ claimedAt: { $lte: before } })).deletedCount ?? 0;
  }

  async function findAttempt(key: AttemptKey): Promise<DeliveryRecord | null> {
    return models.deliveries.findOne({ eventId: key.eventId, replay: key.replay, attempt: key.attempt }).lean<DeliveryRecord>();
  }

  /** The workspace's latest delivery number, and whether it may hold records from before the numbering. */
  async function deliveryHead(workspaceId: string): Promise<{ seq: number; legacy: boolean }> {
    const head = await models.deliveryHeads.findById(workspaceId).lean<{ seq: number; legacy?: boolean }>();
    return { seq: head?.seq ?? 0, legacy: head?.legacy !== false };
  }

  async function nextSeq(workspaceId: string): Promise<number> {
    // No projection: FerretDB's findAndModify does not take one.
    const head = await models.deliveryHeads.findOneAndUpdate({ _id: workspaceId }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }).lean<{
      seq: number;
    }>();
    return head!.seq;
  }

  /**
   * Whether the workspace holds records from before the numbering, asked once, when its first
   * number is taken: the lists read those (by a sorted query) only after every numbered one, and
   * only where there are any.
   */
  async function noteLegacy(workspaceId: string): Promise<void> {
    const legacy = Boolean(await models.deliveries.exists({ workspaceId, seq: null }));
    await models.deliveryHeads.updateOne({ _id: workspaceId }, { $set: { legacy } });
  }

  /**
   * Writes the record of a finished attempt under the workspace's next number, once: a second
   * write for the same attempt answers the first (`inserted: false`; the number it took stays
   * unused, a hole the lists step over).
   */
  async function insertNumberedDelivery(record: NewDelivery): Promise<{ record: DeliveryRecord; inserted: boolean }> {
    for (let tries = 1; ; tries++) {
      try {
        const seq = await nextSeq(record.workspaceId);
        if (seq === 1) await noteLegacy(record.workspaceId);
        const doc = await models.deliveries.create({ _id: deliveryIdOf(record.workspaceId, seq), seq, ...record });
        return { record: doc.toObject<DeliveryRecord>(), inserted: true };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const existing = await findAttempt(record);
        if (existing) return { record: existing, inserted: false };
        // Two first attempts of a workspace both upserted its head (one lost on its _id), or a
        // number was taken twice: take the next one.
        if (tries >= RECORD_TRIES) throw err;
      }
    }
  }

  function fieldsFilter(f: DeliveryFilterFields): Record<string, unknown> {
    return { ...(f.endpointId ? { endpointId: f.endpointId } : {}), ...(f.status ? { status: f.status } : {}) };
  }

  /** The workspace's records numbered `seqs` that exist and match, highest number first. */
  async function numberedDeliveries(workspaceId: string, seqs: readonly number[], filter: DeliveryFilterFields = {}): Promise<DeliveryRecord[]> {
    if (seqs.length === 0) return [];
    const ids = seqs.map((seq) => deliveryIdOf(workspaceId, seq));
    const docs = await models.deliveries.find({ _id: { $in: ids }, ...fieldsFilter(filter) }).lean<DeliveryRecord[]>();
    return docs.filter((d) => d.workspaceId === workspaceId).sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0));
  }

  /**
   * Up to `limit` of the workspace's records from before the numbering that match, newest first,
   * strictly after `after`. A sorted query: FerretDB reads every record of the workspace for it,
   * so the lists come here only after the numbered ones, and only where such records exist.
   */
  async function unnumberedDeliveries(
    workspaceId: string,
    filter: DeliveryFilterFields,
    limit: number,
    after?: { createdAt: Date; id: string },
  ): Promise<DeliveryRecord[]> {
    const query: Record<string, unknown> = { workspaceId, seq: null, ...fieldsFilter(filter) };
    if (after) query.$or = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
    return models.deliveries.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<DeliveryRecord[]>();
  }

  /** Every attempt of one event (nine per run): by the event alone, which the local store finds by its index. */
  async function deliveriesOfEvent(eventId: string): Promise<DeliveryRecord[]> {
    return models.deliveries.find({ eventId }).lean<DeliveryRecord[]>();
  }

  async function deliveryInWorkspace(workspaceId: string, deliveryId: string): Promise<DeliveryRecord | null> {
    return models.deliveries.findOne({ _id: deliveryId, workspaceId }).lean<DeliveryRecord>();
  }

  /** The workspace of a delivery of `orgId`, or null. */
  async function deliveryWorkspaceIn(orgId: string, deliveryId: string): Promise<string | null> {
    const doc = await models.deliveries.findOne({ _id: deliveryId, orgId }, { workspaceId: 1 }).lean<{ workspaceId: string }>();
    return doc?.workspaceId ?? null;
  }

  async function deleteDeliveriesOfEvents(eventIds: readonly string[]): Promise<number> {
    return (await models.deliveries.deleteMany({ eventId: { $in: [...eventIds] } })).deletedCount ?? 0;
  }

  /** Every record of the organizations (the chaos run's reconciliation). */
  async function deliveriesOfOrganizations(orgIds: readonly string[]): Promise<DeliveryRecord[]> {
    return models.deliveries.find({ orgId: { $in: [...orgIds] } }).lean<DeliveryRecord[]>();
  }

  /** Adds to the workspace's counters of the UTC hour starting at `hourStartMs`. */
  async function addHealthCounts(workspaceId: string, hourStartMs: number, counts: Partial<HealthCounts>): Promise<void> {
    const h = hourOfDay(hourStartMs);
    const inc: Record<`f${number}` | `d${number}`, number> = {};
    if (counts.failed) inc[`f${h}`] = counts.failed;
    if (counts.deadLettered) inc[`d${h}`] = counts.deadLettered;
    if (Object.keys(inc).length === 0) return;
    const day = dayOf(hourStartMs);
    const update = { $inc: inc, $setOnInsert: { workspaceId, day: new Date(day) } };
    const id = healthDayId(workspaceId, day);
    try {
      await typedCollection<HealthDayRecord>(models.healthDays).updateOne({ _id: id }, update, { upsert: true });
    } catch (err) {
      // Two writers inserting the same new row: one wins, the other's upsert is now an update.
      if (!isDuplicateKeyError(err)) throw err;
      await typedCollection<HealthDayRecord>(models.healthDays).updateOne({ _id: id }, update, { upsert: true });
    }
  }

  /** The sum of the workspace's counters of the UTC hours starting at `hourStartsMs`: their days' rows, read by id. */
  async function healthCountsOf(workspaceId: string, hourStartsMs: readonly number[]): Promise<HealthCounts> {
    const days = [...new Set(hourStartsMs.map(dayOf))];
    const rows = await models.healthDays
      .find({ _id: { $in: days.map((d) => healthDayId(workspaceId, d)) } })
      .lean<Array<Record<string, unknown> & { day: Date }>>();
    const byDay = new Map(rows.map((r) => [r.day.getTime(), r]));
    const sum: HealthCounts = { failed: 0, deadLettered: 0 };
    for (const hour of hourStartsMs) {
      const row = byDay.get(dayOf(hour));
      if (!row) continue;
      const h = hourOfDay(hour);
      sum.failed += Number(row[`f${h}`] ?? 0);
      sum.deadLettered += Number(row[`d${h}`] ?? 0);
    }
    return sum;
  }

  /** The UTC days the workspace has counters for (a test's check of the maintenance run). */
  async function healthDaysOf(workspaceId: string): Promise<Date[]> {
    return (await models.healthDays.find({ workspaceId }, { day: 1 }).lean<Array<Pick<HealthDayRecord, 'day'>>>()).map((r) => r.day);
  }

  /** Deletes the counters of days before `before` (the store maintenance run). */
  async function deleteHealthDaysBefore(before: Date): Promise<number> {
    return (await models.healthDays.deleteMany({ day: { $lt: before } })).deletedCount ?? 0;
  }

  /** Records written as they are, in one unordered batch (a benchmark's set-up). */
  async function insertDeliveryRecords(records: readonly DeliveryRecord[]): Promise<void> {
    if (records.length) await typedCollection<DeliveryRecord>(models.deliveries).insertMany([...records], { ordered: false });
  }

  /** Sets the workspace's delivery number (after records were written as they are). */
  async function setDeliveryHead(workspaceId: string, seq: number, legacy: boolean): Promise<void> {
    await typedCollection<DeliveryHeadRecord>(models.deliveryHeads).updateOne({ _id: workspaceId }, { $set: { seq, legacy } }, { upsert: true });
  }

  return {
    claimAttempt,
    claimedAttemptsOf,
    deleteAttemptClaimsBefore,
    findAttempt,
    deliveryHead,
    insertNumberedDelivery,
    numberedDeliveries,
    unnumberedDeliveries,
    deliveriesOfEvent,
    deliveryInWorkspace,
    deliveryWorkspaceIn,
    deleteDeliveriesOfEvents,
    deliveriesOfOrganizations,
    addHealthCounts,
    healthCountsOf,
    healthDaysOf,
    deleteHealthDaysBefore,
    insertDeliveryRecords,
    setDeliveryHead,
  };
}
