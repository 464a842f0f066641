import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import type { KeyEnvironment } from './apiKeyFormat';

/** A key as kept in `api_keys`: its hash, never its plaintext. */
export interface ApiKeyRecord {
  _id: string;
  /** Null on keys made before names existed (listed by their prefix). */
  name?: string | null;
  /** sha256 of the plaintext. */
  hash: string;
  displayPrefix: string;
  environment: KeyEnvironment;
  audience: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  familyId: string;
  /** The keys this one succeeds by rotation, oldest first; absent on keys made before successions were kept. */
  predecessorKeyIds?: string[];
  scopes: string[];
  expiresAt?: Date | null;
  revokedAt?: Date | null;
  /** Accurate to the minute (keyUse.ts). */
  lastUsedAt?: Date | null;
  /** `user:<id>` or `operator`; null when not known. */
  createdBy?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
}

const apiKeySchema = new Schema<ApiKeyRecord>(
  {
    _id: { type: String, required: true }, // key_…
    // What people recognise the key by; keys made before names existed have none (listed by their prefix).
    name: { type: String, default: null },
    hash: { type: String, required: true, unique: true }, // sha256 of the plaintext
    displayPrefix: { type: String, required: true },
    environment: { type: String, enum: ['live', 'test'], required: true },
    audience: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    applicationId: { type: String, required: true },
    familyId: { type: String, required: true, index: true },
    // The keys this one succeeds by rotation, oldest first: their limits are its limits (core/limits/operationAdmission.ts).
    predecessorKeyIds: { type: [String], default: [] },
    scopes: { type: [String], required: true },
    expiresAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    // Written at most once a minute per key (keyUse.ts): accurate to the minute, never per request.
    lastUsedAt: { type: Date, default: null },
    // Who made it, as the audit log names actors (`user:<id>`, `operator`); null on keys made before this was kept.
    createdBy: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);

// The replicas' reads of new keys (newKeys.ts).
apiKeySchema.index({ createdAt: -1 });

/** The area's models on the root's connection. */
export function keysModels(connection: Connection) {
  return { apiKeys: boundModel<ApiKeyRecord>(connection, 'ApiKey', apiKeySchema, 'api_keys') };
}
