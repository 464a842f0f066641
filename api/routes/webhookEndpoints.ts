import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { z } from 'zod';
import type { Deps } from '../../core/deps';
import { PERMISSIONS } from '../../core/keys/permissions';
import { decodeCursor, encodeCursor, endpointListScope } from '../../core/webhooks/deliveryCursor';
import {
  endpointView,
  findEndpoint,
  listEndpoints,
  registerEndpoint,
  retireEndpoint,
  rotateSecret,
  updateEndpoint,
  type DestinationSettings,
} from '../../core/webhooks/webhookEndpoints';
import { cursorParameter } from './cursorParameter';
import { defineRoute, type RouteResult } from '../routeSpec';

/** Webhook endpoint management (SPEC 4.2, DECISIONS.md "Webhook endpoints"); free, never metered. */
const TAG = 'Webhooks';
const permission = PERMISSIONS.webhooksManage;

export const EndpointSchema = z.object({
  endpoint_id: z.string(),
  url: z.string().describe('the HTTPS destination'),
  state: z.enum(['active', 'disabled', 'retired']),
  created_at: z.string().describe('ISO 8601 UTC'),
  updated_at: z.string().describe('ISO 8601 UTC'),
});

const RegistrationSchema = z.object({
  endpoint: EndpointSchema,
  secret_id: z.string(),
  secret: z.string().describe('`whsec_` + base64; shown only in this response'),
});

const RotationSchema = z.object({
  secret_id: z.string(),
  secret: z.string().describe('the successor secret; shown only in this response'),
  previous_secret_expires_at: z.string().describe('the predecessor keeps signing until this time (24 h)'),
});

const EndpointPage = z.object({ data: z.array(EndpointSchema), next_cursor: z.string().nullable() });

// The destination policy (core/outbound/destinationPolicy) refuses what is not an absolute
// https URL with 422 webhook_url_not_allowed; the pattern says so to callers.
const Url = z
  .string()
  .min(1)
  .max(2048)
  .meta({ pattern: '^https://[^\\s/?#@]+(/[^\\s#]*)?$', format: 'uri', description: 'HTTPS URL of the destination (publicly routable)' });
const IdParams = z.object({ id: z.string().min(1).max(64) });
const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: cursorParameter('`next_cursor` of the previous page'),
});

function settings(deps: Pick<Deps, 'config' | 'destinationLookup' | 'purposeKeys'>): DestinationSettings {
  return { lookupAll: deps.destinationLookup, allowedCidrs: deps.config.webhooks.allowedCidrs, purposeKeys: deps.purposeKeys };
}

const scopeOf = (p: { orgId: string; workspaceId: string }) => ({ orgId: p.orgId, workspaceId: p.workspaceId });

/** The registered endpoint's id in the registration answer, for the links to what can be done with it. */
const NEW_ENDPOINT = '$response.body#/endpoint/endpoint_id';

/** The endpoint as it was before a change, for its audit entry (null when it is not this workspace's: the handler answers 404). */
async function endpointBefore({
  principal,
  params,
  deps,
}: {
  principal: KeyPrincipal;
  params: { id: string };
  deps: Pick<Deps, 'stores'>;
}): Promise<Record<string, unknown> | null> {
  return findEndpoint(deps.stores, scopeOf(principal), params.id).then(
    (doc) => ({ ...endpointView(doc) }),
    () => null,
  );
}

/** The audit of a change to one endpoint: the endpoint before it and as the answer shows it after. */
function endpointChangeAudit(action: 'webhook_endpoint.updated' | 'webhook_endpoint.retired') {
  return {
    before: endpointBefore,
    change: ({ params }: { params: { id: string } }, result: RouteResult, before: Record<string, unknown> | null) => ({
      action,
      target: params.id,
      before,
      after: result.body as Record<string, unknown>,
    }),
  };
}

