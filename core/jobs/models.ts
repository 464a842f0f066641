import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import type { PlanEntry } from './jobRules';
import type { Tally } from './tally';
import type { ContactRetrievalInput } from './workflowInput';
import { CONTACT_FIELDS, type ContactField } from '../contactProvider/contactProvider';
import { FAILURE_REASONS, FINAL_JOB_STATUSES, PERSON_OUTCOMES, type FailureReason, type JobCounts, type JobStatus, type PersonOutcome } from './jobTypes';

export interface JobDoc {
  _id: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  familyId: string;
  keyId: string;
  status: JobStatus;
  fields: ContactField[];
  searchId: string | null;
  requested: number;
  counts: JobCounts | null;
  stopReason: string | null;
  workflowId: string;
  deliveryQuotaAt: Date | null;
  deliveriesReserved: number;
  completedAt: Date | null;
  resultExpiresAt: Date | null;
  resultPurgeAt: Date | null;
  resultExpiredAt: Date | null;
  resultPurgedAt: Date | null;
  /** The workflow's input, fixed at acceptance: whichever process starts the workflow starts it with this. */
  workflowInput?: ContactRetrievalInput | null;
  /** When the workflow's start was confirmed; null while it is still to be started (the outbox). */
  workflowStartedAt?: Date | null;
  /** When a cancel was asked for; `cancelPending` while it has not reached the workflow yet. */
  cancelRequestedAt?: Date | null;
  cancelPending?: boolean;
  /** A job of no people made by the console's "Send test event" (core/webhooks/testEvent.ts), not by a caller. */
  test?: boolean;
  /** Something recorded here (a start, a cancel) is still to be carried out in Temporal. */
  outboxDue?: boolean;
  /** Until when one process (a request, a starter) holds the carrying out; others leave the job alone meanwhile. */
  outboxLeaseUntil?: Date | null;
  /** The job's number in its workspace (1, 2, …, in acceptance order); absent on jobs accepted before jobs were numbered. */
  seq?: number;
  /** `<workspace_id>:<seq>`: what the jobs list looks pages up by (store.ts). */
  listKey?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobListHeadDoc {
  _id: string;
  seq: number;
  /** Whether the workspace had jobs before it numbered its first one (the list then reads those too). */
  legacy: boolean;
}

export interface JobPeopleDoc {
  _id: string;
  personIds: string[];
  sources?: string[];
  overQuota?: number[];
  deliveryQuotaAt?: Date;
}

export interface ChunkPlanDoc {
  _id: string;
  jobId: string;
  from: number;
  to: number;
  entries: PlanEntry[];
  createdAt: Date;
}

export interface JobProgressDoc {
  _id: string;
  jobId: string;
  tally: Tally;
}

export interface JobItemDoc {
  _id: string;
  jobId: string;
  seq: number;
  personId: string;
  outcome: PersonOutcome;
  reason: FailureReason | null;
  emails?: string[];
  phones?: string[];
  receiptId: string | null;
  processedAt: Date | null;
}

export interface RetrievedContactDoc {
  _id: string;
  orgId: string;
  personId: string;
  fields: ContactField[];
  emails: string[];
  phones: string[];
  retrievedAt: Date;
}

export interface JobSlotDoc {
  _id: string;
  orgId: string;
  slot: number;
  jobId: string;
  claimedAt: Date;
}

export interface JobDaySlotDoc {
  _id: string;
  orgId: string;
  day: string;
  jobId: string;
  expiresAt: Date;
}

/** One contact-retrieval job (DECISIONS.md "Contact-retrieval jobs"); its people live in job items. */
const countsSchema = new Schema(
  {
    requested: Number,
    delivered: Number,
    not_found: Number,
    failed: Number,
    reused: Number,
    cancelled: Number,
    pending: Number,
  },
  { _id: false },
);

const jobSchema = new Schema<JobDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    applicationId: { type: String, required: true },
    familyId: { type: String, required: true },
    keyId: { type: String, required: true },
    status: { type: String, required: true, enum: ['running', ...FINAL_JOB_STATUSES] },
    fields: { type: [String], enum: CONTACT_FIELDS, required: true },
    searchId: { type: String, default: null },
    requested: { type: Number, required: true },
    /** Final counts; while running they are tallied from the items. */
    counts: { type: countsSchema, default: null },
    stopReason: { type: String, default: null },
    workflowId: { type: String, required: true },
    /**
     * The delivery-quota window the job reserved in (its acceptance time) and how many people
     * it reserved; the unused rest is given back when it finishes. Absent on older jobs.
     */
    deliveryQuotaAt: { type: Date, default: null },
    deliveriesReserved: { type: Number, default: 0 },
    completedAt: { type: Date, default: null },
    resultExpiresAt: { type: Date, default: null },
    resultPurgeAt: { type: Date, default: null },
    /** Set when the retention schedule removed contact values after `resultExpiresAt`. */
    resultExpiredAt: { type: Date, default: null },
    /** Set when the retention schedule deleted the result: reads are 410 from then on. */
    resultPurgedAt: { type: Date, default: null },
    workflowInput: { type: Schema.Types.Mixed, default: null },
    workflowStartedAt: { type: Date, default: null },
    cancelRequestedAt: { type: Date, default: null },
    cancelPending: { type: Boolean, default: false },
    test: { type: Boolean },
    outboxDue: { type: Boolean, default: false },
    outboxLeaseUntil: { type: Date, default: null },
    seq: { type: Number },
    listKey: { type: String },
  },
  { timestamps: true, versionKey: false },
);
jobSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });
// The workflow starter's look-up: the few jobs with something still to carry out.
jobSchema.index({ outboxDue: 1, outboxLeaseUntil: 1 });
jobSchema.index({ orgId: 1, status: 1 });
jobSchema.index({ listKey: 1 });

