import type { Context, Middleware, Next } from 'koa';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { AcquireAdmission, AdmissionHandle } from '../../core/limits/operationAdmission';
import type { UsageCounters } from '../../core/usage/usageCounters';
import { statusOfFailure } from '../creditHeaders';
import { matchedLayer, type MatchedLayer } from '../matchedRoute';

/**
 * HTTP adapter of baseline admission (core/limits/operationAdmission.ts): every authenticated /v1
 * request takes its slot before routing, and the handle rides in `ctx.state.admission` for the
 * route's operation admission. The in-flight lease is held until the response is finished and
 * the handler has settled, so a streamed or slow response keeps its place.
 */
export function admissionOf(ctx: Context): AdmissionHandle | undefined {
  return ctx.state.admission as AdmissionHandle | undefined;
}

/**
 * `usage`: a request refused here never reaches the operation executor, which counts the
 * others, so its refusal (a 429) is counted here, under the operation of the route it matched.
 */
export function baselineAdmission(acquire: AcquireAdmission, usage?: UsageCounters): Middleware {
  return async (ctx: Context, next: Next) => {
    const principal = ctx.state.principal as KeyPrincipal | undefined;
    if (!principal) return next();
    let admission: AdmissionHandle;
    try {
      admission = await acquire(principal);
    } catch (err) {
      const operation = matchedLayer(ctx.matched as MatchedLayer[] | undefined, ctx.method)?.name;
      if (usage && operation) usage.countRequest(principal.orgId, operation, statusOfFailure(err), 0);
      throw err;
    }
    ctx.state.admission = admission;

    let settled = false;
    let closed = false;
    const release = () => {
      if (settled && closed) admission.release();
    };
    // A response closes once: `on` spares the wrapper `once` makes on every request.
    ctx.res.on('close', () => {
      closed = true;
      release();
    });
    try {
      await next();
    } finally {
      // The route's answer reports the limits after its operation (api/mountRoutes.ts); one that
      // failed before that (an unreadable body) still reports the baseline's.
      if (!ctx.response.get('RateLimit')) ctx.set(admission.rateLimitHeaders());
      settled = true;
      release();
    }
  };
}
