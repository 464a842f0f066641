import { deliveryWorkflowId } from '../../core/webhooks/deliveryWorkflowContract';
import { optionalFlag, intFlag, type AdminCommand } from './command';

/**
 * Operator view of webhook delivery: dead-lettered events (the Temporal UI shows the same
 * with `DeliveryStatus = "dead_lettered"`, filterable by OrgId, WorkspaceId, EndpointId, JobId).
 */
export const webhooksCommands: Record<string, AdminCommand> = {
  'webhook dead-letters': {
    usage: 'webhook dead-letters [--org O] [--limit N]',
    run: async (f, { stores }) => {
      const org = optionalFlag(f, 'org');
      const limit = intFlag(f, 'limit', { min: 1 }) ?? 100;
      const docs = await stores.webhooks.events.deadLetteredEvents(org, limit);
      return {
        dead_letters: docs.map((d) => ({
          event_id: d._id,
          workflow_id: deliveryWorkflowId(d._id),
          org_id: d.orgId,
          workspace_id: d.workspaceId,
          endpoint_id: d.endpointId,
          job_id: d.jobId,
          replays: d.replays,
          dead_lettered_at: d.deadLetteredAt ? d.deadLetteredAt.toISOString() : null,
          result_expires_at: d.resultExpiresAt ? d.resultExpiresAt.toISOString() : null,
        })),
      };
    },
  },
};