/** The number of each workspace's latest job (`_id` = workspace id): the top of its jobs list. */
const jobListHeadSchema = new Schema<JobListHeadDoc>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    legacy: { type: Boolean, default: false },
  },
  { versionKey: false },
);

/**
 * The people of a running job in order (position = index), `_id` = job id. Written once at
 * acceptance, read by its chunks, deleted when the job finishes (the items keep the people),
 * so the collection only holds running jobs and stays small.
 */
const jobPeopleSchema = new Schema<JobPeopleDoc>(
  {
    _id: { type: String, required: true },
    personIds: { type: [String], required: true },
    /** Each person's source at acceptance (parallel to personIds): chunks re-check entitlement. */
    sources: { type: [String], default: undefined },
    /** Positions beyond the job's delivery-quota reservation: they fail, free. */
    overQuota: { type: [Number], default: undefined },
    /** The delivery-quota window the job's deliveries count in. */
    deliveryQuotaAt: { type: Date, default: undefined },
  },
  { versionKey: false },
);

/**
 * What one chunk of a running job found, stored before it is charged: a retried chunk (or
 * the finish) charges and delivers exactly this instead of asking the provider again.
 * `_id` = `<job_id>:<from>`; deleted when the job finishes.
 */
const chunkPlanSchema = new Schema<ChunkPlanDoc>(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    from: { type: Number, required: true },
    to: { type: Number, required: true },
    entries: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * Progress of a running job: one small document per finished chunk with its outcomes, so
 * reading a running job's counts scans this small collection, not every job's people.
 * `_id` = `<job_id>:<from>`; deleted when the job finishes (the job then holds its counts).
 */
const jobProgressSchema = new Schema<JobProgressDoc>(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    tally: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false },
);

/**
 * One settled person of one job, at its position `seq`; `_id` is `<job_id>:<seq>`. Written
 * once, with its final outcome (inserts only: FerretDB updates scan the collection); a person
 * without an item is pending.
 */
