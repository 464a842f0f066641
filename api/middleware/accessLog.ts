import type { Middleware } from 'koa';
import { logger } from '../../core/observability/logger';
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

/**
 * One structured line per request: method, route template, status, duration, request id, key
 * id, the ids a POST created, and the path of a request no route matched (never its query).
 * Never the URL's query, headers or body (they may hold query text or credentials).
 */
export function accessLog(): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = matchedRoute((ctx as unknown as { matched?: MatchedLayer[] }).matched, ctx.method) ?? 'unmatched';
      const code = ctx.state.problemCode ?? '';
      httpRequests.inc({ route, method: ctx.method, status: String(ctx.status), code });
      httpDuration.observe({ route, method: ctx.method }, seconds);
      logger.info(
        {
          request_id: ctx.state.requestId,
          method: ctx.method,
          route,
          status: ctx.status,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          key_id: ctx.state.principal?.keyId,
          client_id: ctx.state.clientId,
          code: code || undefined,
          ...(route === 'unmatched' ? { path: ctx.path.slice(0, MAX_LOGGED_PATH) } : {}),
          ...createdIds(ctx.method, ctx.status, ctx.body),
        },
        'request',
      );
    }
  };
}
