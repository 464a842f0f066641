import type { Context, Middleware, Next } from 'koa';
import { config } from '../../core/config';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { BLOCKED_RETRY_AFTER_SECONDS, type Scope } from '../../core/limits/limitTable';
import {
  admissionLimitSettings, applicableOverrides, organizationLimits, ownRequestsPerSecond, operationRequestsPerSecond,
  type LimitSettingsDoc, type OrganizationLimits,
} from '../../core/limits/limitSettings';
import { admitUnderCap, capLogId, returnCapSlot, type CapTaken } from '../../core/limits/minuteCaps';
import { rateLimitHeaders, type RateLimitState } from '../../core/limits/rateLimitHeaders';
import {
  admitRequest, admitWindow, operationScopeKey, releaseLease, returnWindowSlot, type WindowTaken,
} from '../../core/limits/requestAdmission';
import { secondsUntilNextWindow } from '../../core/limits/strictWindow';
import { logger } from '../../core/observability/logger';
import { admissionRefusals } from '../../core/observability/metrics';
import { retryLater, type Problem } from '../../core/problems';

/**
 * Admission control (SPEC 8): `baselineAdmission` holds every authenticated /v1 request to the
 * organization's strict per-second request rate and in-flight limit (a slot each, taken at once) and
 * holds the in-flight lease until the response is finished; `operationAdmission` adds the
 * operation's own rate, administrator blocks and per-minute caps. A refusal is 429
 * `rate_limited` with Retry-After, and gives back whatever the request had taken so far.
 */
interface AdmissionState {
  settings: LimitSettingsDoc;
  org: OrganizationLimits;
  windows: WindowTaken[];
  caps: CapTaken[];
  rateLimits: RateLimitState[];
}

export function principalScopes(p: KeyPrincipal): Scope[] {
  return [
    { type: 'organization', id: p.orgId },
    { type: 'application', id: p.applicationId },
    { type: 'key_family', id: p.familyId },
    { type: 'key', id: p.keyId },
  ];
}

function setRateLimitHeaders(ctx: Context, states: RateLimitState[]): Record<string, string> {
  const headers = rateLimitHeaders(states);
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  return headers;
}

function refusal(ctx: Context, detail: string, retryAfterSeconds: number, states: RateLimitState[], extensions: Record<string, unknown>): Problem {
  admissionRefusals.inc({ code: 'rate_limited' });
  return retryLater('rate_limited', detail, retryAfterSeconds, { headers: setRateLimitHeaders(ctx, states), extensions });
}

/** Gives back the window and cap slots a refused request took (a refusal consumes nothing). */
async function giveBack(state: AdmissionState): Promise<void> {
  const windows = state.windows.splice(0);
  const caps = state.caps.splice(0);
  await Promise.all([...windows.map(returnWindowSlot), ...caps.map(returnCapSlot)]).catch((err) =>
    logger.warn({ err: { message: (err as Error).message } }, 'could not give back admission slots'),
  );
}

export function baselineAdmission(): Middleware {
  return async (ctx: Context, next: Next) => {
    const principal = ctx.state.principal as KeyPrincipal | undefined;
    if (!principal) return next();
    const leaseTtlMs = config().limits.leaseTtlSeconds * 1000;
    const settings = await admissionLimitSettings(principal.orgId);
    const org = organizationLimits(settings);
    const result = await admitRequest({ orgId: principal.orgId, requestsPerSecond: org.requestsPerSecond, maxConcurrency: org.maxConcurrency, leaseTtlMs });
    const baseline: RateLimitState = {
      policy: 'baseline',
      quota: org.requestsPerSecond,
      windowSeconds: 1,
      remaining: result.admitted ? result.limit - result.count : 0,
      resetSeconds: secondsUntilNextWindow(Date.now()),
    };
    if (!result.admitted) {
      const detail =
        result.reason === 'request_rate'
          ? `The organization's request rate of ${org.requestsPerSecond} per second is used up for this second.`
          : `The organization already has ${org.maxConcurrency} requests in flight.`;
      throw refusal(ctx, detail, result.retryAfterSeconds, [baseline], { limit: result.reason === 'request_rate' ? 'requests_per_second' : 'max_concurrency' });
    }
    const state: AdmissionState = { settings, org, windows: [result.taken], caps: [], rateLimits: [baseline] };
    ctx.state.admission = state;
    setRateLimitHeaders(ctx, state.rateLimits);

    // The lease is held until the response is finished and the handler has settled.
    let settled = false;
    let closed = false;
    let released = false;
    const release = () => {
      if (released || !settled || !closed) return;
      released = true;
      releaseLease(result.lease);
    };
    ctx.res.once('close', () => {
      closed = true;
      release();
    });
    try {
      await next();
    } finally {
      settled = true;
      release();
    }
  };
}

export function operationAdmission(operation: string): Middleware {
  return async (ctx: Context, next: Next) => {
    const state = ctx.state.admission as AdmissionState | undefined;
    const principal = ctx.state.principal as KeyPrincipal | undefined;
    if (!state || !principal) return next();
    const refuse = async (detail: string, retryAfter: number, extensions: Record<string, unknown>) => {
      await giveBack(state);
      return refusal(ctx, detail, retryAfter, state.rateLimits, { operation, ...extensions });
    };

    const overrides = applicableOverrides(state.settings, operation, principalScopes(principal));
    if (overrides.block) {
      throw await refuse(`The operation ${operation} is blocked by an administrator of the organization.`, BLOCKED_RETRY_AFTER_SECONDS, { limit: 'denied' });
    }

    if (ownRequestsPerSecond(operation) !== undefined) {
      const limit = operationRequestsPerSecond(operation, state.org);
      const w = await admitWindow(operationScopeKey(principal.orgId, operation), limit);
      const rl: RateLimitState = {
        policy: operation,
        quota: limit,
        windowSeconds: 1,
        remaining: w.admitted ? limit - w.count : 0,
        resetSeconds: secondsUntilNextWindow(Date.now()),
      };
      state.rateLimits.push(rl);
      if (!w.admitted) throw await refuse(`The request rate of ${operation} (${limit} per second) is used up for this second.`, w.retryAfterSeconds, { limit: 'requests_per_second' });
      state.windows.push(w.taken);
    }

    for (const cap of overrides.caps) {
      const limit = cap.requestsPerMinute ?? 0;
      const c = await admitUnderCap(capLogId(principal.orgId, operation, cap.scopeType, cap.scopeId), limit);
      const rl: RateLimitState = {
        policy: `${operation}@${cap.scopeType}`,
        quota: limit,
        windowSeconds: 60,
        remaining: c.admitted ? c.remaining : 0,
        resetSeconds: c.admitted ? c.resetSeconds : c.retryAfterSeconds,
      };
      state.rateLimits.push(rl);
      if (!c.admitted) {
        throw await refuse(`The per-minute cap of ${limit} on ${operation} for this ${cap.scopeType.replace('_', ' ')} is reached.`, c.retryAfterSeconds, {
          limit: 'requests_per_minute',
        });
      }
      state.caps.push(c.taken);
    }
    setRateLimitHeaders(ctx, state.rateLimits);
    await next();
  };
}
