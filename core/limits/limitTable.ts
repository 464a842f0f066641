/**
 * The limit table (SPEC 8.1, 8.3): the defaults every organization starts with, and the
 * request rate of each operation that carries its own. Values not given by the spec are ours
 * and are published in the OpenAPI description of GET /v1/operational-limits.
 */

/** The entry every request is held to, whatever its operation (SPEC 8.3 rule 1). */
export const BASELINE_ENTRY = 'api.request_baseline.v1';

export const DEFAULT_REQUESTS_PER_SECOND = 25;
export const DEFAULT_MAX_CONCURRENCY = 25;

/**
 * Every operation's name (the agreed list), a closed type: routes, tools, limit entries and the
 * operator CLI take an `OperationName`, so a misspelled one does not compile (or, from the
 * command line, is refused) instead of silently losing its rate. Limit entries are reported for each.
 */
export const OPERATIONS = [
  'whoami',
  'candidates.search',
  'search.sources',
  'profiles.unlock',
  'person_matches.create',
  'contact_retrieval_jobs.create',
  'contact_retrieval_jobs.batch_create',
  'contact_retrieval_jobs.get',
  'contact_retrieval_jobs.list',
  'contact_retrieval_jobs.cancel',
  'job_results.get',
  'webhook_endpoints.create',
  'webhook_endpoints.list',
  'webhook_endpoints.get',
  'webhook_endpoints.update',
  'webhook_endpoints.delete',
  'webhook_endpoints.rotate_secret',
  'webhook_deliveries.list',
  'webhook_deliveries.get',
  'webhook_deliveries.replay',
  'operational_limits.get',
  'audit_events.list',
  'usage.get',
] as const;

export type OperationName = (typeof OPERATIONS)[number];

/** What a limit entry names: an operation, or the baseline every request is held to. */
export type LimitEntryName = OperationName | typeof BASELINE_ENTRY;

export function isOperationName(value: string): value is OperationName {
  return (OPERATIONS as readonly string[]).includes(value);
}

export function isLimitEntryName(value: string): value is LimitEntryName {
  return value === BASELINE_ENTRY || isOperationName(value);
}

/**
 * Operations with a request rate of their own (SPEC 8.1 item 2), per second, per organization,
 * enforced in addition to the baseline: the stricter wins. Contact retrieval and batch
 * creation start paid provider work; reads are cheap but are polled; webhook management is
 * administrative and rare, replays re-send traffic to a receiver.
 */
export const OPERATION_REQUESTS_PER_SECOND: Partial<Record<OperationName, number>> = {
  'contact_retrieval_jobs.create': 10,
  'contact_retrieval_jobs.batch_create': 2,
  'contact_retrieval_jobs.get': 20,
  'contact_retrieval_jobs.list': 10,
  'contact_retrieval_jobs.cancel': 5,
  'job_results.get': 20,
  'webhook_endpoints.create': 5,
  'webhook_endpoints.list': 10,
  'webhook_endpoints.get': 10,
  'webhook_endpoints.update': 5,
  'webhook_endpoints.delete': 5,
  'webhook_endpoints.rotate_secret': 2,
  'webhook_deliveries.list': 10,
  'webhook_deliveries.get': 10,
  'webhook_deliveries.replay': 5,
  'audit_events.list': 10,
  'usage.get': 10,
};

/** Scopes a limit can be held at, widest first (SPEC 8.1 item 1). */
export const SCOPE_TYPES = ['organization', 'application', 'key_family', 'key'] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];

export interface Scope {
  type: ScopeType;
  id: string;
}

/** A scope with every wider scope of the same organization, widest first. */
export type ScopeChain = Scope[];

/** Seconds a refused request should wait when an administrator blocked the operation. */
export const BLOCKED_RETRY_AFTER_SECONDS = 60;

/** Human-readable table for the API reference. */
export function describeOperationRates(): string {
  const rows = Object.entries(OPERATION_REQUESTS_PER_SECOND).map(([op, rps]) => `| \`${op}\` | ${rps} |`);
  return ['| Operation | Requests per second (per organization) |', '|---|---|', ...rows].join('\n');
}
