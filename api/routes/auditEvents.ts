import { z } from 'zod';
import { AUDIT_ACTIONS } from '../../core/audit/auditActions';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, listAuditEvents } from '../../core/audit/auditLog';
import { PERMISSIONS } from '../../core/keys/permissions';
import { cursorParameter } from './cursorParameter';
import { defineRoute } from '../routeSpec';

const Values = z.record(z.string(), z.unknown()).nullable();

export const AuditEventSchema = z.object({
  event_id: z.string().describe('`aud_…`'),
  time: z.string().describe('ISO 8601 UTC'),
  actor: z.string().describe('`user:<user_id>`, `key:<key_id>`, `m2m:<client_id>` or `operator`'),
  action: z.enum(AUDIT_ACTIONS),
  target: z.string().describe('the id of what changed (a key, a person, an endpoint, a delivery, a job, or the organization)'),
  before: Values.describe('the changed values before the change, or null; never a secret'),
  after: Values.describe('the changed values after the change, or null; never a secret'),
  client_address: z.string().nullable().describe('the address the change came from; null for the operator CLI'),
});

const Query = z.object({
  action: z.enum(AUDIT_ACTIONS).optional().describe('only entries of this action'),
  actor: z.string().min(1).max(120).optional().describe('only entries of this actor, e.g. `operator` or `key:key_…`'),
  cursor: cursorParameter('`next_cursor` of the previous page (with the same filters)'),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT).describe(`entries per page, 1–${AUDIT_PAGE_MAX}`),
});

export const auditEventRoutes = [
  defineRoute({
    operation: 'audit_events.list',
    method: 'GET',
    path: '/v1/audit-events',
    tag: 'Audit log',
    permission: PERMISSIONS.auditRead,
    summary: "List the organization's audit log, newest first",
    description:
      'Every change to the organization, whoever made it: keys, caps, blocks, budgets, credits granted, people and roles, webhook endpoints and secret rotations, replays, job cancels, grants revoked, and the rate set by the service operator. Entries are never changed or deleted except by retention (`AUDIT_RETENTION_DAYS`, 400 days by default). Filter by `action` and `actor`; paged with an opaque `cursor`.',
    query: Query,
    responses: { 200: { description: 'A page of audit entries', schema: z.object({ data: z.array(AuditEventSchema), next_cursor: z.string().nullable() }) } },
    handler: async ({ principal, query, deps }) => ({
      status: 200,
      body: await listAuditEvents(deps.stores, deps.purposeKeys, principal.orgId, query),
    }),
  }),
];
