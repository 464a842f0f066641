import type { Config } from '../config';
import { GatheredReads } from '../store/gatheredReads';
import { MISS_SPACING_MS, ReadCache, waitUntilReadCachesExpire } from '../store/readCache';
import { commitNextVersion } from '../store/versionedDocument';
import { requireOrganization } from '../tenancy/provisioning';
import type { TenancyStores } from '../tenancy/store';
import {
  BASELINE_ENTRY,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_REQUESTS_PER_SECOND,
  OPERATION_REQUESTS_PER_SECOND,
  type LimitEntryName,
  type OperationName,
  type Scope,
} from './limitTable';
import { LimitSettingsDirectory } from './limitSettingsDirectory';
import { scopeChain, type ScopeStores } from './scopeChain';
import type { Actor, LimitOverride, LimitSettingsDoc } from './limitSettingsRecord';
import type { LimitsStore, LimitsStores } from './store';

/**
 * An organization's own limits (SPEC 8.3): an organization-wide request rate and in-flight
 * limit, and per-operation overrides (a per-minute cap or a block) on the organization, one
 * application, one key family or one key. One document per organization that has any, read by
 * its requests through the replica's short read cache (an organization without one is known by
 * the replica's directory, limitSettingsDirectory.ts); a change returns only once every
 * replica's cache and directory has let go of the old state, so it applies to the next request
 * on every API replica.
 */
export function emptySettings(orgId: string): LimitSettingsDoc {
  return { _id: orgId, v: 0, requestsPerSecond: null, maxConcurrency: null, rateCleared: false, overrides: [] };
}

/** A stored settings document with the defaults of the fields it lacks; none stored, the defaults. */
function withDefaults(orgId: string, doc: LimitSettingsDoc | null | undefined): LimitSettingsDoc {
  return doc ? { ...emptySettings(orgId), ...doc } : emptySettings(orgId);
}

/** The stored settings, read now (the native driver by primary key: no document hydration). */
export async function readLimitSettings(stores: LimitsStores, orgId: string): Promise<LimitSettingsDoc> {
  return withDefaults(orgId, await stores.limits.findLimitSettings(orgId));
}

/** What a change needs: it returns once every replica's read cache (READ_CACHE_MS) has let go of the old settings. */
export type LimitChangeSettings = Pick<Config, 'readCacheMs'>;

/**
 * The settings every request is admitted under, as fresh as one app's read cache keeps them
 * (see readCache.ts). An organization the app's directory of organizations with settings of their
 * own does not list is at the defaults without a read (limitSettingsDirectory.ts); the others'
 * settings are read through the cache, every organization's refreshes of a few milliseconds as
 * one find. The app's composition root builds one (core/deps.ts).
 */
export class LimitSettingsReads {
  private readonly reads = new ReadCache<LimitSettingsDoc>();
  private readonly lookups: GatheredReads<LimitSettingsDoc>;
  private readonly directory: LimitSettingsDirectory;

  constructor(limits: LimitsStore, clock?: () => number) {
    this.directory = new LimitSettingsDirectory(limits, clock);
    this.lookups = new GatheredReads<LimitSettingsDoc>(
      async (orgIds) => {
        const docs = await limits.limitSettingsOf(orgIds);
        return new Map(docs.map((d) => [d._id, d]));
      },
      undefined,
      MISS_SPACING_MS,
    );
  }

  get(settings: Pick<Config, 'readCacheMs'>, orgId: string): Promise<LimitSettingsDoc> {
    const atDefaults = this.directory.atDefaults(orgId, settings.readCacheMs);
    if (atDefaults === true) return Promise.resolve(emptySettings(orgId));
    if (atDefaults === false) return this.read(settings, orgId);
    return atDefaults.then((known) => (known ? emptySettings(orgId) : this.read(settings, orgId)));
  }

  /** Keeps the directory fresh until stopped, requests or not (an API replica, api/server.ts). */
  keepDirectoryCurrent(settings: Pick<Config, 'readCacheMs'>): { stop: () => void } {
    return this.directory.keepCurrent(settings.readCacheMs);
  }

