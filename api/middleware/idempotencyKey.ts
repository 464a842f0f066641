import type { Middleware } from 'koa';
import { requireIdempotencyKey } from '../operations/idempotentRun';
import type { RouteSpec } from '../routeSpec';
import { matchedLayer, type MatchedLayer } from '../matchedRoute';

/**
 * /v1 middleware between authentication and baseline admission: a request to an idempotent
 * route without a valid Idempotency-Key is malformed (400, SPEC 7.2) whatever the limits, so it
 * is answered before admission could answer 429, and takes no slot.
 */
export function idempotencyKeyBeforeAdmission(routes: readonly RouteSpec[]): Middleware {
  // By the matched route's name, its operation (mountRoutes registers it so): one operation, one route.
  const idempotent = new Set<string>(routes.filter((r) => r.idempotent).map((r) => r.operation));
  return (ctx, next) => {
    const operation = matchedLayer(ctx.matched as MatchedLayer[] | undefined, ctx.method)?.name;
    if (operation && idempotent.has(operation)) requireIdempotencyKey({ idempotent: true }, ctx.get('Idempotency-Key') || undefined);
    return next();
  };
}
