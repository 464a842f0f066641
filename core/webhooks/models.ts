import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import { DELIVERY_STATUSES } from './deliveryStatus';
import type { DeliveryRecord, EndpointRecord, EventRecord, ReplaySlotRecord, SigningSecretRecord } from './store/records';

/**
 * Webhook storage. Ids are prefixed (`we_`, `whs_`, `evt_`, `dlv_`). FerretDB 1.x has no
 * partial indexes, so "one active endpoint per workspace" is a plain unique index on
 * `activeSlot`: the workspace id while active, the endpoint's own id otherwise.
 */
const signingSecretSchema = new Schema<SigningSecretRecord>(
  {
    secretId: { type: String, required: true },
    /** AES-256-GCM sealed `whsec_…` (core/crypto/secretBox), bound to endpoint and secret id. */
    sealed: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** Null for the current secret; the end of the 24 h overlap for a predecessor. */
    expiresAt: { type: Date, default: null },
  },
  { _id: false },
);

const endpointSchema = new Schema<EndpointRecord>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    url: { type: String, required: true },
    state: { type: String, required: true, enum: ['active', 'disabled', 'retired'] },
    activeSlot: { type: String, required: true },
    secrets: { type: [signingSecretSchema], default: [] },
    /** End of the current rotation window; a second rotation before it is refused. */
    rotationEndsAt: { type: Date, default: null },
    retiredAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
endpointSchema.index({ activeSlot: 1 }, { unique: true });
endpointSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });

const eventSchema = new Schema<EventRecord>(
  {
    _id: { type: String, required: true },
    /** One event per job: a retried emission finds this record instead of making a second. */
    jobId: { type: String, required: true },
    orgId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    /** The endpoint active at first emission; null means nothing is delivered. */
    endpointId: { type: String, default: null },
    /** The exact body bytes (UTF-8 JSON) sent on every attempt and replay. */
    body: { type: String, required: true },
    resultExpiresAt: { type: Date, default: null },
    /**
     * `delivering` (original run, not dead-lettered), `replaying` (a replay run, not
     * dead-lettered), `dead_lettered` (latest run failed nine times) or `no_endpoint`. Success is
     * read from the delivery records; this field only guards replays.
     */
    status: { type: String, required: true },
    /** Number of replays requested so far; the nth replay's attempts carry `replay: n`. */
    replays: { type: Number, required: true, default: 0 },
    deadLetteredAt: { type: Date, default: null },
    /**
     * A replay accepted while Temporal did not answer: its run, still to be signalled by the
     * workflow starter (the workflow takes a replay number once, so a repeated signal is harmless).
     */
    replayDue: { type: Boolean, default: false },
    replayRun: { type: Schema.Types.Mixed, default: null },
    replayLeaseUntil: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
eventSchema.index({ jobId: 1 }, { unique: true });
eventSchema.index({ replayDue: 1, replayLeaseUntil: 1 });
eventSchema.index({ status: 1, orgId: 1 });

const deliverySchema = new Schema<DeliveryRecord>(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    endpointId: { type: String, required: true },
    orgId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    jobId: { type: String, required: true },
    attempt: { type: Number, required: true },
    replay: { type: Number, required: true },
    /**
     * The attempt's number in its workspace (1, 2, …), also in its id (store/deliveryStore.ts
     * pages by ids). Absent on records written before the numbering.
     */
    seq: { type: Number, default: undefined },
    status: { type: String, required: true, enum: DELIVERY_STATUSES },
    responseStatus: { type: Number, default: null },
    errorCode: { type: String, default: null },
    durationMs: { type: Number, default: null },
    scheduledAt: { type: Date, required: true },
    attemptedAt: { type: Date, required: true },
    nextAttemptAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
// One record per attempt: a retried activity finds its record and never POSTs twice for it.
deliverySchema.index({ eventId: 1, replay: 1, attempt: 1 }, { unique: true });
deliverySchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });
// A status filter (the dead letters among many attempts) reads only the attempts it shows.
deliverySchema.index({ workspaceId: 1, status: 1, createdAt: -1, _id: -1 });

/** A workspace's latest delivery number (`webhook_delivery_heads`). */
export interface DeliveryHeadRecord {
  _id: string;
  seq: number;
  legacy?: boolean;
}

/** A workspace's health counters of one UTC day (`webhook_health_days`): `f<h>` and `d<h>` per hour h. */
export interface HealthDayRecord {
  _id: string;
  workspaceId: string;
  day: Date;
  [hourCount: `f${number}` | `d${number}`]: number;
}

export interface AttemptClaimRecord {
  _id: string;
  claimedAt: Date;
}

/** Each workspace's latest delivery number, and whether it has records from before the numbering. */
const deliveryHeadSchema = new Schema<DeliveryHeadRecord>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true, default: 0 },
    /** False once the workspace is known to hold no unnumbered record; absent means unknown. */
    legacy: { type: Boolean, default: undefined },
  },
  { versionKey: false },
);

/**
 * The webhook health figures of a workspace for one UTC day, by hour, counted as attempts are
 * recorded (`<workspace_id>:<day start ms>`; `f<h>` failed and `d<h>` dead-lettered attempts of
 * hour h): the overview adds up the hours of a week from eight rows read by id. One row per day,
 * not per hour: FerretDB decodes every row it returns, so fewer rows is a cheaper read.
 */
const healthDaySchema = new Schema<HealthDayRecord>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    day: { type: Date, required: true },
  },
  { versionKey: false, strict: false },
);

/** The claim of one attempt (`<event>:<replay>:<attempt>`), taken before its POST. */
const attemptClaimSchema = new Schema<AttemptClaimRecord>(
  {
    _id: { type: String, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/** Ten slots per endpoint; a replay takes a slot not used in the trailing hour (SPEC 8.1). */
const replaySlotSchema = new Schema<ReplaySlotRecord>(
  {
    _id: { type: String, required: true },
    endpointId: { type: String, required: true },
    usedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
replaySlotSchema.index({ endpointId: 1, usedAt: 1 });

/** The webhook area's models on `connection` (the root's). */
export function webhookModels(connection: Connection) {
  return {
    endpoints: boundModel<EndpointRecord>(connection, 'WebhookEndpoint', endpointSchema, 'webhook_endpoints'),
    events: boundModel<EventRecord>(connection, 'WebhookEvent', eventSchema, 'webhook_events'),
    deliveries: boundModel<DeliveryRecord>(connection, 'WebhookDelivery', deliverySchema, 'webhook_deliveries'),
    deliveryHeads: boundModel<DeliveryHeadRecord>(connection, 'WebhookDeliveryHead', deliveryHeadSchema, 'webhook_delivery_heads'),
    healthDays: boundModel<HealthDayRecord>(connection, 'WebhookHealthDay', healthDaySchema, 'webhook_health_days'),
    attemptClaims: boundModel<AttemptClaimRecord>(connection, 'WebhookAttemptClaim', attemptClaimSchema, 'webhook_attempt_claims'),
    replaySlots: boundModel<ReplaySlotRecord>(connection, 'WebhookReplaySlot', replaySlotSchema, 'webhook_replay_slots'),
  };
}

export type WebhookModels = ReturnType<typeof webhookModels>;
