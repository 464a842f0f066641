import type { Middleware } from 'koa';
import { logger } from '../../core/observability/logger';
import { httpDuration, httpRequests } from '../../core/observability/metrics';
import { matchedRoute, type MatchedLayer } from './matchedRoute';

/**
 * One structured line per request: method, route template, status, duration, request id and
 * key id. Never the URL's query, headers or body (they may hold query text or credentials).
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
        },
        'request',
      );
    }
  };
}
