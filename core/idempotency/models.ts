import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

export interface IdempotencyRecordDoc {
  _id: string;
  orgId: string;
  workspaceId?: string;
  operation: string;
  fingerprint: string;
  nonce?: string;
  state: 'in_progress' | 'released' | 'completed';
  owner: string;
  leaseUntil: Date;
  createdAt: Date;
  expiresAt: Date;
}

export interface IdempotencyResponseDoc {
  _id: string;
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expiresAt: Date;
}

export interface IdempotencyTakeoverDoc {
  _id: string;
  expiresAt: Date;
}

/**
 * One record per (organization, workspace, Idempotency-Key), `_id = <org_id>:<workspace_id>:<key>`:
 * the unique `_id` is the claim, so exactly one request runs a key at a time on any number of
 * replicas. Its `nonce` names this use of the key: paid work is charged under it, so a retry of
 * the same request finds its own charge and a later request under a forgotten key pays afresh.
 */
const idempotencyRecordSchema = new Schema<IdempotencyRecordDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    /** Absent only on records written before records were scoped to a workspace. */
    workspaceId: { type: String },
    operation: { type: String, required: true },
    /** Hash of the caller (workspace, key family), operation, method, path and canonical body: a different request is a 409. */
    fingerprint: { type: String, required: true },
    /** Random, fixed for the record's life (a takeover keeps it): the charge key of the work done under it. */
    nonce: { type: String },
    /**
     * `in_progress` while a request holds the claim (completion is the insert of the response
     * record, see below); `released` once it failed: the same request may run again, keeping
     * the nonce, and a different one may replace the record.
     */
    state: { type: String, enum: ['in_progress', 'released', 'completed'], required: true },
    /** Random token of the request that holds the claim; only it may complete or release it. */
    owner: { type: String, required: true },
    /** Until then the claim is held; past it, a crashed request's claim can be taken over. */
    leaseUntil: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

/**
 * The stored first successful response of a key, same `_id` as its claim. Completing is an
 * insert rather than an update of the claim: on FerretDB an update scans the collection,
 * and these records carry whole response bodies.
 */
const idempotencyResponseSchema = new Schema<IdempotencyResponseDoc>(
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

/**
 * Who took over a lapsed claim: `_id = <record id>|<owner taken over>`. Its unique insert picks
 * the one retry that continues the work, so the record itself is never absent in between (an
 * absent record would let a retry claim afresh under a new nonce, and pay a second time).
 */
const idempotencyTakeoverSchema = new Schema<IdempotencyTakeoverDoc>(
  {
    _id: { type: String, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function idempotencyModels(connection: Connection) {
  return {
    records: boundModel<IdempotencyRecordDoc>(connection, 'IdempotencyRecord', idempotencyRecordSchema, 'idempotency_records'),
    responses: boundModel<IdempotencyResponseDoc>(connection, 'IdempotencyResponse', idempotencyResponseSchema, 'idempotency_responses'),
    takeovers: boundModel<IdempotencyTakeoverDoc>(connection, 'IdempotencyTakeover', idempotencyTakeoverSchema, 'idempotency_takeovers'),
  };
}
