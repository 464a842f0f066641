import { cursorIndex, decodeListCursor, encodeListCursor, type CursorKey } from '../pageCursor';
import { BASELINE_ENTRY, OPERATIONS, type LimitEntryName, type Scope, type ScopeChain } from './limitTable';
import { applicableOverrides, organizationLimits, operationRequestsPerSecond, sameScope, standardRequestsPerMinute } from './limitSettings';
import type { LimitSettingsDoc } from './limitSettingsRecord';

/**
 * The read model of GET /v1/operational-limits (SPEC 8.2, 8.3): one entry per operation (and
 * the `api.request_baseline.v1` entry) per scope, describing what is enforced for requests
 * made within that scope. Pure: the route gathers the settings and the scopes.
 */
export interface LimitEntry {
  operation: LimitEntryName;
  scope: { type: Scope['type']; id: string };
  status: 'active' | 'denied';
  source: 'inherited' | 'override' | 'cleared';
  requests_per_second: number | null;
  requests_per_minute: number | null;
  max_concurrency: number | null;
  lease_ttl_seconds: number | null;
  standard_requests_per_minute: number | null;
  maximum_requests_per_minute: number | null;
  suggested_requests_per_minute: number | null;
  inherited_ceiling_ref: string | null;
}

/** Reference to an entry: `<scope type>:<scope id>/<operation>`. */
export function entryRef(scope: Scope, operation: LimitEntryName): string {
  return `${scope.type}:${scope.id}/${operation}`;
}

/** A suggested cap: 80% of the standard rate over a minute, leaving headroom for bursts of retries. */
export function suggestedCap(standard: number): number {
  return Math.max(1, Math.floor(standard * 0.8));
}

export function limitEntry(settings: LimitSettingsDoc, operation: LimitEntryName, chain: ScopeChain, leaseTtlSeconds: number): LimitEntry {
  const scope = chain[chain.length - 1];
  const org = organizationLimits(settings);
  const isBaseline = operation === BASELINE_ENTRY;
  const overrides = isBaseline ? { block: undefined, caps: [], cleared: [] } : applicableOverrides(settings, operation, chain);
  const parent = chain.length > 1 ? chain[chain.length - 2] : undefined;
  const ceilingRef = parent ? entryRef(parent, operation) : isBaseline ? null : entryRef(scope, BASELINE_ENTRY);
  const custom = org.source === 'override' || !!overrides.block || overrides.caps.length > 0;
  const source = custom ? 'override' : org.source === 'cleared' || overrides.cleared.length > 0 ? 'cleared' : 'inherited';
  const base = { operation, scope: { type: scope.type, id: scope.id }, source, inherited_ceiling_ref: ceilingRef } as const;
  if (overrides.block) {
    return {
      ...base,
      status: 'denied',
      requests_per_second: null,
      requests_per_minute: null,
      max_concurrency: null,
      lease_ttl_seconds: null,
      standard_requests_per_minute: null,
      maximum_requests_per_minute: null,
      suggested_requests_per_minute: null,
    };
  }
  const rps = isBaseline ? org.requestsPerSecond : operationRequestsPerSecond(operation, org);
  const caps = overrides.caps.map((c) => c.requestsPerMinute ?? 0);
  const standard = standardRequestsPerMinute(operation, org);
  return {
    ...base,
    status: 'active',
    requests_per_second: rps,
    requests_per_minute: caps.length ? Math.min(...caps) : null,
    max_concurrency: org.maxConcurrency,
    lease_ttl_seconds: leaseTtlSeconds,
    standard_requests_per_minute: standard,
    maximum_requests_per_minute: standard - 1,
    suggested_requests_per_minute: suggestedCap(standard),
    inherited_ceiling_ref: ceilingRef,
  };
}

/** Scopes that carry an override in the settings, so the read shows them even for other keys. */
export function overriddenScopes(settings: LimitSettingsDoc): Scope[] {
  const seen: Scope[] = [];
  for (const o of settings.overrides) {
    const s: Scope = { type: o.scopeType, id: o.scopeId };
    if (!seen.some((x) => sameScope({ scopeType: x.type, scopeId: x.id }, s))) seen.push(s);
  }
  return seen;
}

export function limitEntries(settings: LimitSettingsDoc, chains: ScopeChain[], leaseTtlSeconds: number, operation?: LimitEntryName): LimitEntry[] {
  const operations: LimitEntryName[] = operation ? [operation] : [BASELINE_ENTRY, ...OPERATIONS];
  return chains.flatMap((chain) => operations.map((op) => limitEntry(settings, op, chain, leaseTtlSeconds)));
}

/** What an entry enforces: its status and figures, not whose it is or why. */
function enforced(e: LimitEntry): string {
  return JSON.stringify([
    e.status,
    e.requests_per_second,
    e.requests_per_minute,
    e.max_concurrency,
    e.lease_ttl_seconds,
    e.standard_requests_per_minute,
    e.maximum_requests_per_minute,
    e.suggested_requests_per_minute,
  ]);
}

/**
 * The read without filters: the organization's entry of each operation (the defaults, or what
 * the organization set), and an entry of a narrower scope only where it enforces something else
 * than the organization's entry of its operation (a cap or block set on it).
 */
export function condensedLimitEntries(entries: LimitEntry[]): LimitEntry[] {
  const organization = new Map(entries.filter((e) => e.scope.type === 'organization').map((e) => [e.operation, enforced(e)]));
  return entries.filter((e) => e.scope.type === 'organization' || organization.get(e.operation) !== enforced(e));
}

/**
 * One page of entries in report order, and the cursor of the next (null on the last page). The
 * cursor is signed for its read (`scope`: the organization and the filters), so a cursor of
 * another read or organization is refused.
 */
export function limitEntriesPage(
  key: CursorKey,
  scope: string,
  entries: LimitEntry[],
  limit: number,
  cursor?: string,
): { data: LimitEntry[]; next_cursor: string | null } {
  const pageScope = `operational-limits:${scope}`;
  const from = cursor === undefined ? 0 : decodeListCursor<{ at: number }>(key, cursor, pageScope, { at: cursorIndex }).at;
  const data = entries.slice(from, from + limit);
  return { data, next_cursor: from + limit < entries.length ? encodeListCursor(key, pageScope, { at: from + limit }) : null };
}