  private read(settings: Pick<Config, 'readCacheMs'>, orgId: string): Promise<LimitSettingsDoc> {
    return this.reads.get(orgId, settings.readCacheMs, async (gatherMs) => withDefaults(orgId, await this.lookups.read(orgId, gatherMs)));
  }
}

// ---- effective limits (pure) ----

export interface OrganizationLimits {
  requestsPerSecond: number;
  maxConcurrency: number;
  source: 'inherited' | 'override' | 'cleared';
}

export function organizationLimits(s: LimitSettingsDoc): OrganizationLimits {
  const rps = s.requestsPerSecond ?? DEFAULT_REQUESTS_PER_SECOND;
  const mc = s.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const custom = rps !== DEFAULT_REQUESTS_PER_SECOND || mc !== DEFAULT_MAX_CONCURRENCY;
  return { requestsPerSecond: rps, maxConcurrency: mc, source: custom ? 'override' : s.rateCleared ? 'cleared' : 'inherited' };
}

/** The request rate an operation is held to: its own rate or the baseline, the stricter. */
export function operationRequestsPerSecond(operation: OperationName, org: OrganizationLimits): number {
  const own = ownRequestsPerSecond(operation);
  return own === undefined ? org.requestsPerSecond : Math.min(own, org.requestsPerSecond);
}

/** An operation's own request rate (SPEC 8.1 item 2), if it has one besides the baseline. */
export function ownRequestsPerSecond(operation: OperationName): number | undefined {
  return OPERATION_REQUESTS_PER_SECOND[operation];
}

/** Ceiling a per-minute cap is measured against: the operation's standard rate over a minute. */
export function standardRequestsPerMinute(operation: LimitEntryName, org: OrganizationLimits): number {
  return (operation === BASELINE_ENTRY ? org.requestsPerSecond : operationRequestsPerSecond(operation, org)) * 60;
}

export function sameScope(o: Pick<LimitOverride, 'scopeType' | 'scopeId'>, scope: Scope): boolean {
  return o.scopeType === scope.type && o.scopeId === scope.id;
}

export interface ApplicableOverrides {
  block?: LimitOverride;
  caps: LimitOverride[];
  cleared: LimitOverride[];
}

/** Overrides of one operation that hold requests made within `chain` (a scope and every wider one). */
export function applicableOverrides(s: LimitSettingsDoc, operation: OperationName, chain: Scope[]): ApplicableOverrides {
  const mine = s.overrides.filter((o) => o.operation === operation && chain.some((c) => sameScope(o, c)));
  return {
    block: mine.find((o) => o.kind === 'block'),
    caps: mine.filter((o) => o.kind === 'cap'),
    cleared: mine.filter((o) => o.kind === 'cleared'),
  };
}

// ---- changes (operator CLI; customers may only lower) ----

export class LimitChangeError extends Error {}

/** The stores a change to one scope's override reads and writes. */
export type LimitChangeStores = ScopeStores & LimitsStores;

// Versioned compare-and-set through unique inserts (see versionedDocument.ts): a conditional
// update alone would let two concurrent changes on FerretDB both succeed and one be lost.
async function updateSettings(
  stores: LimitsStores,
  settings: LimitChangeSettings,
  orgId: string,
  now: () => number,
  change: (s: LimitSettingsDoc) => LimitSettingsDoc,
): Promise<LimitSettingsDoc> {
  const store = stores.limits.limitSettingsVersions();
  for (let attempt = 0; attempt < 20; attempt++) {
    const current = await readLimitSettings(stores, orgId);
    const next = change(structuredClone(current));
    const { _id: _ignored, v: _v, ...fields } = next;
    if (await commitNextVersion(store, orgId, current.v, fields, new Date(now()))) {
      // After the settings are stored: a replica that reads the new mark finds them in its next list.
      await stores.limits.markLimitSettingsChanged();
      await waitUntilReadCachesExpire(settings.readCacheMs);
      return { ...next, v: current.v + 1 };
    }
  }
  throw new LimitChangeError('limit settings changed concurrently; try again');
}

