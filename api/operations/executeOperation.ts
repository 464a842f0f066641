import type { ZodType } from 'zod';
import type { Deps } from '../../core/deps';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { Permission } from '../../core/keys/permissions';
import { OPERATIONS, type OperationName } from '../../core/limits/limitTable';
import { Problem, validationFailed } from '../../core/problems';
import type { UsageCounters } from '../../core/usage/usageCounters';
import { statusOfFailure } from '../creditHeaders';
import { requireIdempotencyKey, withIdempotency } from './idempotentRun';
import type { RouteInput, RouteResult, RouteSpec } from '../routeSpec';
import { admissionUnder, type AcquireAdmission, type AdmissionHandle } from '../../core/limits/operationAdmission';
import { findTenantFields, parseWith, rejectCredentialsInBody } from './operationInput';
import { recordOperationAudit } from './operationAudit';
import type { OperationRegistry } from './operationRegistry';

/**
 * Runs one developer-API operation for a principal, whatever road the request came by: the
 * Koa routes (api/routeSpec.ts) and the tool server (api/mcp/toolDispatch.ts) both call it
 * with values they have already taken out of their own protocol. Nothing here knows HTTP.
 *
 * Order: credential in the body → idempotency key present and well formed → baseline admission (unless the caller holds it) →
 * permission → operation admission → tenant fields in the body → path and query validation →
 * idempotency → body validation → handler → audit entry of a change. A credential is looked for first so that it is
 * reported as such (400) rather than hidden behind a 403 or 429. Failures are thrown as
 * `Problem`s; the result is what the handler answered, or the stored answer of a replay.
 */
export interface OperationRequest<N extends string = OperationName> {
  principal: KeyPrincipal;
  /** Path parameters, before the route's schema. */
  params?: Record<string, unknown>;
  /** Query parameters, before the route's schema. */
  query?: Record<string, unknown>;
  /** The parsed JSON body, or undefined when there is none. */
  body?: unknown;
  /** The body's exact bytes when it came over the wire; the JSON of `body` otherwise. */
  rawBody?: Buffer;
  idempotencyKey?: string;
  requestId: string;
  /** The address the request came from (after trusted proxies), for the audit entry of a change. */
  clientAddress?: string;
  /**
   * Baseline admission the caller already holds and releases itself (HTTP holds it until the
   * response is sent). Without it the executor acquires its own and releases it when done.
   */
  admission?: AdmissionHandle<N>;
}

export type OperationResult = RouteResult;

export type ExecuteOperation<N extends string = OperationName> = (operation: N, request: OperationRequest<N>) => Promise<OperationResult>;

/**
 * The refusal of an operation to a credential without its permission (the reference's 403
 * examples are made by it). A developer-API operation is named as the reference names it; a
 * console action is the page's own, which a person knows without its name.
 */
export function permissionRequired(operation: string, permission: Permission): Problem {
  const what = (OPERATIONS as readonly string[]).includes(operation) ? `\`${operation}\`` : 'This action';
  return new Problem('insufficient_scope', `${what} requires the \`${permission}\` permission, which this credential does not hold.`, {
    extensions: { required_scope: permission },
  });
}

function requirePermission(principal: KeyPrincipal, operation: string, permission: Permission | undefined): void {
  if (!permission || principal.scopes.includes(permission)) return;
  throw permissionRequired(operation, permission);
}

/** The route's path with its parameters filled in: the request line an idempotency fingerprint covers. */
export function operationPath(spec: Pick<RouteSpec, 'path'>, params: Record<string, unknown>): string {
  return spec.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}

function rawBodyOf(request: Pick<OperationRequest, 'rawBody' | 'body'>): Buffer {
  if (request.rawBody) return request.rawBody;
  return request.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(request.body));
}

const LOG_BINDINGS = Symbol("the bindings of an operation's logger");
const LOGGER = Symbol("an operation's logger, once made");
type OperationDeps = Deps & { [LOG_BINDINGS]: Record<string, string>; [LOGGER]?: Deps['logger'] };

/**
 * The app's dependencies as one operation sees them: the same, except that the logger carries the
 * request, organization and operation. That child logger is made on the first line the operation
 * logs: a pino child passes its bindings through the redaction stringifiers, and most operations
 * log nothing. Each operation's view inherits from one prototype per app instead of copying the app's.
 */
export function operationDepsOf(deps: Deps): (bindings: Record<string, string>) => Deps {
  const shared = Object.create(deps, {
    logger: {
      enumerable: true,
      get(this: OperationDeps) {
        return (this[LOGGER] ??= deps.logger.child(this[LOG_BINDINGS]));
      },
    },
  }) as Deps;
  return (bindings) => {
    const own = Object.create(shared) as OperationDeps;
    own[LOG_BINDINGS] = bindings;
    return own;
  };
}

