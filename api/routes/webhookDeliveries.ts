import { z } from 'zod';
import { PERMISSIONS } from '../../core/keys/permissions';
import { DELIVERY_STATUSES } from '../../core/webhooks/deliveryStatus';
import { requestReplay } from '../../core/webhooks/replays';
import { temporalReplaySignaller } from '../../core/webhooks/replaySignals';
import { deliveryView, findDelivery, listDeliveries } from '../../core/webhooks/webhookDeliveries';
import { cursorParameter } from './cursorParameter';
import { defineRoute } from '../routeSpec';

/** Delivery history and replay (SPEC 3.2, 4.2, DECISIONS.md "Webhook deliveries"). */
const TAG = 'Webhooks';
const permission = PERMISSIONS.webhooksManage;

/** The first attempt of a page, for the links from a list to one attempt. */
const FIRST_DELIVERY = { id: '$response.body#/data/0/delivery_id' };

export const DeliverySchema = z.object({
  delivery_id: z.string(),
  event_id: z.string().describe('equals the `webhook-id` header'),
  endpoint_id: z.string(),
  job_id: z.string(),
  attempt: z.number().int().min(1).max(9).describe('1–9 within a run'),
  replay: z.number().int().min(0).describe('0 for the original run, n for the nth replay'),
  status: z.enum(DELIVERY_STATUSES).describe('the ninth failed attempt of a run is `dead_lettered`'),
  response_status: z.number().int().min(100).max(599).nullable(),
  error_code: z
    .string()
    .nullable()
    .describe(
      'timeout, tls_error, redirect, destination_refused, dns_error, connection_refused, connection_error, http_status, endpoint_inactive, attempt_interrupted',
    ),
  duration_ms: z.number().int().min(0).nullable(),
  scheduled_at: z.string(),
  attempted_at: z.string(),
  next_attempt_at: z.string().nullable(),
});

const IdParams = z.object({ id: z.string().min(1).max(64) });

export const webhookDeliveryRoutes = [
  defineRoute({
    operation: 'webhook_deliveries.list',
    method: 'GET',
    path: '/v1/webhook-deliveries',
    tag: TAG,
    permission,
    summary: 'List delivery attempts, newest first',
    query: z.object({
      endpoint_id: z.string().max(64).optional(),
      event_id: z.string().max(64).optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: cursorParameter('`next_cursor` of the previous page'),
    }),
    responses: {
      200: {
        description: 'A page of attempts',
        schema: z.object({ data: z.array(DeliverySchema), next_cursor: z.string().nullable() }),
        links: {
          GetDelivery: { operation: 'webhook_deliveries.get', description: 'The first attempt', parameters: FIRST_DELIVERY },
          ReplayDelivery: { operation: 'webhook_deliveries.replay', description: 'Send its event again', parameters: FIRST_DELIVERY },
        },
      },
      400: { description: '`invalid_cursor`' },
    },
    handler: async ({ principal, query, deps }) => ({
      status: 200,
      body: await listDeliveries(deps.stores, deps.purposeKeys, principal.workspaceId, query),
    }),
  }),
  defineRoute({
    operation: 'webhook_deliveries.get',
    method: 'GET',
    path: '/v1/webhook-deliveries/:id',
    tag: TAG,
    permission,
    summary: 'Read one delivery attempt',
    params: IdParams,
    responses: { 200: { description: 'The attempt', schema: DeliverySchema }, 404: { description: '`not_found`' } },
    handler: async ({ principal, params, deps }) => ({ status: 200, body: deliveryView(await findDelivery(deps.stores, principal.workspaceId, params.id)) }),
  }),
  defineRoute({
    operation: 'webhook_deliveries.replay',
    method: 'POST',
    path: '/v1/webhook-deliveries/:id/replays',
    tag: TAG,
    permission,
    summary: 'Replay a dead-lettered event',
    description:
      "Only the dead-lettered attempt of an event's latest run can be replayed (otherwise 409 `replay_not_allowed`). Re-sends the same body bytes and `webhook-id` to the workspace's active endpoint as a fresh run of up to nine attempts; receivers check `result_expires_at` before acting. More than 10 replays for one endpoint in the trailing hour is 429 `webhook_replay_cap` with `Retry-After`.",
    params: IdParams,
    responses: {
      202: {
        description: 'The replay is scheduled',
        schema: z.object({ event_id: z.string(), replay: z.number().int().min(1), endpoint_id: z.string(), status: z.literal('replaying') }),
      },
      404: { description: '`not_found`' },
      409: { description: '`replay_not_allowed`' },
      429: { description: '`webhook_replay_cap`' },
    },
    handler: async ({ principal, params, deps }) => ({
      status: 202,
      body: await requestReplay(
        deps.stores,
        principal.workspaceId,
        params.id,
        temporalReplaySignaller(deps.temporal, deps.config, deps.config.temporal.startWaitMs),
        new Date(deps.now()),
      ),
    }),
    audit: {
      change: ({ params }, result) => ({
        action: 'webhook_delivery.replayed',
        target: params.id,
        after: { delivery_id: params.id, ...(result.body as Record<string, unknown>) },
      }),
    },
  }),
];
