import type { ZodType, z } from 'zod';
import type { AuditAction } from '../core/audit/auditActions';
import type { Config } from '../core/config';
import type { Deps } from '../core/deps';
import type { RequestClaim } from '../core/idempotency/idempotency';
import type { KeyPrincipal } from '../core/keys/apiKeys';
import type { Permission } from '../core/keys/permissions';
import type { OperationName } from '../core/limits/limitTable';

/**
 * A route is declared once, as data: its operation name (used by limits, metrics, tools and the
 * OpenAPI document), permission, schemas and handler. The operation executor
 * (api/operations/executeOperation.ts) runs the declaration; `mountRoutes` is its HTTP adapter.
 * Handlers return a value instead of writing to ctx, so results can be replayed.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteInput<B, Q, P> {
  principal: KeyPrincipal;
  /** The app's config (`deps.config`). */
  config: Config;
  /** The app's dependencies, from its composition root (core/deps.ts). */
  deps: Deps;
  body: B;
  query: Q;
  params: P;
  requestId: string;
  idempotencyKey?: string;
  /** The claim an idempotent operation runs under (set by the executor; read with `requestClaim`). */
  claim?: RequestClaim;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Credits this request charged (paid operations). Not part of the stored answer: a replay
   * charges nothing and reports 0.
   */
  creditsCharged?: number;
}

/**
 * An OpenAPI link from a response to an operation that reads or changes what it names: values
 * are runtime expressions such as `$response.body#/job_id`. Clients and fuzzers follow them.
 */
export interface ResponseLink {
  operation: OperationName;
  description: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, string>;
}

/** The audit entry a successful change makes: what it did, to what, and the values around it. */
export interface AuditChange {
  action: AuditAction;
  target: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/**
 * How a changing route is audited: `before` reads the state the change will replace (run just
 * before the handler; null when there is none to read), `change` describes the entry from the
 * handler's answer. Only allowlisted fields of the values are kept (core/audit/auditActions.ts).
 */
export interface RouteAudit<I = RouteInput<never, never, never>> {
  before?: (input: I) => Promise<Record<string, unknown> | null>;
  change: (input: I, result: RouteResult, before: Record<string, unknown> | null) => AuditChange;
}

export interface ResponseDoc {
  description: string;
  schema?: ZodType;
  links?: Record<string, ResponseLink>;
}

/**
 * `N`: the operation names a declaration may carry. /v1 routes name developer-API operations;
 * the console's operations (api/console/consoleOperations.ts) have names of their own, run by
 * the same executor but never mounted under /v1, described in OpenAPI or given limit entries.
 */
export interface RouteSpec<B extends ZodType = ZodType, Q extends ZodType = ZodType, P extends ZodType = ZodType, N extends string = OperationName> {
  /** Stable operation name, e.g. `candidates.search`: limit entries, metrics and tools use it. */
  operation: N;
  method: HttpMethod;
  /** Koa path, e.g. `/v1/webhook-endpoints/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Permission required; undefined means any valid key (whoami). */
  permission?: Permission;
  /** Requires an Idempotency-Key (SPEC 7.4). */
  idempotent?: boolean;
  /** Spends credits: its answers carry `Credits-Charged` and `Credits-Remaining` (api/creditHeaders.ts). */
  paid?: boolean;
  body?: B;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseDoc>;
  handler: (input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<RouteResult>;
  /** Set on every route that changes the organization: the executor records the entry after a 2xx. */
  audit?: RouteAudit<RouteInput<z.output<B>, z.output<Q>, z.output<P>>>;
}

/** Identity function that gives handlers typed input. */
export function defineRoute<B extends ZodType, Q extends ZodType, P extends ZodType>(spec: RouteSpec<B, Q, P>): RouteSpec {
  return spec as unknown as RouteSpec;
}