function upsertOverride(s: LimitSettingsDoc, o: Omit<LimitOverride, 'updatedAt'>, nowMs: number): LimitSettingsDoc {
  const rest = s.overrides.filter((x) => !(x.operation === o.operation && x.scopeType === o.scopeType && x.scopeId === o.scopeId));
  return { ...s, overrides: [...rest, { ...o, updatedAt: new Date(nowMs) }] };
}

export function existingOverride(s: LimitSettingsDoc, operation: string, scope: Scope): LimitOverride | undefined {
  return s.overrides.find((o) => o.operation === operation && sameScope(o, scope));
}

/** A count as people write it: 1,500. */
function countText(n: number): string {
  return n.toLocaleString('en-US');
}

/** Pure rule for a cap change (SPEC 8.3 rules 2 and 3). */
export function checkCapChange(s: LimitSettingsDoc, operation: OperationName, scope: Scope, requestsPerMinute: number, actor: Actor): void {
  if (!Number.isInteger(requestsPerMinute) || requestsPerMinute < 1) throw new LimitChangeError('requests per minute must be a positive integer');
  const standard = standardRequestsPerMinute(operation, organizationLimits(s));
  if (requestsPerMinute >= standard) {
    throw new LimitChangeError(
      `a cap on ${operation} must be below its standard limit of ${countText(standard)} a minute: at most ${countText(standard - 1)} a minute`,
    );
  }
  const existing = existingOverride(s, operation, scope);
  if (actor === 'customer') {
    if (existing?.kind === 'block') {
      throw new LimitChangeError(
        setByOf(existing) === 'customer'
          ? 'the operation is blocked for this scope; clear the block first'
          : 'the operation is blocked; only the operator can lift a block',
      );
    }
    if (existing?.kind === 'cap' && requestsPerMinute > (existing.requestsPerMinute ?? 0)) {
      throw new LimitChangeError('a customer can only lower a cap');
    }
  }
}

type OverrideChange = Pick<LimitOverride, 'kind' | 'requestsPerMinute' | 'setBy'>;

/**
 * A change to the limit of one operation (or, for clearLimit, the baseline entry) on one scope
 * of an organization, as the operator makes it unless `actor` says the customer does.
 */
export interface LimitChangeRequest<O extends LimitEntryName = OperationName> {
  orgId: string;
  operation: O;
  scope: Scope;
  actor?: Actor;
  /** The clock of the app making the change: the override's `updatedAt`. */
  now: () => number;
}

/**
 * The one road of a scope's override change: the organization and the scope must exist, then
 * `decide` sees the stored settings and the scope's current override and answers the new one
 * (or throws its refusal) inside the conditional update.
 */
async function changeOverride(
  stores: LimitChangeStores,
  settings: LimitChangeSettings,
  { orgId, operation, scope, now }: LimitChangeRequest,
  decide: (s: LimitSettingsDoc, existing: LimitOverride | undefined) => OverrideChange,
): Promise<LimitSettingsDoc> {
  await requireOrganization(stores, orgId);
  await scopeChain(stores, orgId, scope);
  return updateSettings(stores, settings, orgId, now, (s) =>
    upsertOverride(s, { operation, scopeType: scope.type, scopeId: scope.id, ...decide(s, existingOverride(s, operation, scope)) }, now()),
  );
}

export async function setCap(
  stores: LimitChangeStores,
  settings: LimitChangeSettings,
  request: LimitChangeRequest & { requestsPerMinute: number },
): Promise<LimitSettingsDoc> {
  const { operation, scope, requestsPerMinute, actor = 'operator' } = request;
  return changeOverride(stores, settings, request, (s, existing) => {
    checkCapChange(s, operation, scope, requestsPerMinute, actor);
    // A customer lowering the operator's cap leaves it the operator's: clearing it must stay the operator's too.
    const setBy = existing && existing.kind !== 'cleared' && setByOf(existing) === 'operator' ? 'operator' : actor;
    return { kind: 'cap', requestsPerMinute, setBy };
  });
}

