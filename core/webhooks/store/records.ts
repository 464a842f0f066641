import type { DeliveryStatus } from '../deliveryStatus';

/**
 * The webhook area's stored shapes as plain records: what the store (this folder) answers and
 * takes. Field names are the stored ones.
 */
export interface SigningSecretRecord {
  secretId: string;
  /** AES-256-GCM sealed `whsec_…` (core/crypto/secretBox), bound to endpoint and secret id. */
  sealed: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export type EndpointState = 'active' | 'disabled' | 'retired';

export interface EndpointRecord {
  _id: string;
  orgId: string;
  workspaceId: string;
  url: string;
  state: EndpointState;
  /** The workspace id while active, the endpoint's own id otherwise (one active per workspace). */
  activeSlot: string;
  secrets: SigningSecretRecord[];
  rotationEndsAt: Date | null;
  retiredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface EventRecord {
  _id: string;
  jobId: string;
  orgId: string;
  workspaceId: string;
  endpointId: string | null;
  body: string;
  resultExpiresAt: Date | null;
  status: string;
  replays: number;
  deadLetteredAt: Date | null;
  replayDue: boolean;
  replayRun: unknown;
  replayLeaseUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AttemptKey {
  eventId: string;
  replay: number;
  attempt: number;
}

export interface DeliveryRecord extends AttemptKey {
  _id: string;
  endpointId: string;
  orgId: string;
  workspaceId: string;
  jobId: string;
  /** The attempt's number in its workspace; absent on records written before the numbering. */
  seq?: number | null;
  status: DeliveryStatus;
  responseStatus: number | null;
  errorCode: string | null;
  durationMs: number | null;
  scheduledAt: Date;
  attemptedAt: Date;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ReplaySlotRecord {
  _id: string;
  endpointId: string;
  usedAt: Date;
}
