import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { Logger } from '../../core/observability/logger';
import { Problem } from '../../core/problems';
import { isStoreUnavailable } from '../../core/store/storeUnavailable';
import { ToolStoreOutage } from './storeOutage';
import type { ExecuteOperation, OperationRequest } from '../operations/executeOperation';
import { IDEMPOTENCY_KEY_ARGUMENT, toolAllowed, type ToolEntry } from './toolCatalog';

/**
 * Runs a tool as its developer-API operation: the tool server's adapter of the operation
 * executor, as api/routeSpec.ts is HTTP's. The arguments are split into the operation's path
 * parameters, query and body (plus the idempotency key), and the executor runs the very same
 * pipeline as /v1 (admission → permission → operation admission → body checks → validation →
 * idempotency → handler), acting as the client's principal and holding its admission only for
 * the call. No incoming credential is carried into it.
 */
export interface ToolOutcome {
  ok: boolean;
  status: number;
  body: unknown;
}

export interface ToolDispatcher {
  run: (entry: ToolEntry, args: Record<string, unknown>, principal: KeyPrincipal, requestId: string, clientAddress?: string) => Promise<ToolOutcome>;
}

/** Path arguments as a router would hand them over: strings, and a missing one names no resource. */
function pathParams(args: Record<string, unknown>, names: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null || value === '') throw new Problem('not_found', 'No such resource.');
    params[name] = String(value);
  }
  return params;
}

/** Query arguments as a query string carries them: strings, repeated for a list. */
function queryParams(args: Record<string, unknown>, names: string[]): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length) query[name] = value.length === 1 ? String(value[0]) : value.map(String);
    } else {
      query[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
    }
  }
  return query;
}

function bodyOf(entry: ToolEntry, args: Record<string, unknown>): unknown {
  if (entry.plan.bodyArgument) return args.body;
  if (!entry.plan.bodyMembers) return undefined;
  const skip = new Set([...entry.plan.params, ...entry.plan.query, IDEMPOTENCY_KEY_ARGUMENT]);
  return Object.fromEntries(Object.entries(args).filter(([k]) => !skip.has(k)));
}

export function operationRequestOf(
  entry: ToolEntry,
  args: Record<string, unknown>,
  principal: KeyPrincipal,
  requestId: string,
  clientAddress?: string,
): OperationRequest {
  const supplied = args[IDEMPOTENCY_KEY_ARGUMENT];
  return {
    principal,
    params: pathParams(args, entry.plan.params),
    query: queryParams(args, entry.plan.query),
    body: bodyOf(entry, args),
    idempotencyKey: entry.spec.idempotent ? (typeof supplied === 'string' ? supplied : randomUUID()) : undefined,
    requestId,
    clientAddress,
  };
}

/** Idempotent operations hand back the stored JSON text (so replays are byte-identical); tools want the value. */
function decodedBody(body: unknown): unknown {
  if (body === undefined || body === null) return null;
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : undefined;
  if (text === undefined) return body;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function problemPayload(problem: Problem, requestId: string): Record<string, unknown> {
  return {
    code: problem.code,
    status: problem.status,
    title: problem.title,
    detail: problem.detail,
    request_id: requestId,
    ...problem.extensions,
    ...(problem.headers['Retry-After'] ? { retry_after: Number(problem.headers['Retry-After']) } : {}),
  };
}

/** A paid tool called by an application its person allowed only to read (a crafted call: tools/list does not offer it). */
function readOnlyRefusal(entry: ToolEntry, principal: KeyPrincipal): Problem {
  const name = principal.agent?.clientName ?? 'This application';
  return new Problem(
    'insufficient_scope',
    `${name} was allowed only to read, and ${entry.definition.name} spends credits or changes something. Nothing was charged. ` +
      'The person who connected it can let it spend a daily allowance under Connected applications in the console.',
  );
}

/** `logger`: the app's, for a tool call that failed in a way no problem document describes. */
export function createToolDispatcher(execute: ExecuteOperation, logger: Logger): ToolDispatcher {
  return {
    async run(entry, args, principal, requestId, clientAddress) {
      if (!toolAllowed(entry, principal)) return { ok: false, status: 403, body: problemPayload(readOnlyRefusal(entry, principal), requestId) };
      try {
        const result = await execute(entry.spec.operation, operationRequestOf(entry, args, principal, requestId, clientAddress));
        return { ok: true, status: result.status, body: decodedBody(result.body) };
      } catch (err) {
        if (err instanceof Problem) return { ok: false, status: err.status, body: problemPayload(err, requestId) };
        if (isStoreUnavailable(err)) throw new ToolStoreOutage(requestId, err);
        logger.error(
          { err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, request_id: requestId, tool: entry.definition.name },
          'tool call failed',
        );
        const internal = new Problem('internal_error', 'An internal error occurred. Quote the request id when reporting it.');
        return { ok: false, status: 500, body: problemPayload(internal, requestId) };
      }
    },
  };
}
