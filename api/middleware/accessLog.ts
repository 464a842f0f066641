import type { Middleware } from 'koa';
import { requestLogger, requestLogs } from '../requestLogger';
import { httpDuration, httpRequests } from '../../core/observability/metrics';
import { matchedRoute, type MatchedLayer } from '../matchedRoute';

/** Ids a successful POST answers with, logged so an operator can follow what it made. */
const CREATED_IDS = ['job_id', 'search_id', 'receipt_id', 'client_id', 'user_id'] as const;
const MAX_LOGGED_BODY_BYTES = 64 * 1024;
const MAX_LOGGED_PATH = 200;

/**
 * The ids of what a successful POST created or charged (`job_id` of a job, `search_id`,
 * `receipt_id`; `resource_id` for a created resource's `id`), read from its JSON answer: an
 * object, or the stored bytes an idempotent replay answers with. Never anything else of the body.
 */
export function createdIds(method: string, status: number, body: unknown): Record<string, string> {
  if (method !== 'POST' || status < 200 || status >= 300 || body == null) return {};
  let value: unknown = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    if (body.length > MAX_LOGGED_BODY_BYTES) return {};
    try {
      value = JSON.parse(body.toString());
    } catch {
      return {};
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return {};
  const record = value as Record<string, unknown>;
  const ids: Record<string, string> = {};
  for (const name of CREATED_IDS) if (typeof record[name] === 'string') ids[name] = record[name] as string;
  if (status === 201 && typeof record.id === 'string') ids.resource_id = record.id;
  return ids;
}

/** What a path segment names, as the log field of the id after it. */
const ID_FIELDS_BY_SEGMENT: Record<string, string> = {
  'contact-retrieval-jobs': 'job_id',
  'job-results': 'job_id',
  jobs: 'job_id',
  'webhook-events': 'event_id',
  events: 'event_id',
  'webhook-deliveries': 'delivery_id',
  deliveries: 'delivery_id',
  'webhook-endpoints': 'endpoint_id',
  endpoints: 'endpoint_id',
};
const ID_FIELDS = new Set(Object.values(ID_FIELDS_BY_SEGMENT));

/**
 * The job, event, delivery or endpoint id a request's path carries, under the name an operator
 * searches by (`job_id`, `event_id`, `delivery_id`, `endpoint_id`): the path segment at a
 * parameter of the route template named so, or at `:id` after the collection that names it.
 * Read from the path itself, so a request refused before routing (401, 429) has it too.
 */
export function pathIds(route: string, path: string): Record<string, string> {
  const ids: Record<string, string> = {};
  const template = route.split('/');
  const segments = path.replace(/(.)\/+$/, '$1').split('/');
  if (template.length !== segments.length) return ids;
  template.forEach((part, i) => {
    if (!part.startsWith(':')) return;
    const name = part.slice(1);
    const field = ID_FIELDS.has(name) ? name : ID_FIELDS_BY_SEGMENT[template[i - 1]];
    if (!field || !segments[i]) return;
    let value = segments[i];
    try {
      value = decodeURIComponent(value);
    } catch {
      // A malformed escape is logged as sent.
    }
    ids[field] = value.slice(0, MAX_LOGGED_PATH);
  });
  return ids;
}

/**
 * One structured line per request: method, route template, status, duration, request id, key
 * id, the job, event, delivery or endpoint id in its path, the ids a POST created, the fields an
 * adapter added (`ctx.state.logFields`: the tool server's tool, client and problem code), and the
 * path of a request no route matched (never its query).
 * Never the URL's query, headers or body (they may hold query text or credentials).
 */
export function accessLog(): Middleware {
  return async (ctx, next) => {
    // A double, not hrtime's BigInt: one allocation less per request, at a microsecond's resolution.
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1e3;
      const route = matchedRoute((ctx as unknown as { matched?: MatchedLayer[] }).matched, ctx.method) ?? 'unmatched';
      const code = ctx.state.problemCode ?? '';
      httpRequests.inc({ route, method: ctx.method, status: String(ctx.status), code });
      httpDuration.observe({ route, method: ctx.method }, seconds);
      // Below the logger's level the line is not built at all: its fields cost more than the answer.
      if (requestLogs(ctx, 'info'))
        requestLogger(ctx).info(
          {
            method: ctx.method,
            route,
            status: ctx.status,
            duration_ms: Math.round(seconds * 1e6) / 1e3,
            key_id: ctx.state.principal?.keyId,
            client_id: ctx.state.clientId,
            code: code || undefined,
            ...(route === 'unmatched' ? { path: ctx.path.slice(0, MAX_LOGGED_PATH) } : {}),
            ...pathIds(route, ctx.path),
            ...createdIds(ctx.method, ctx.status, ctx.body),
            ...(ctx.state.logFields as Record<string, string | undefined> | undefined),
          },
          'request',
        );
    }
  };
}