/** A change's run: the state before it, the handler, and the audit entry of what it did. */
async function runAudited(
  audit: NonNullable<RouteSpec['audit']>,
  handler: RouteSpec['handler'],
  input: RouteInput<unknown, unknown, unknown>,
  clientAddress: string | undefined,
): Promise<OperationResult> {
  const before = audit.before ? await audit.before(input) : null;
  const result = await handler(input as never);
  await recordOperationAudit(audit, input, result, before, clientAddress);
  return result;
}

/** Throws a request it refuses before anything runs; the run itself is the promise it returns. */
function runValidated<N extends string>(
  spec: RouteSpec<ZodType, ZodType, ZodType, N>,
  request: OperationRequest<N>,
  deps: Deps,
  operationDeps: (bindings: Record<string, string>) => Deps,
): Promise<OperationResult> {
  const tenantFields = findTenantFields(request.body);
  if (tenantFields.length) throw validationFailed(tenantFields);
  const rawParams = request.params ?? {};
  const params = parseWith(spec.params, rawParams, 'path.');
  const query = parseWith(spec.query, request.query ?? {}, 'query.');
  const input: RouteInput<unknown, unknown, unknown> = {
    principal: request.principal,
    config: deps.config,
    // The operation's own view of the app: its logger already carries the request, organization and operation.
    deps: operationDeps({ request_id: request.requestId, org_id: request.principal.orgId, operation: spec.operation }),
    body: undefined,
    query,
    params,
    requestId: request.requestId,
  };
  // Not itself async: the handler's own promise is the run's (a promise returned from an async
  // function costs the request more turns of the microtask queue).
  const run = (): Promise<OperationResult> => {
    if (spec.body) {
      if (request.body === undefined) throw validationFailed([{ field: 'body', message: 'a JSON body is required' }]);
      input.body = parseWith(spec.body, request.body, '');
    }
    if (!spec.audit) return spec.handler(input as never);
    return runAudited(spec.audit, spec.handler, input, request.clientAddress);
  };
  if (!spec.idempotent) return run();
  const call = { idempotencyKey: request.idempotencyKey, method: spec.method, path: operationPath(spec, rawParams) };
  return withIdempotency(call, spec.operation, rawBodyOf(request), input, run);
}

/**
 * The executor of an app: its dependencies (`deps`, with the config) reach every handler in its
 * input; `acquire` defaults to admission under that config. A registry of operations outside the limit table (the console's)
 * brings its own admission. With `usage`, every run of a developer-API operation is counted
 * there by its outcome and the credits it charged: the one place both roads (HTTP and the tool
 * server) pass.
 */
export function createOperationExecutor(registry: OperationRegistry, deps: Deps, acquire?: AcquireAdmission, usage?: UsageCounters): ExecuteOperation;
export function createOperationExecutor<N extends string>(registry: OperationRegistry<N>, deps: Deps, acquire: AcquireAdmission<N>): ExecuteOperation<N>;
export function createOperationExecutor<N extends string>(
  registry: OperationRegistry<N>,
  deps: Deps,
  // Only the first overload omits `acquire` or passes `usage`, and there N is OperationName.
  acquire: AcquireAdmission<N> = admissionUnder(deps) as unknown as AcquireAdmission<N>,
  usage?: UsageCounters,
): ExecuteOperation<N> {
  return executeWith(registry, deps, acquire, usage);
}

function executeWith<N extends string>(registry: OperationRegistry<N>, deps: Deps, acquire: AcquireAdmission<N>, usage?: UsageCounters): ExecuteOperation<N> {
  const operationDeps = operationDepsOf(deps);
  // A connected AI application's calls are counted apart, so usage can be split by application.
  const count = (operation: N, principal: KeyPrincipal, status: number, credits: number) =>
    usage?.countRequest(principal.orgId, operation as unknown as OperationName, status, credits, principal.agent?.grantId);
  // One async step for the whole run, counting included: every request passes here.
  return async (operation, request) => {
    const spec = registry.get(operation);
    if (!spec) throw new Problem('not_found', 'No such resource.');
    let admission = request.admission;
    let result: OperationResult;
    try {
      rejectCredentialsInBody(request.body);
      requireIdempotencyKey(spec, request.idempotencyKey);
      admission ??= await acquire(request.principal);
      requirePermission(request.principal, spec.operation, spec.permission);
      const admitting = admission.admitOperation(operation);
      if (admitting) await admitting;
      result = await runValidated(spec, request, deps, operationDeps);
    } catch (err) {
      count(operation, request.principal, statusOfFailure(err), 0);
      throw err;
    } finally {
      if (!request.admission) admission?.release();
    }
    count(operation, request.principal, result.status, result.creditsCharged ?? 0);
    return result;
  };
}
