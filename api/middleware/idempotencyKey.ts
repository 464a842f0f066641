import type { Middleware } from 'koa';
import { requireIdempotencyKey } from '../operations/idempotentRun';
import type { RouteSpec } from '../routeSpec';
import { matchedRoute, type MatchedLayer } from '../matchedRoute';

/**
 * /v1 middleware between authentication and baseline admission: a request to an idempotent
 * route without a valid Idempotency-Key is malformed (400, SPEC 7.2) whatever the limits, so it
 * is answered before admission could answer 429, and takes no slot.
 */
export function idempotencyKeyBeforeAdmission(routes: readonly RouteSpec[]): Middleware {
  const idempotent = new Set(routes.filter((r) => r.idempotent).map((r) => `${r.method} ${r.path}`));
  return (ctx, next) => {
    const route = matchedRoute(ctx.matched as MatchedLayer[] | undefined, ctx.method);
    if (route && idempotent.has(`${ctx.method} ${route}`)) requireIdempotencyKey({ idempotent: true }, ctx.get('Idempotency-Key') || undefined);
    return next();
  };
}
