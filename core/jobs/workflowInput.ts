import type { AgentOfCall } from '../credits/agentAllowance';
import type { ContactField } from '../contactProvider/contactProvider';

/** The contact-retrieval workflow's input: fixed at acceptance, so a job keeps its settings. */
export interface ContactRetrievalInput {
  jobId: string;
  orgId: string;
  workspaceId: string;
  familyId: string;
  /** The connected AI application that started the job, whose daily allowance its charges are held to; absent otherwise. */
  agent?: AgentOfCall;
  requested: number;
  fields: ContactField[];
  /** People per activity call. */
  chunkSize: number;
  /** Activity calls in flight at once. */
  concurrency: number;
  /** Heartbeat timeout of the people activities: how soon a crashed worker's work is retried. */
  heartbeatTimeoutMs: number;
  /** Overrides the 24 h deadline; tests and demos only. */
  deadlineMs?: number;
  /** When the job was accepted (epoch ms): its deadline counts from here, not from the workflow's start. Absent on older jobs. */
  acceptedAtMs?: number;
}

export const CANCEL_SIGNAL = 'cancel';
