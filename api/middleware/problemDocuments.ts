import type { Context, Middleware } from 'koa';
import { requestLogger } from '../requestLogger';
import { Problem, PROBLEM_CODES, type ProblemCode } from '../../core/problems';
import { isStoreUnavailable, storeUnavailableProblem } from '../../core/store/storeUnavailable';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The RFC 9457 document for a problem, shaped per SPEC 7.1. */
export function problemDocument(problem: Problem, requestId: string | undefined): Record<string, unknown> {
  return {
    type: problem.type,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...(requestId ? { request_id: requestId, instance: `urn:service:developer-api:request:${requestId}` } : {}),
    ...problem.extensions,
  };
}

export function sendProblem(ctx: Context, problem: Problem): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  ctx.type = PROBLEM_MEDIA_TYPE;
  ctx.body = problemDocument(problem, ctx.state.requestId);
  ctx.state.problemCode = problem.code;
}

/** Errors raised by Koa or its helpers (ctx.throw, router) carry an HTTP status. */
function fromHttpError(err: { status?: number; expose?: boolean; message?: string }): Problem | undefined {
  const byStatus: Partial<Record<number, ProblemCode>> = {
    400: 'malformed_body',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'body_too_large',
    415: 'unsupported_media_type',
  };
  const code = err.status ? byStatus[err.status] : undefined;
  return code ? new Problem(code, defaultDetail(code)) : undefined;
}

function defaultDetail(code: ProblemCode): string {
  switch (code) {
    case 'not_found':
      return 'No such resource.';
    case 'method_not_allowed':
      return 'This method is not allowed on this resource.';
    default:
      return PROBLEM_CODES[code].title + '.';
  }
}

/**
 * Turns every thrown error into a problem document. Unknown errors become a bare 500: no
 * stack trace or internal message ever reaches a client; the log keeps it with the request id.
 */
export function problemDocuments(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // Nothing answered: the router leaves 404 (no route) or 405/501 (no such method).
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) sendProblem(ctx, new Problem('not_found', 'No such resource.'));
        else if (ctx.status === 405 || ctx.status === 501) sendProblem(ctx, new Problem('method_not_allowed', 'This method is not allowed on this resource.'));
      }
    } catch (err) {
      let problem: Problem | undefined;
      if (err instanceof Problem) problem = err;
      else if (typeof err === 'object' && err !== null && 'status' in err) problem = fromHttpError(err as { status?: number });
      else if (isStoreUnavailable(err)) {
        // The store is down or restarting: a retryable answer, not a 500 (the client and its retry loop can tell).
        requestLogger(ctx).warn({ err: serializeError(err) }, 'store unavailable');
        problem = storeUnavailableProblem(err);
      }
      if (!problem) {
        requestLogger(ctx).error({ err: serializeError(err) }, 'unhandled error');
        problem = new Problem('internal_error', 'An internal error occurred. Quote the request id when reporting it.');
      }
      if (err instanceof Problem === false && typeof err === 'object' && err !== null && 'headers' in err) {
        const allow = (err as { headers?: Record<string, string> }).headers?.Allow;
        if (allow) ctx.set('Allow', allow);
      }
      sendProblem(ctx, problem);
    }
  };
}

function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}
