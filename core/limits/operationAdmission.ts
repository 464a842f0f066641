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
import { rateLimitHeader, rateLimitHeaders, rateLimitPolicyHeader, type RateLimitState } from './rateLimitHeaders';
import { operationScopeKey, type Lease, type StoreAdmission, type WindowTaken } from './requestAdmission';
import { secondsUntilNextWindow } from './strictWindow';
import type { Logger } from '../observability/logger';
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
  /**
   * The operation's own admission; rejects with `rate_limited` (having given back its slots) when
   * refused. Undefined when there was nothing to take: no own rate, no override.
   */
  admitOperation: (operation: N) => Promise<void> | undefined;
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

/** What a refusal of a blocked operation says (the reference's examples quote it too). */
export function operationBlocked(operation: OperationName): string {
  return `The operation ${operation} is blocked by an administrator of the organization.`;
}

/** What a refusal by the operation's own request rate says. */
export function operationRateUsedUp(operation: OperationName, perSecond: number): string {
  return `The request rate of ${operation} (${perSecond} per second) is used up for this second.`;
}

function refusal(detail: string, retryAfterSeconds: number, states: RateLimitState[], extensions: Record<string, unknown>): Problem {
  admissionRefusals.inc({ code: 'rate_limited' });
  return retryLater('rate_limited', detail, retryAfterSeconds, { headers: rateLimitHeaders(states), extensions });
}

/**
 * One limit a request is held to, as its RateLimit header reports it. Windows and in-flight places
 * are read when the header is written, after a refusal gave back what it took, so each `r` is
 * what the next request would find; a per-minute cap carries what its own admission found.
 */
type HeldLimit =
  | { kind: 'window'; policy: string; scopeKey: string; quota: number; refused?: boolean }
  | { kind: 'in_flight'; quota: number; refused?: boolean }
  | { kind: 'cap'; state: RateLimitState };

const IN_FLIGHT_POLICY = 'in_flight';
const BASELINE_LIMITS = 2;

function stateOf(admission: StoreAdmission, orgId: string, limit: HeldLimit, lease: Lease | undefined): RateLimitState {
  if (limit.kind === 'cap') return limit.state;
  if (limit.kind === 'in_flight') {
    const remaining = limit.refused ? 0 : admission.inFlightRemaining(orgId, limit.quota, lease);
    return { policy: IN_FLIGHT_POLICY, quota: limit.quota, remaining, quotaUnit: 'concurrent-requests' };
  }
  const remaining = limit.refused ? 0 : admission.windowRemaining(limit.scopeKey, limit.quota);
  return { policy: limit.policy, quota: limit.quota, windowSeconds: 1, remaining, resetSeconds: secondsUntilNextWindow(admission.now()) };
}

function statesOf(admission: StoreAdmission, orgId: string, limits: HeldLimit[], lease?: Lease): RateLimitState[] {
  return limits.map((l) => stateOf(admission, orgId, l, lease));
}

/** The limits every request is held to first: its organization's window and in-flight places. */
function baselineLimits(scopeKey: string, org: OrganizationLimits, refused?: 'request_rate' | 'in_flight'): HeldLimit[] {
  return [
    { kind: 'window', policy: 'baseline', scopeKey, quota: org.requestsPerSecond, refused: refused === 'request_rate' },
    { kind: 'in_flight', quota: org.maxConcurrency, refused: refused === 'in_flight' },
  ];
}

/** Organizations' quotas whose baseline RateLimit-Policy is kept; beyond it the list starts again. */
const KEPT_POLICIES = 1000;

/**
 * The baseline's RateLimit-Policy at a pair of quotas, made once per pair (most organizations
 * share the defaults): it names no figure that changes from one request to the next.
 */
class BaselinePolicies {
  private readonly byQuotas = new Map<number, Map<number, string>>();
  private size = 0;

  of(admission: StoreAdmission, org: OrganizationLimits): string {
    let byConcurrency = this.byQuotas.get(org.requestsPerSecond);
    let policy = byConcurrency?.get(org.maxConcurrency);
    if (policy !== undefined) return policy;
    if (this.size >= KEPT_POLICIES) {
      this.byQuotas.clear();
      this.size = 0;
      byConcurrency = undefined;
    }
    // Read as refused, so that no window or place is looked up: a policy names none of their figures.
    const limits = baselineLimits('', org).map((l) => (l.kind === 'cap' ? l : { ...l, refused: true }));
    policy = rateLimitPolicyHeader(statesOf(admission, '', limits));
    if (!byConcurrency) this.byQuotas.set(org.requestsPerSecond, (byConcurrency = new Map()));
    byConcurrency.set(org.maxConcurrency, policy);
    this.size++;
    return policy;
  }
}

class HeldAdmission implements AdmissionHandle {
  private readonly windows: WindowTaken[];
  private readonly caps: { taken: CapTaken; state: RateLimitState }[] = [];
  private released = false;

  constructor(
    private readonly admission: StoreAdmission,
    private readonly principal: KeyPrincipal,
    private readonly settings: LimitSettingsDoc,
    private readonly org: OrganizationLimits,
    private readonly lease: Lease,
    baselineWindow: WindowTaken,
    private readonly limits: HeldLimit[],
    private readonly logger: Logger,
    /** RateLimit-Policy while the request is held to the baseline's limits alone. */
    private readonly baselinePolicy: string,
  ) {
    this.windows = [baselineWindow];
  }

