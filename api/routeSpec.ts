import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType, z } from 'zod';
import type { AuditAction } from '../core/audit/auditActions';
import type { Config } from '../core/config';
import type { LedgerHeads } from '../core/credits/credits';
import type { Deps } from '../core/deps';
import type { RequestClaim } from '../core/idempotency/idempotency';
import type { KeyPrincipal } from '../core/keys/apiKeys';
import type { Permission } from '../core/keys/permissions';
import type { OperationName } from '../core/limits/limitTable';
import { Problem } from '../core/problems';
import { creditHeaders, statusOfFailure } from './creditHeaders';
import { admissionOf } from './middleware/admission';
import { readJsonBody, type ReadBody } from './jsonBody';
import { createOperationExecutor, type ExecuteOperation } from './operations/executeOperation';
import { operationRegistry } from './operations/operationRegistry';

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

const NO_BODY: ReadBody = { value: undefined, raw: Buffer.alloc(0) };

/**
 * The HTTP adapter of one route: reads what HTTP carries (the JSON body's bytes, the
 * Idempotency-Key header, path and query parameters) and runs the operation through the
 * executor, holding the baseline admission the /v1 chain took for this request.
 */
async function runOverHttp(ctx: Context, spec: RouteSpec, execute: ExecuteOperation, heads: LedgerHeads): Promise<void> {
  const principal = ctx.state.principal as KeyPrincipal | undefined;
  if (!principal) throw new Problem('missing_api_key', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
  if (!spec.paid) {
    await answer(ctx, spec, principal, execute);
    return;
  }
  // Every answer of a paid operation, refusals and failures included, says what it cost.
  let charged: number;
  try {
    charged = await answer(ctx, spec, principal, execute);
  } catch (err) {
    ctx.set(await creditHeaders(principal.orgId, 0, statusOfFailure(err), heads));
    throw err;
  }
  ctx.set(await creditHeaders(principal.orgId, charged, ctx.status, heads));
}

/** Runs the operation and writes its answer; returns the credits it charged. */
async function answer(ctx: Context, spec: RouteSpec, principal: KeyPrincipal, execute: ExecuteOperation): Promise<number> {
  const takesBody = spec.method === 'POST' || spec.method === 'PATCH';
  const body = takesBody ? await readJsonBody(ctx) : NO_BODY;
  const admission = admissionOf(ctx);
  try {
    const result = await execute(spec.operation, {
      principal,
      params: ctx.params,
      query: { ...ctx.query },
      body: body.value,
      rawBody: body.raw,
      idempotencyKey: ctx.get('Idempotency-Key') || undefined,
      requestId: ctx.state.requestId,
      clientAddress: ctx.ip || undefined,
      admission,
    });
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.body !== undefined) ctx.body = result.body;
    return result.creditsCharged ?? 0;
  } finally {
    // Every answer, refusals and failures included, reports the limits the request was held to.
    if (admission) ctx.set(admission.rateLimitHeaders());
  }
}

/** `deps.usage`: the app's usage counters, which count every operation run. */
export function mountRoutes(router: Router, specs: readonly RouteSpec[], deps: Deps): void {
  const execute = createOperationExecutor(operationRegistry(specs), deps, undefined, deps.usage);
  for (const spec of specs) {
    router.register(spec.path, [spec.method], [(ctx: Context) => runOverHttp(ctx, spec, execute, deps.ledgerHeads)], { name: spec.operation });
  }
}
