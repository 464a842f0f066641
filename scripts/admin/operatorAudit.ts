import { OPERATOR } from '../../core/audit/auditActions';
import { recordAuditEvent, type AuditEventInput, type AuditStores } from '../../core/audit/auditLog';

/**
 * The operator's changes enter the organization's audit log through the same writer as every
 * other actor's, after the change is made. A CLI run has no client address to record.
 */
export async function recordOperatorChange(stores: AuditStores, input: Omit<AuditEventInput, 'actor' | 'clientAddress'>): Promise<void> {
  await recordAuditEvent(stores, { ...input, actor: OPERATOR, clientAddress: null });
}
