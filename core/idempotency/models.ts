import { Schema, model } from 'mongoose';

/**
 * One record per (organization, Idempotency-Key), `_id = <org_id>:<key>`: the unique `_id`
 * is the claim, so exactly one request runs a key at a time on any number of replicas.
 */
const idempotencyRecordSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    operation: { type: String, required: true },
    /** Hash of operation, method, path and canonical body: a different request is a 409. */
    fingerprint: { type: String, required: true },
    /** Always `in_progress`: completion is the insert of the response record (see below). */
    state: { type: String, enum: ['in_progress', 'completed'], required: true },
    /** Random token of the request that holds the claim; only it may complete or release it. */
    owner: { type: String, required: true },
    /** Until then the claim is held; past it, a crashed request's claim can be taken over. */
    leaseUntil: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);
export const IdempotencyRecord = model('IdempotencyRecord', idempotencyRecordSchema, 'idempotency_records');

/**
 * The stored first successful response of a key, same `_id` as its claim. Completing is an
 * insert rather than an update of the claim: on FerretDB an update scans the collection,
 * and these records carry whole response bodies.
 */
const idempotencyResponseSchema = new Schema(
  {
    _id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    status: { type: Number, required: true },
    headers: { type: Schema.Types.Mixed, default: {} },
    body: { type: String, default: '' },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);
export const IdempotencyResponse = model('IdempotencyResponse', idempotencyResponseSchema, 'idempotency_responses');
