import type { Middleware } from 'koa';
import { requireIdempotencyKey } from '../operations/idempotentRun';
import type { RouteSpec } from '../routeSpec';

/**
 * /v1 middleware between authentication and baseline admission, of each idempotent route: a
 * request without a valid Idempotency-Key is malformed (400, SPEC 7.2) whatever the limits, so it
 * is answered before admission could answer 429, and takes no slot. Other routes do without it.
 */
export function idempotencyKeyBeforeAdmission(spec: Pick<RouteSpec, 'idempotent'>): Middleware[] {
  if (!spec.idempotent) return [];
  return [
    (ctx, next) => {
      requireIdempotencyKey(spec, ctx.get('Idempotency-Key') || undefined);
      return next();
    },
  ];
}