const jobItemSchema = new Schema<JobItemDoc>(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    seq: { type: Number, required: true },
    personId: { type: String, required: true },
    outcome: { type: String, required: true, enum: PERSON_OUTCOMES },
    reason: { type: String, enum: [...FAILURE_REASONS, null], default: null },
    emails: { type: [String], default: undefined },
    phones: { type: [String], default: undefined },
    receiptId: { type: String, default: null },
    processedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
jobItemSchema.index({ jobId: 1, seq: 1 }, { unique: true });
jobItemSchema.index({ jobId: 1, outcome: 1 });

/**
 * What an organization retrieved for a person, for `reused` (free) answers within the reuse
 * window; `_id` is `<org_id>:<person_id>`.
 */
const retrievedContactSchema = new Schema<RetrievedContactDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    personId: { type: String, required: true },
    fields: { type: [String], required: true },
    emails: { type: [String], default: [] },
    phones: { type: [String], default: [] },
    retrievedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
retrievedContactSchema.index({ orgId: 1, retrievedAt: 1 });

/**
 * A running-job slot: `_id` is `<org_id>:<slot number>`, so the store's primary key makes a
 * claim atomic across API replicas without transactions.
 */
const jobSlotSchema = new Schema<JobSlotDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    slot: { type: Number, required: true },
    jobId: { type: String, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
jobSlotSchema.index({ orgId: 1 });

/**
 * One accepted job of an organization's UTC day: `_id` is `<org_id>:<day>:<n>`, n below the
 * daily cap, so the unique `_id` makes the cap exact across API replicas (no update needed).
 */
const jobDaySlotSchema = new Schema<JobDaySlotDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    day: { type: String, required: true },
    jobId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
jobDaySlotSchema.index({ orgId: 1, day: 1 });
jobDaySlotSchema.index({ expiresAt: 1 });

/** An operator's daily job cap for one organization (`job daily-cap`); `_id` is the org id. */
export interface DailyJobCapDoc {
  _id: string;
  jobsPerDay: number;
}

const jobDailyCapSchema = new Schema<DailyJobCapDoc>(
  {
    _id: { type: String, required: true },
    jobsPerDay: { type: Number, required: true },
  },
  { versionKey: false, timestamps: true },
);

export interface ContactFieldClaimDoc {
  _id: string;
  orgId: string;
  personId: string;
  field: ContactField;
  generation: number;
  /** The job, and the person's position in it, that pays for the field. */
  jobId: string;
  seq: number;
  claimedAt: Date;
}

/**
 * Who pays for a person's contact field within the reuse window (contactFieldClaims.ts):
 * `_id` = `<org_id>:<person_id>:<field>:<generation>`, so the unique `_id` lets exactly one
 * of the organization's jobs claim it, however many run at once. No contact values.
 */
const contactFieldClaimSchema = new Schema<ContactFieldClaimDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    personId: { type: String, required: true },
    field: { type: String, required: true, enum: CONTACT_FIELDS },
    generation: { type: Number, required: true },
    jobId: { type: String, required: true },
    seq: { type: Number, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export interface ChunkPaymentDoc {
  _id: string;
  jobId: string;
  /** Found people whose fields this job claimed (at least one): charged, in position order. */
  ours: Array<{ seq: number; claimIds: string[] }>;
  /** Found people whose every field another job claimed first: `reused` once those jobs paid. */
  others: Array<{ seq: number; holders: Array<{ claimId: string; jobId: string; seq: number }> }>;
  createdAt: Date;
}

/**
 * The payment decision of one chunk, stored once before its charge: a retried chunk (or the
 * finish) pays and settles exactly this. `_id` = `<job_id>:<from>`; deleted when the job finishes.
 */
const chunkPaymentSchema = new Schema<ChunkPaymentDoc>(
  {
    _id: { type: String, required: true },
    jobId: { type: String, required: true },
    ours: { type: Schema.Types.Mixed, required: true },
    others: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/** The jobs area's models on `connection` (the root's). */
export function jobModels(connection: Connection) {
  return {
    jobs: boundModel<JobDoc>(connection, 'ContactRetrievalJob', jobSchema, 'contact_retrieval_jobs'),
    jobListHeads: boundModel<JobListHeadDoc>(connection, 'ContactRetrievalJobListHead', jobListHeadSchema, 'contact_retrieval_job_list_heads'),
    jobPeople: boundModel<JobPeopleDoc>(connection, 'ContactRetrievalJobPeople', jobPeopleSchema, 'contact_retrieval_job_people'),
    chunkPlans: boundModel<ChunkPlanDoc>(connection, 'ContactRetrievalChunkPlan', chunkPlanSchema, 'contact_retrieval_chunk_plans'),
    jobProgress: boundModel<JobProgressDoc>(connection, 'ContactRetrievalJobProgress', jobProgressSchema, 'contact_retrieval_job_progress'),
    jobItems: boundModel<JobItemDoc>(connection, 'ContactRetrievalJobItem', jobItemSchema, 'contact_retrieval_job_items'),
    retrievedContacts: boundModel<RetrievedContactDoc>(connection, 'RetrievedContact', retrievedContactSchema, 'retrieved_contacts'),
    jobSlots: boundModel<JobSlotDoc>(connection, 'ContactJobSlot', jobSlotSchema, 'contact_job_slots'),
    daySlots: boundModel<JobDaySlotDoc>(connection, 'ContactJobDaySlot', jobDaySlotSchema, 'contact_job_day_slots'),
    dailyCaps: boundModel<DailyJobCapDoc>(connection, 'ContactJobDailyCap', jobDailyCapSchema, 'contact_job_daily_caps'),
    fieldClaims: boundModel<ContactFieldClaimDoc>(connection, 'ContactFieldClaim', contactFieldClaimSchema, 'contact_field_claims'),
    chunkPayments: boundModel<ChunkPaymentDoc>(connection, 'ContactRetrievalChunkPayment', chunkPaymentSchema, 'contact_retrieval_chunk_payments'),
  };
}

export type JobModels = ReturnType<typeof jobModels>;
