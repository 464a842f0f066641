import type { Config } from '../config';
import type { KeyPrincipal } from '../keys/apiKeys';
import { BLOCKED_RETRY_AFTER_SECONDS, type OperationName, type Scope } from './limitTable';
import {
  applicableOverrides,
  organizationLimits,
  ownRequestsPerSecond,
  operationRequestsPerSecond,
  type LimitSettingsReads,
  type OrganizationLimits,
} from './limitSettings';
import type { LimitSettingsDoc } from './limitSettingsRecord';
import { keyScopeChain } from './scopeChain';
import { admitUnderCap, capLogId, returnCapSlot, type CapTaken } from './minuteCaps';
import { rateLimitHeaders, type RateLimitState } from './rateLimitHeaders';
import { operationScopeKey, type Lease, type StoreAdmission, type WindowTaken } from './requestAdmission';
import { secondsUntilNextWindow } from './strictWindow';
import { logger } from '../observability/logger';
import { admissionRefusals } from '../observability/metrics';
import { retryLater, type Problem } from '../problems';

/**
 * Admission control (SPEC 8) as an explicit handle, independent of HTTP. `admissionUnder`'s acquire
 * holds a request to the organization's strict per-second rate and in-flight limit (a slot
 * each, taken at once); `admitOperation` adds the operation's own rate, administrator blocks
 * and per-minute caps; `release` gives the in-flight lease back, and whoever acquired the
 * handle calls it exactly when the request is over (the executor in `finally`; HTTP once the
 * response is sent). A refusal is 429 `rate_limited` with Retry-After and RateLimit headers,
 * and gives back whatever the request had taken so far.
 */
export interface AdmissionHandle<N extends string = OperationName> {
  /** The operation's own admission; throws `rate_limited` (having given back its slots) when refused. */
  admitOperation: (operation: N) => Promise<void>;
  /** `RateLimit-Policy` and `RateLimit` for every limit the request was held to so far. */
  rateLimitHeaders: () => Record<string, string>;
  /** Gives back the in-flight lease; later calls do nothing. */
  release: () => void;
}

export type AcquireAdmission<N extends string = OperationName> = (principal: KeyPrincipal) => Promise<AdmissionHandle<N>>;

/** The scopes whose limits hold a caller's requests, widest first (a key's predecessors included: scopeChain.ts). */
export function principalScopes(p: KeyPrincipal): Scope[] {
  return keyScopeChain(p);
}

function refusal(detail: string, retryAfterSeconds: number, states: RateLimitState[], extensions: Record<string, unknown>): Problem {
  admissionRefusals.inc({ code: 'rate_limited' });
  return retryLater('rate_limited', detail, retryAfterSeconds, { headers: rateLimitHeaders(states), extensions });
}

function windowState(policy: string, quota: number, remaining: number, nowMs: number): RateLimitState {
  return { policy, quota, windowSeconds: 1, remaining, resetSeconds: secondsUntilNextWindow(nowMs) };
}

class HeldAdmission implements AdmissionHandle {
  private readonly windows: WindowTaken[];
  private readonly caps: CapTaken[] = [];
  private released = false;

  constructor(
    private readonly admission: StoreAdmission,
    private readonly principal: KeyPrincipal,
    private readonly settings: LimitSettingsDoc,
    private readonly org: OrganizationLimits,
    private readonly lease: Lease,
    baselineWindow: WindowTaken,
    private readonly states: RateLimitState[],
  ) {
    this.windows = [baselineWindow];
  }

  rateLimitHeaders(): Record<string, string> {
    return rateLimitHeaders(this.states);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.admission.releaseLease(this.lease);
  }