export const webhookEndpointRoutes = [
  defineRoute({
    operation: 'webhook_endpoints.create',
    method: 'POST',
    path: '/v1/webhook-endpoints',
    tag: TAG,
    permission,
    summary: "Register the workspace's webhook endpoint",
    description: [
      'At most one active endpoint per workspace (409 `endpoint_limit_reached`). The destination must be an https URL (no credentials, port 443 or ≥ 1024) whose host and every DNS answer are publicly routable; otherwise 422 `webhook_url_not_allowed` and nothing is stored. The signing secret is returned once.',
      '',
      'Deliveries: when a contact-retrieval job finishes, the endpoint active at that moment receives `POST` with the `job.completed` envelope and the Standard Webhooks headers `webhook-id` (the event id; deduplicate on it), `webhook-timestamp` (Unix seconds of that attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA-256 of "{id}.{timestamp}.{raw body}">` keyed with the base64 part of the secret; two space-separated candidates during a rotation).',
      'Any 2xx is success. Anything else (including redirects, which are never followed, a 15 s timeout and TLS failures) is retried after 5 s, 30 s, 2 min, 10 min, 30 min, 2 h, 6 h and 12 h, each plus a jitter that only delays (up to 10 % of the delay, at most 5 min): nine attempts over about 21 hours. After the ninth failure the event is dead-lettered and can be replayed for 7 days. Each attempt re-reads the endpoint (a re-pointed URL is used; a disabled or retired endpoint fails the attempt with `endpoint_inactive`) and re-checks the destination against DNS.',
    ].join('\n'),
    body: z.object({ url: Url }).strict(),
    responses: {
      201: {
        description: 'Registered; the secret appears only here',
        schema: RegistrationSchema,
        links: {
          GetEndpoint: { operation: 'webhook_endpoints.get', description: 'The endpoint', parameters: { id: NEW_ENDPOINT } },
          UpdateEndpoint: { operation: 'webhook_endpoints.update', description: 'Re-point, disable or enable it', parameters: { id: NEW_ENDPOINT } },
          RotateSecret: { operation: 'webhook_endpoints.rotate_secret', description: 'Rotate its secret', parameters: { id: NEW_ENDPOINT } },
          RetireEndpoint: { operation: 'webhook_endpoints.delete', description: 'Retire it', parameters: { id: NEW_ENDPOINT } },
          ListDeliveries: { operation: 'webhook_deliveries.list', description: 'The deliveries made to it', parameters: { endpoint_id: NEW_ENDPOINT } },
        },
      },
      409: { description: '`endpoint_limit_reached`' },
      422: { description: '`webhook_url_not_allowed` or `validation_failed`' },
    },
    handler: async ({ principal, body, deps }) => ({
      status: 201,
      body: await registerEndpoint(deps.stores, scopeOf(principal), body.url, settings(deps), new Date(deps.now())),
    }),
    audit: {
      change: ({ principal }, result) => {
        const { endpoint } = result.body as { endpoint: { endpoint_id: string } };
        return { action: 'webhook_endpoint.created', target: endpoint.endpoint_id, after: { ...endpoint, workspace_id: principal.workspaceId } };
      },
    },
  }),
  defineRoute({
    operation: 'webhook_endpoints.list',
    method: 'GET',
    path: '/v1/webhook-endpoints',
    tag: TAG,
    permission,
    summary: "List the workspace's webhook endpoints, newest first",
    description: 'Includes disabled and retired endpoints. Paged with an opaque `cursor`.',
    query: PageQuery,
    responses: { 200: { description: 'A page of endpoints', schema: EndpointPage } },
    handler: async ({ principal, query, deps }) => {
      const cursorScope = endpointListScope(principal.workspaceId);
      const { docs, more } = await listEndpoints(deps.stores, scopeOf(principal), {
        limit: query.limit,
        after: decodeCursor(deps.purposeKeys, cursorScope, query.cursor),
      });
      const last = docs[docs.length - 1];
      return {
        status: 200,
        body: {
          data: docs.map(endpointView),
          next_cursor: more && last ? encodeCursor(deps.purposeKeys, cursorScope, { createdAt: last.createdAt, id: last._id }) : null,
        },
      };
    },
  }),
  defineRoute({
    operation: 'webhook_endpoints.get',
    method: 'GET',
    path: '/v1/webhook-endpoints/:id',
    tag: TAG,
    permission,
    summary: 'Read one webhook endpoint',
    description: "Retired endpoints stay readable. Another workspace's endpoint is the same 404 as a missing one.",
    params: IdParams,
    responses: { 200: { description: 'The endpoint', schema: EndpointSchema }, 404: { description: '`not_found`' } },
    handler: async ({ principal, params, deps }) => ({ status: 200, body: endpointView(await findEndpoint(deps.stores, scopeOf(principal), params.id)) }),
  }),
  defineRoute({
    operation: 'webhook_endpoints.update',
    method: 'PATCH',
    path: '/v1/webhook-endpoints/:id',
    tag: TAG,
    permission,
    summary: 'Re-point, disable or enable a webhook endpoint',
    description:
      'Body: any of `url` (re-point; checked like a registration) and `state` (`active` or `disabled`). PATCH cannot retire (`state: "retired"` is 422; use DELETE); any PATCH of a retired endpoint is 409 `endpoint_retired`. Enabling while another endpoint is active is 409 `endpoint_limit_reached`.',
    params: IdParams,
    body: z
      .object({ url: Url.optional(), state: z.enum(['active', 'disabled']).optional().describe('`active` or `disabled`') })
      .strict()
      .refine((b) => b.url !== undefined || b.state !== undefined, { message: 'give url, state or both' })
      .meta({ minProperties: 1 }),
    responses: {
      200: { description: 'The endpoint after the change', schema: EndpointSchema },
      404: { description: '`not_found`' },
      409: { description: '`endpoint_retired` or `endpoint_limit_reached`' },
      422: { description: '`webhook_url_not_allowed` or `validation_failed`' },
    },
    handler: async ({ principal, params, body, deps }) => ({
      status: 200,
      body: await updateEndpoint(deps.stores, scopeOf(principal), params.id, body, settings(deps)),
    }),
    audit: endpointChangeAudit('webhook_endpoint.updated'),
  }),
  defineRoute({
    operation: 'webhook_endpoints.delete',
    method: 'DELETE',
    path: '/v1/webhook-endpoints/:id',
    tag: TAG,
    permission,
    summary: 'Retire a webhook endpoint',
    description: 'The endpoint stops receiving events and stays readable by id, with its delivery history. Retiring twice is harmless.',
    params: IdParams,
    responses: { 200: { description: 'The retired endpoint', schema: EndpointSchema }, 404: { description: '`not_found`' } },
    handler: async ({ principal, params, deps }) => ({
      status: 200,
      body: await retireEndpoint(deps.stores, scopeOf(principal), params.id, new Date(deps.now())),
    }),
    audit: endpointChangeAudit('webhook_endpoint.retired'),
  }),
  defineRoute({
    operation: 'webhook_endpoints.rotate_secret',
    method: 'POST',
    path: '/v1/webhook-endpoints/:id/rotate-secret',
    tag: TAG,
    permission,
    summary: 'Rotate the signing secret',
    description:
      'Mints a successor secret, returned once. The predecessor keeps signing for exactly 24 hours; deliveries in that window carry both signatures. A second rotation inside the window is 409 `rotation_in_progress`.',
    params: IdParams,
    responses: {
      200: { description: 'The successor secret', schema: RotationSchema },
      404: { description: '`not_found`' },
      409: { description: '`rotation_in_progress` or `endpoint_retired`' },
    },
    handler: async ({ principal, params, deps }) => ({
      status: 200,
      body: await rotateSecret(deps.stores, scopeOf(principal), params.id, deps.purposeKeys, new Date(deps.now())),
    }),
    audit: {
      change: ({ params }, result) => ({
        action: 'webhook_endpoint.secret_rotated',
        target: params.id,
        after: { endpoint_id: params.id, previous_valid_until: (result.body as { previous_secret_expires_at: string }).previous_secret_expires_at },
      }),
    },
  }),
];
