import { OPERATOR } from '../../core/audit/auditActions';
import { recordAuditEvent, type AuditEventInput } from '../../core/audit/auditLog';

/**
 * The operator's changes enter the organization's audit log through the same writer as every
 * other actor's, after the change is made. A CLI run has no client address to record.
 */
export async function recordOperatorChange(input: Omit<AuditEventInput, 'actor' | 'clientAddress'>): Promise<void> {
  await recordAuditEvent({ ...input, actor: OPERATOR, clientAddress: null });
}
