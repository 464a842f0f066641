import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType, z } from 'zod';
import type { KeyPrincipal } from '../core/keys/apiKeys';
import type { Permission } from '../core/keys/permissions';
import { Problem, validationFailed, type FieldError } from '../core/problems';
import { KEY_LIKE } from './middleware/authenticate';
import { operationAdmission } from './middleware/admission';
import { withIdempotency } from './middleware/idempotency';
import { readJsonBody } from './middleware/jsonBody';

/**
 * A route is declared once, as data: its operation name (used by limits, metrics and the
 * OpenAPI document), permission, schemas and handler. `mountRoutes` turns the declaration into
 * the per-route pipeline: permission → operation admission → body → validation → idempotency →
 * handler. Handlers return a value instead of writing to ctx, so results can be replayed.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteInput<B, Q, P> {
  principal: KeyPrincipal;
  body: B;
  query: Q;
  params: P;
  requestId: string;
  idempotencyKey?: string;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ResponseDoc {
  description: string;
  schema?: ZodType;
}

export interface RouteSpec<B extends ZodType = ZodType, Q extends ZodType = ZodType, P extends ZodType = ZodType> {
  /** Stable operation name, e.g. `candidates.search`: limit entries and metrics use it. */
  operation: string;
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
  body?: B;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseDoc>;
  handler: (input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<RouteResult>;
}

/** Identity function that gives handlers typed input. */
export function defineRoute<B extends ZodType, Q extends ZodType, P extends ZodType>(spec: RouteSpec<B, Q, P>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** Body members that would let a caller pick a tenant; the key alone decides it. */
const TENANT_FIELDS = new Set(['org_id', 'organization_id', 'org_root', 'account_id', 'workspace_id', 'orgid', 'organizationid', 'accountid', 'workspaceid']);

export function findTenantFields(value: unknown, path = ''): FieldError[] {
  const found: FieldError[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => found.push(...findTenantFields(v, `${path}[${i}]`)));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const here = path ? `${path}.${k}` : k;
      if (TENANT_FIELDS.has(k.toLowerCase())) {
        found.push({ field: here, message: 'organization and account identifiers are not accepted; the API key decides the tenant' });
      }
      found.push(...findTenantFields(v, here));
    }
  }
  return found;
}

function containsKeyLike(value: unknown): boolean {
  if (typeof value === 'string') return KEY_LIKE.test(value);
  if (Array.isArray(value)) return value.some(containsKeyLike);
  if (value && typeof value === 'object') return Object.values(value).some(containsKeyLike);
  return false;
}

export function zodFieldErrors(error: z.ZodError, root: string): FieldError[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    const field = i.code === 'unrecognized_keys' ? (i as { keys: string[] }).keys.map((k) => (path ? `${path}.${k}` : k)).join(', ') : path;
    return { field: field ? `${root}${field}` : root.replace(/\.$/, '') || 'body', message: i.message };
  });
}

function parseWith<S extends ZodType>(schema: S | undefined, value: unknown, root: string): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(zodFieldErrors(parsed.error, root));
  return parsed.data;
}

function requirePermission(ctx: Context, permission: Permission | undefined): void {
  if (!permission) return;
  const principal = ctx.state.principal as KeyPrincipal;
  if (!principal.scopes.includes(permission)) {
    throw new Problem('insufficient_scope', `This operation requires the \`${permission}\` permission.`, {
      extensions: { required_scope: permission },
    });
  }
}

async function runRoute(ctx: Context, spec: RouteSpec): Promise<void> {
  const takesBody = spec.method === 'POST' || spec.method === 'PATCH';
  const body = takesBody ? await readJsonBody(ctx) : { value: undefined, raw: Buffer.alloc(0) };
  if (containsKeyLike(body.value)) {
    throw new Problem('malformed_authorization', 'Credentials are accepted only in the Authorization header, never in a body.');
  }
  const tenantFields = findTenantFields(body.value);
  if (tenantFields.length) throw validationFailed(tenantFields);
  const params = parseWith(spec.params, ctx.params, 'path.');
  const query = parseWith(spec.query, { ...ctx.query }, 'query.');
  const input: RouteInput<unknown, unknown, unknown> = {
    principal: ctx.state.principal,
    body: undefined,
    query,
    params,
    requestId: ctx.state.requestId,
  };
  const run = async (): Promise<RouteResult> => {
    if (spec.body) {
      if (body.value === undefined) throw validationFailed([{ field: 'body', message: 'a JSON body is required' }]);
      input.body = parseWith(spec.body, body.value, '');
    }
    return spec.handler(input as never);
  };
  const result = spec.idempotent ? await withIdempotency(ctx, spec.operation, body.raw, input, run) : await run();
  ctx.status = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  if (result.body !== undefined) ctx.body = result.body;
}

export function mountRoutes(router: Router, specs: RouteSpec[]): void {
  for (const spec of specs) {
    const permission = async (ctx: Context, next: () => Promise<unknown>) => {
      requirePermission(ctx, spec.permission);
      await next();
    };
    const admission = operationAdmission(spec.operation);
    router.register(spec.path, [spec.method], [permission, admission, (ctx: Context) => runRoute(ctx, spec)], { name: spec.operation });
  }
}