export async function blockOperation(stores: LimitChangeStores, settings: LimitChangeSettings, request: LimitChangeRequest): Promise<LimitSettingsDoc> {
  const { actor = 'operator' } = request;
  return changeOverride(stores, settings, request, (_s, existing) => {
    // A customer's block must not take over an operator's cap or block: clearing it later would lift the operator's limit.
    if (actor === 'customer' && existing && existing.kind !== 'cleared' && setByOf(existing) === 'operator') {
      throw new LimitChangeError('the service operator set a limit on this operation for this scope; only the operator can change it');
    }
    return { kind: 'block', requestsPerMinute: null, setBy: actor };
  });
}

/** Who set an override (one stored before this was recorded counts as the operator's). */
export function setByOf(o: Pick<LimitOverride, 'setBy'>): Actor {
  return o.setBy ?? 'operator';
}

/**
 * Pure rule (SPEC 8.3 rule 3): clearing raises a limit back to the standard. The operator may
 * clear anything; a customer only a cap or block the customer set, which takes back their own
 * lowering and never lifts one the operator set.
 */
export function checkClear(actor: Actor, existing?: Pick<LimitOverride, 'kind' | 'setBy'>): void {
  if (actor === 'operator') return;
  if (!existing || existing.kind === 'cleared' || setByOf(existing) !== 'customer') {
    throw new LimitChangeError('only a cap or block your organization set can be cleared here; one the service operator set is cleared by the operator');
  }
}

/** Clears a cap or block; `api.request_baseline.v1` clears the organization-wide rate. */
export async function clearLimit(
  stores: LimitChangeStores,
  settings: LimitChangeSettings,
  request: LimitChangeRequest<LimitEntryName>,
): Promise<LimitSettingsDoc> {
  const { orgId, operation, scope, actor = 'operator', now } = request;
  if (actor === 'customer' && operation === BASELINE_ENTRY) checkClear(actor);
  await requireOrganization(stores, orgId);
  if (operation === BASELINE_ENTRY) {
    if (scope.type !== 'organization') throw new LimitChangeError(`${BASELINE_ENTRY} is organization-wide`);
    return updateSettings(stores, settings, orgId, now, (s) => ({
      ...s,
      rateCleared: s.rateCleared || s.requestsPerSecond !== null || s.maxConcurrency !== null,
      requestsPerSecond: null,
      maxConcurrency: null,
    }));
  }
  await scopeChain(stores, orgId, scope);
  return updateSettings(stores, settings, orgId, now, (s) => {
    const existing = existingOverride(s, operation, scope);
    checkClear(actor, existing);
    return existing
      ? upsertOverride(s, { operation, scopeType: scope.type, scopeId: scope.id, kind: 'cleared', requestsPerMinute: null, setBy: actor }, now())
      : s;
  });
}

/** Pure rule for an organization-wide rate change: customers lower, the operator also raises. */
export function checkRateChange(s: LimitSettingsDoc, change: { requestsPerSecond?: number; maxConcurrency?: number }, actor: Actor): void {
  const org = organizationLimits(s);
  for (const [name, value, current] of [
    ['requests per second', change.requestsPerSecond, org.requestsPerSecond],
    ['max concurrency', change.maxConcurrency, org.maxConcurrency],
  ] as const) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new LimitChangeError(`${name} must be a positive integer`);
    if (actor === 'customer' && value > current) {
      throw new LimitChangeError(`only the operator can raise the ${name}: it is ${countText(current)} now, so give at most ${countText(current)}`);
    }
  }
}

export async function setOrganizationRate(
  stores: TenancyStores & LimitsStores,
  settings: LimitChangeSettings,
  orgId: string,
  change: { requestsPerSecond?: number; maxConcurrency?: number },
  now: () => number,
  actor: Actor = 'operator',
): Promise<LimitSettingsDoc> {
  if (change.requestsPerSecond === undefined && change.maxConcurrency === undefined) {
    throw new LimitChangeError('give a requests-per-second or max-concurrency value');
  }
  await requireOrganization(stores, orgId);
  return updateSettings(stores, settings, orgId, now, (s) => {
    checkRateChange(s, change, actor);
    return {
      ...s,
      requestsPerSecond: change.requestsPerSecond ?? s.requestsPerSecond,
      maxConcurrency: change.maxConcurrency ?? s.maxConcurrency,
    };
  });
}