  async admitOperation(operation: OperationName): Promise<void> {
    const orgId = this.principal.orgId;
    const overrides = applicableOverrides(this.settings, operation, principalScopes(this.principal));
    if (overrides.block) {
      throw await this.refuse(
        operation,
        `The operation ${operation} is blocked by an administrator of the organization.`,
        BLOCKED_RETRY_AFTER_SECONDS,
        'denied',
      );
    }

    if (ownRequestsPerSecond(operation) !== undefined) {
      const limit = operationRequestsPerSecond(operation, this.org);
      const w = await this.admission.admitWindow(operationScopeKey(orgId, operation), limit);
      this.states.push(windowState(operation, limit, w.admitted ? limit - w.count : 0, this.admission.now()));
      if (!w.admitted) {
        throw await this.refuse(
          operation,
          `The request rate of ${operation} (${limit} per second) is used up for this second.`,
          w.retryAfterSeconds,
          'requests_per_second',
        );
      }
      this.windows.push(w.taken);
    }

    for (const cap of overrides.caps) {
      const limit = cap.requestsPerMinute ?? 0;
      const c = await admitUnderCap(capLogId(orgId, operation, cap.scopeType, cap.scopeId), limit, this.admission.now);
      this.states.push({
        policy: `${operation}@${cap.scopeType}`,
        quota: limit,
        windowSeconds: 60,
        remaining: c.admitted ? c.remaining : 0,
        resetSeconds: c.admitted ? c.resetSeconds : c.retryAfterSeconds,
      });
      if (!c.admitted) {
        const detail = `The per-minute cap of ${limit} on ${operation} for this ${cap.scopeType.replace('_', ' ')} is reached.`;
        throw await this.refuse(operation, detail, c.retryAfterSeconds, 'requests_per_minute');
      }
      this.caps.push(c.taken);
    }
  }

  /** Gives back the window and cap slots of a refused request (a refusal consumes nothing). */
  private async refuse(operation: OperationName, detail: string, retryAfter: number, limit: string): Promise<Problem> {
    const taken = [...this.windows.splice(0).map((w) => this.admission.returnWindowSlot(w)), ...this.caps.splice(0).map(returnCapSlot)];
    await Promise.all(taken).catch((err) => logger.warn({ err: { message: (err as Error).message } }, 'could not give back admission slots'));
    return refusal(detail, retryAfter, this.states, { operation, limit });
  }
}

/** What admission reads of an app's dependencies (core/deps.ts). */
export interface AdmissionDeps {
  config: Pick<Config, 'limits' | 'readCacheMs'>;
  admission: StoreAdmission;
  limitSettings: LimitSettingsReads;
}

/**
 * Baseline admission of one request of `principal`'s organization by an app's store admission
 * under its config (in-flight lease TTL, read-cache TTL); the acquire throws `rate_limited` when refused.
 */
export function admissionUnder(deps: AdmissionDeps): AcquireAdmission {
  const leaseTtlMs = deps.config.limits.leaseTtlSeconds * 1000;
  return (principal) => acquireAdmission(deps, principal, leaseTtlMs);
}

async function acquireAdmission({ admission, limitSettings, config }: AdmissionDeps, principal: KeyPrincipal, leaseTtlMs: number): Promise<AdmissionHandle> {
  const settings = await limitSettings.get(config, principal.orgId);
  const org = organizationLimits(settings);
  const result = await admission.admitRequest({
    orgId: principal.orgId,
    requestsPerSecond: org.requestsPerSecond,
    maxConcurrency: org.maxConcurrency,
    leaseTtlMs,
  });
  const baseline = windowState('baseline', org.requestsPerSecond, result.admitted ? result.limit - result.count : 0, admission.now());
  if (!result.admitted) {
    const detail =
      result.reason === 'request_rate'
        ? `The organization's request rate of ${org.requestsPerSecond} per second is used up for this second.`
        : `The organization already has ${org.maxConcurrency} requests in flight.`;
    throw refusal(detail, result.retryAfterSeconds, [baseline], { limit: result.reason === 'request_rate' ? 'requests_per_second' : 'max_concurrency' });
  }
  return new HeldAdmission(admission, principal, settings, org, result.lease, result.taken, [baseline]);
}
