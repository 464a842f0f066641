import type { AuditActor } from '../../core/audit/auditActions';
import { recordAuditEvent } from '../../core/audit/auditLog';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { RouteAudit, RouteInput, RouteResult } from '../routeSpec';

/**
 * Who an operation acts as in the audit log: the API key, or for a tool-server call the token's
 * subject (a signed-in person or an M2M client).
 */
export function auditActorOf(principal: KeyPrincipal & { subject?: { type: 'client' | 'user'; id: string } }): AuditActor {
  if (principal.subject?.type === 'user') return `user:${principal.subject.id}`;
  if (principal.subject?.type === 'client') return `m2m:${principal.subject.id}`;
  return `key:${principal.keyId}`;
}

/**
 * Records the entry of a change that succeeded (2xx). The change has happened by now: a store
 * failure while recording is logged rather than turned into an error answer, which a client
 * would retry and so make the change twice.
 */
export async function recordOperationAudit(
  audit: RouteAudit,
  input: RouteInput<unknown, unknown, unknown>,
  result: RouteResult,
  before: Record<string, unknown> | null,
  clientAddress: string | undefined,
): Promise<void> {
  if (result.status < 200 || result.status >= 300) return;
  const change = audit.change(input as RouteInput<never, never, never>, result, before);
  try {
    await recordAuditEvent(input.deps.stores, {
      orgId: input.principal.orgId,
      actor: auditActorOf(input.principal),
      clientAddress: clientAddress ?? null,
      now: new Date(input.deps.now()),
      ...change,
    });
  } catch (err) {
    input.deps.logger.error({ err: { message: (err as Error).message }, action: change.action, target: change.target }, 'could not record an audit entry');
  }
}
