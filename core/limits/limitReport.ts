import type { LimitEntryName, Scope, ScopeChain } from './limitTable';
import { readLimitSettings, sameScope } from './limitSettings';
import type { LimitSettingsDoc } from './limitSettingsRecord';
import { limitEntries, overriddenScopes, type LimitEntry } from './operationalLimits';
import { findScopeChain, scopeChain, type ScopeStores } from './scopeChain';
import type { LimitsStores } from './store';

export interface LimitReportQuery {
  operation?: LimitEntryName;
  scope?: Scope['type'];
  application_id?: string;
  family_id?: string;
  key_id?: string;
}

/**
 * The limit entries an organization's reader sees (SPEC 8): the scopes asked for, or else the
 * caller's own chain (organization down to its key, for an API key; the organization alone for
 * a person) plus every other scope of the organization that carries an override. The one
 * report behind `GET /v1/operational-limits` and the console's Limits page.
 */
export async function reportLimits(
  stores: ScopeStores & LimitsStores,
  orgId: string,
  callerScopes: readonly Scope[],
  query: LimitReportQuery,
  leaseTtlSeconds: number,
): Promise<LimitEntry[]> {
  return reportLimitsUnder(stores, await readLimitSettings(stores, orgId), orgId, callerScopes, query, leaseTtlSeconds);
}

/** The same report under settings the caller already read (readLimitSettings), for a page that shows them too. */
export async function reportLimitsUnder(
  stores: ScopeStores,
  settings: LimitSettingsDoc,
  orgId: string,
  callerScopes: readonly Scope[],
  query: LimitReportQuery,
  leaseTtlSeconds: number,
): Promise<LimitEntry[]> {
  const asked: Scope[] = [];
  if (query.application_id) asked.push({ type: 'application', id: query.application_id });
  if (query.family_id) asked.push({ type: 'key_family', id: query.family_id });
  if (query.key_id) asked.push({ type: 'key', id: query.key_id });

  const chains: ScopeChain[] = [];
  if (asked.length) {
    for (const scope of asked) chains.push(await scopeChain(stores, orgId, scope));
  } else {
    // A key's predecessors hold it (scopeChain.ts) but are not the caller's own entries.
    for (let i = 0; i < callerScopes.length; i++)
      if (callerScopes[i].type !== 'key' || i === callerScopes.length - 1) chains.push(callerScopes.slice(0, i + 1));
    const others = overriddenScopes(settings).filter((s) => !chains.some((c) => sameScope({ scopeType: s.type, scopeId: s.id }, c[c.length - 1])));
    // An override may outlive its key or application: such a scope is left out, not an error.
    for (const chain of await Promise.all(others.map((s) => findScopeChain(stores, orgId, s)))) if (chain) chains.push(chain);
  }
  const selected = query.scope ? chains.filter((c) => c[c.length - 1].type === query.scope) : chains;
  return limitEntries(settings, selected, leaseTtlSeconds, query.operation);
}
