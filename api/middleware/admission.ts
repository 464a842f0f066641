import type { Middleware } from 'koa';

/**
 * Admission control hooks (SPEC 8): `baselineAdmission` holds every authenticated /v1 request
 * to the organization's request rate and in-flight limit; `operationAdmission` adds the
 * per-operation limits. Implemented in the operational-limits work; pass-through until then.
 */
export function baselineAdmission(): Middleware {
  return async (_ctx, next) => {
    await next();
  };
}

export function operationAdmission(_operation: string): Middleware {
  return async (_ctx, next) => {
    await next();
  };
}
