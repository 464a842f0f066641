import { z } from 'zod';
import type { OperationName } from '../../../core/limits/limitTable';
import { sendTestEvent, type SentTestEvent } from '../../../core/webhooks/testEvent';
import type { RouteSpec } from '../../routeSpec';
import { webhookDeliveryRoutes } from '../../routes/webhookDeliveries';
import { webhookEndpointRoutes } from '../../routes/webhookEndpoints';
import { defineConsoleOperation, type ConsoleOperation } from '../consoleOperation';
import type { ConsoleOperationName } from '../consoleOperationNames';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The console's webhook writes (DECISIONS.md "Organization console"): each is the /v1 route's
 * own declaration under a console name, so the same handler (the same core/webhooks function,
 * with the same destination settings) runs and the same audit entry is written. What differs is
 * who may: the console road lets admins only, so the route's `webhooks.v1:manage` permission,
 * which a person's API-access set may well lack, is not asked for again. The workspace is the
 * principal's: the page puts the one it acts on there (consoleWorkspaces.ts).
 */
function twinOf(routes: readonly RouteSpec[], route: OperationName, operation: ConsoleOperationName, path: string): ConsoleOperation {
  const spec = routes.find((r) => r.operation === route);
  if (!spec) throw new Error(`no route declares ${route}`);
  return {
    ...spec,
    operation,
    path,
    method: 'POST',
    tag: 'console',
    permission: undefined,
    description: undefined,
    responses: {},
  } as unknown as ConsoleOperation;
}

export const WEBHOOK_OPERATION_PATHS = {
  register: CONSOLE_PATHS.webhooks,
  update: `${CONSOLE_PATHS.webhooks}/endpoints/:id`,
  retire: `${CONSOLE_PATHS.webhooks}/endpoints/:id/retire`,
  rotateSecret: `${CONSOLE_PATHS.webhooks}/endpoints/:id/rotate-secret`,
  replay: `${CONSOLE_PATHS.webhooks}/deliveries/:id/replay`,
  sendTestEvent: `${CONSOLE_PATHS.webhooks}/endpoints/:id/test-event`,
} as const;

/**
 * "Send test event": a console write of its own (the developer API has no such route). It hands
 * out no access, so it needs no sudo mode; what it sends is a job.completed of a free test job
 * (core/webhooks/testEvent.ts), and the entry names the event and job it made.
 */
const sendTestEventOperation = defineConsoleOperation({
  operation: 'console.webhooks.send_test_event',
  path: WEBHOOK_OPERATION_PATHS.sendTestEvent,
  summary: 'Send test event',
  params: z.object({ id: z.string().min(1).max(128) }),
  body: z.object({}).strict(),
  handler: async ({ principal, params, deps }) => ({ status: 202, body: await sendTestEvent(deps, principal, params.id) }),
  audit: {
    change: ({ principal, params }, result) => {
      const sent = result.body as SentTestEvent;
      return {
        action: 'webhook_endpoint.test_sent',
        target: params.id,
        after: { endpoint_id: params.id, workspace_id: principal.workspaceId, event_id: sent.event_id, job_id: sent.job_id },
      };
    },
  },
});

export const webhookOperations: readonly ConsoleOperation[] = [
  twinOf(webhookEndpointRoutes, 'webhook_endpoints.create', 'console.webhooks.register', WEBHOOK_OPERATION_PATHS.register),
  twinOf(webhookEndpointRoutes, 'webhook_endpoints.update', 'console.webhooks.update', WEBHOOK_OPERATION_PATHS.update),
  twinOf(webhookEndpointRoutes, 'webhook_endpoints.delete', 'console.webhooks.retire', WEBHOOK_OPERATION_PATHS.retire),
  twinOf(webhookEndpointRoutes, 'webhook_endpoints.rotate_secret', 'console.webhooks.rotate_secret', WEBHOOK_OPERATION_PATHS.rotateSecret),
  twinOf(webhookDeliveryRoutes, 'webhook_deliveries.replay', 'console.webhooks.replay', WEBHOOK_OPERATION_PATHS.replay),
  sendTestEventOperation,
];
