import type { AuditActor } from '../audit/auditActions';
import type { JobDoc } from './store';

/** What stands in for a key when the operator's CLI starts a job (`webhook trigger`). */
export const OPERATOR_CREDENTIAL_ID = 'operator_cli';

/**
 * Who started a job, as the audit log names actors. A job keeps the credential that accepted it
 * in `keyId`; a signed-in person's and a tool-server client's own ids stand in for a key there
 * (core/users/personPrincipal.ts, api/mcp/bearer.ts), and their prefixes tell them apart.
 */
export function jobStarter(job: Pick<JobDoc, 'keyId'>): AuditActor {
  if (job.keyId === OPERATOR_CREDENTIAL_ID) return 'operator';
  if (job.keyId.startsWith('usr_')) return `user:${job.keyId}`;
  if (job.keyId.startsWith('cli_')) return `m2m:${job.keyId}`;
  return `key:${job.keyId}`;
}
