import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { logger } from '../../core/observability/logger';
import { Problem } from '../../core/problems';
import { baselineAdmission } from '../middleware/admission';
import { mountRoutes, type RouteSpec } from '../routeSpec';
import { IDEMPOTENCY_KEY_ARGUMENT, type ToolEntry } from './toolCatalog';

/**
 * Runs a tool as its developer-API operation: the arguments become the HTTP-shaped request of
 * the route (path, query, JSON body, Idempotency-Key) and it goes through the very same
 * pipeline as /v1 (baseline admission → permission → operation admission → body checks →
 * validation → idempotency → handler), in-process, acting as the client's principal. No
 * incoming credential is carried into it.
 */
export interface ToolOutcome {
  ok: boolean;
  status: number;
  body: unknown;
}

export interface ToolDispatcher {
  run: (entry: ToolEntry, args: Record<string, unknown>, principal: KeyPrincipal, requestId: string) => Promise<ToolOutcome>;
}

function fillPath(path: string, args: Record<string, unknown>, names: string[]): string {
  let out = path;
  for (const name of names) {
    const value = args[name];
    out = out.replace(`:${name}`, encodeURIComponent(value === undefined || value === null ? '' : String(value)));
  }
  return out;
}

function queryString(args: Record<string, unknown>, names: string[]): string {
  const q = new URLSearchParams();
  for (const name of names) {
    const v = args[name];
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(name, String(x)));
    else q.set(name, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

function bodyOf(entry: ToolEntry, args: Record<string, unknown>): unknown {
  if (entry.plan.bodyArgument) return args.body;
  if (!entry.plan.bodyMembers) return undefined;
  const skip = new Set([...entry.plan.params, ...entry.plan.query, IDEMPOTENCY_KEY_ARGUMENT]);
  return Object.fromEntries(Object.entries(args).filter(([k]) => !skip.has(k)));
}

/** A request that exists only in memory: Koa and the route pipeline read it like a real one. */
function syntheticRequest(method: string, url: string, headers: Record<string, string>, body: Buffer | undefined): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  req.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  req.rawHeaders = Object.entries(headers).flat();
  if (body) req.push(body);
  req.push(null);
  return req;
}

/** Idempotent routes hand back the stored JSON bytes (so replays are byte-identical); tools want the value. */
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

export function createToolDispatcher(routes: readonly RouteSpec[]): ToolDispatcher {
  const koa = new Koa();
  const router = new Router();
  mountRoutes(router, [...routes]);
  const dispatch = router.routes() as unknown as Middleware;
  const baseline = baselineAdmission();

  return {
    async run(entry, args, principal, requestId) {
      const spec = entry.spec;
      const url = fillPath(spec.path, args, entry.plan.params) + queryString(args, entry.plan.query);
      const headers: Record<string, string> = { 'X-Request-Id': requestId };
      if (spec.idempotent) {
        const supplied = args[IDEMPOTENCY_KEY_ARGUMENT];
        headers['Idempotency-Key'] = typeof supplied === 'string' ? supplied : randomUUID();
      }
      const body = bodyOf(entry, args);
      let raw: Buffer | undefined;
      if (body !== undefined) {
        raw = Buffer.from(JSON.stringify(body));
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(raw.length);
      }
      const req = syntheticRequest(spec.method, url, headers, raw);
      const res = new ServerResponse(req);
      const ctx = koa.createContext(req, res) as Context;
      ctx.state.principal = principal;
      ctx.state.requestId = requestId;
      try {
        await baseline(ctx, async () => {
          await dispatch(ctx, async () => undefined);
        });
        if (ctx.status === 404 && ctx.body === undefined) throw new Problem('not_found', 'No such resource.');
        return { ok: true, status: ctx.status, body: decodedBody(ctx.body) };
      } catch (err) {
        if (err instanceof Problem) return { ok: false, status: err.status, body: problemPayload(err, requestId) };
        logger.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, request_id: requestId, tool: entry.definition.name }, 'tool call failed');
        const internal = new Problem('internal_error', 'An internal error occurred. Quote the request id when reporting it.');
        return { ok: false, status: 500, body: problemPayload(internal, requestId) };
      } finally {
        // The in-memory response is complete here; listeners such as the in-flight lease release wait for this.
        res.emit('finish');
        res.emit('close');
      }
    },
  };
}
