import { OPERATOR } from '../../core/audit/auditActions';
import { recordAuditEvent, type AuditEventInput } from '../../core/audit/auditLog';
import type { Deps } from '../../core/deps';

/**
 * The operator's changes enter the organization's audit log through the same writer as every
 * other actor's, after the change is made, on the CLI root's clock. A CLI run has no client
 * address to record.
 */
export async function recordOperatorChange(
  { stores, now }: Pick<Deps, 'stores' | 'now'>,
  input: Omit<AuditEventInput, 'actor' | 'clientAddress' | 'now'>,
): Promise<void> {
  await recordAuditEvent(stores, { ...input, actor: OPERATOR, clientAddress: null, now: new Date(now()) });
}
