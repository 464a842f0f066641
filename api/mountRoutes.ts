import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { CreditDeps } from '../core/credits/credits';
import type { Deps } from '../core/deps';
import type { KeyPrincipal } from '../core/keys/apiKeys';
import { Problem } from '../core/problems';
import { creditHeaders, statusOfFailure } from './creditHeaders';
import { requestLogger } from './requestLogger';
import { admissionOf } from './middleware/admission';
import { readJsonBody, type ReadBody } from './jsonBody';
import { createOperationExecutor, type ExecuteOperation } from './operations/executeOperation';
import { operationRegistry } from './operations/operationRegistry';
import type { RouteSpec } from './routeSpec';

const NO_BODY: ReadBody = { value: undefined, raw: Buffer.alloc(0) };

/**
 * The HTTP adapter of one route: reads what HTTP carries (the JSON body's bytes, the
 * Idempotency-Key header, path and query parameters) and runs the operation through the
 * executor, holding the baseline admission the /v1 chain took for this request.
 */
function runOverHttp(ctx: Context, spec: RouteSpec, execute: ExecuteOperation, deps: CreditDeps): Promise<unknown> {
  const principal = ctx.state.principal as KeyPrincipal | undefined;
  if (!principal) throw new Problem('missing_api_key', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
  return spec.paid ? answerPaid(ctx, spec, principal, execute, deps) : answer(ctx, spec, principal, execute);
}

/** Every answer of a paid operation, refusals and failures included, says what it cost. */
async function answerPaid(ctx: Context, spec: RouteSpec, principal: KeyPrincipal, execute: ExecuteOperation, deps: CreditDeps): Promise<void> {
  let charged: number;
  try {
    charged = await answer(ctx, spec, principal, execute);
  } catch (err) {
    ctx.set(await creditHeaders(principal.orgId, 0, statusOfFailure(err), requestLogger(ctx), deps));
    throw err;
  }
  ctx.set(await creditHeaders(principal.orgId, charged, ctx.status, requestLogger(ctx), deps));
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
    if (result.headers) ctx.set(result.headers);
    if (result.body !== undefined) ctx.body = result.body;
    return result.creditsCharged ?? 0;
  } finally {
    // Every answer, refusals and failures included, reports the limits the request was held to.
    if (admission) ctx.set(admission.rateLimitHeaders());
  }
}

/**
 * `deps.usage`: the app's usage counters, which count every operation run. `before`: the
 * middleware a route runs first, in order (the /v1 router's authentication and admission).
 */
export function mountRoutes(router: Router, specs: readonly RouteSpec[], deps: Deps, before: (spec: RouteSpec) => Middleware[] = () => []): void {
  const execute = createOperationExecutor(operationRegistry(specs), deps, undefined, deps.usage);
  for (const spec of specs) {
    router.register(spec.path, [spec.method], [...before(spec), (ctx: Context) => runOverHttp(ctx, spec, execute, deps)], { name: spec.operation });
  }
}