  rateLimitHeaders(): Record<string, string> {
    const states = statesOf(this.admission, this.principal.orgId, this.limits, this.released ? undefined : this.lease);
    const policy = states.length === BASELINE_LIMITS ? this.baselinePolicy : rateLimitPolicyHeader(states);
    return { 'RateLimit-Policy': policy, RateLimit: rateLimitHeader(states) };
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.admission.releaseLease(this.lease);
  }

  admitOperation(operation: OperationName): Promise<void> | undefined {
    // Most operations have no rate of their own and most organizations no override: nothing to take.
    if (ownRequestsPerSecond(operation) === undefined && this.settings.overrides.length === 0) return undefined;
    return this.admitOperationUnderLimits(operation);
  }

  private async admitOperationUnderLimits(operation: OperationName): Promise<void> {
    const orgId = this.principal.orgId;
    const overrides = applicableOverrides(this.settings, operation, principalScopes(this.principal));
    if (overrides.block) {
      throw await this.refuse(operation, operationBlocked(operation), BLOCKED_RETRY_AFTER_SECONDS, 'denied');
    }

    if (ownRequestsPerSecond(operation) !== undefined) {
      const quota = operationRequestsPerSecond(operation, this.org);
      const scopeKey = operationScopeKey(orgId, operation);
      const w = await this.admission.admitWindow(scopeKey, quota);
      this.limits.push({ kind: 'window', policy: operation, scopeKey, quota, refused: !w.admitted });
      if (!w.admitted) {
        throw await this.refuse(operation, operationRateUsedUp(operation, quota), w.retryAfterSeconds, 'requests_per_second');
      }
      this.windows.push(w.taken);
    }

    for (const cap of overrides.caps) {
      const quota = cap.requestsPerMinute ?? 0;
      const c = await admitUnderCap(capLogId(orgId, operation, cap.scopeType, cap.scopeId), quota, {
        limits: this.admission.limits,
        now: this.admission.now,
        logger: this.logger,
      });
      const state: RateLimitState = {
        policy: `${operation}@${cap.scopeType}`,
        quota,
        windowSeconds: 60,
        remaining: c.admitted ? c.remaining : 0,
        resetSeconds: c.admitted ? c.resetSeconds : c.retryAfterSeconds,
      };
      this.limits.push({ kind: 'cap', state });
      if (!c.admitted) {
        const detail = `The per-minute cap of ${quota} on ${operation} for this ${cap.scopeType.replace('_', ' ')} is reached.`;
        throw await this.refuse(operation, detail, c.retryAfterSeconds, 'requests_per_minute');
      }
      this.caps.push({ taken: c.taken, state });
    }
  }

  /** Gives back the window and cap slots of a refused request (a refusal consumes nothing). */
  private async refuse(operation: OperationName, detail: string, retryAfter: number, limit: string): Promise<Problem> {
    const caps = this.caps.splice(0);
    const taken = [...this.windows.splice(0).map((w) => this.admission.returnWindowSlot(w)), ...caps.map((c) => returnCapSlot(this.admission.limits, c.taken))];
    await Promise.all(taken).catch((err) => this.logger.warn({ err: { message: (err as Error).message } }, 'could not give back admission slots'));
    for (const c of caps) c.state.remaining = Math.min(c.state.quota, c.state.remaining + 1);
    // The refused request's own place is still held until the response is over; the next finds it free.
    return refusal(detail, retryAfter, statesOf(this.admission, this.principal.orgId, this.limits, this.lease), { operation, limit });
  }
}

/** What admission reads of an app's dependencies (core/deps.ts). */
export interface AdmissionDeps {
  config: Pick<Config, 'limits' | 'readCacheMs'>;
  admission: StoreAdmission;
  limitSettings: LimitSettingsReads;
  /** The app's logger: what admission cannot give back is logged through it. */
  logger: Logger;
}

/**
 * Baseline admission of one request of `principal`'s organization by an app's store admission
 * under its config (in-flight lease TTL, read-cache TTL); the acquire throws `rate_limited` when refused.
 */
export function admissionUnder(deps: AdmissionDeps): AcquireAdmission {
  const leaseTtlMs = deps.config.limits.leaseTtlSeconds * 1000;
  const policies = new BaselinePolicies();
  return (principal) => acquireAdmission(deps, principal, leaseTtlMs, policies);
}

async function acquireAdmission(
  { admission, limitSettings, config, logger }: AdmissionDeps,
  principal: KeyPrincipal,
  leaseTtlMs: number,
  policies: BaselinePolicies,
): Promise<AdmissionHandle> {
  const settings = await limitSettings.get(config, principal.orgId);
  const org = organizationLimits(settings);
  const request = { orgId: principal.orgId, requestsPerSecond: org.requestsPerSecond, maxConcurrency: org.maxConcurrency, leaseTtlMs };
  // Blocks this app holds answer most requests of a raised limit at once; the rest ask the store.
  const result = admission.admitRequestNow(request) ?? (await admission.admitRequest(request));
  const limits = baselineLimits(admission.requestScopeKeyOf(principal.orgId), org, result.admitted ? undefined : result.reason);
  if (!result.admitted) {
    const detail =
      result.reason === 'request_rate'
        ? `The organization's request rate of ${org.requestsPerSecond} per second is used up for this second.`
        : `The organization already has ${org.maxConcurrency} requests in flight.`;
    throw refusal(detail, result.retryAfterSeconds, statesOf(admission, principal.orgId, limits, result.givenBack), {
      limit: result.reason === 'request_rate' ? 'requests_per_second' : 'max_concurrency',
    });
  }
  return new HeldAdmission(admission, principal, settings, org, result.lease, result.taken, limits, logger, policies.of(admission, org));
}
