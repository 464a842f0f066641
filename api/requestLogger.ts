import type { Context, Middleware } from 'koa';
import type { Logger } from '../core/observability/logger';

const ROOT = Symbol('the app logger a request logger is a child of');

interface RequestLogState {
  [ROOT]?: Logger;
  log?: Logger;
  requestId?: string;
}

/**
 * Makes the request's logger available to everything below. The child that carries the request
 * id is made on the first line the request logs: a pino child passes its bindings through the
 * redaction stringifiers, and most requests log nothing at the levels run under load.
 */
export function requestLogging(logger: Logger): Middleware {
  return (ctx, next) => {
    (ctx.state as RequestLogState)[ROOT] = logger;
    return next();
  };
}

/** The request's logger, bound to its request id (made on first use). */
export function requestLogger(ctx: Pick<Context, 'state'>): Logger {
  const state = ctx.state as RequestLogState;
  if (state.log) return state.log;
  const root = state[ROOT];
  if (!root) throw new Error('requestLogger used outside requestLogging');
  state.log = root.child({ request_id: state.requestId as string });
  return state.log;
}

/** Whether a line at `level` would be written: lets a caller skip building one that would not. */
export function requestLogs(ctx: Pick<Context, 'state'>, level: 'info' | 'debug'): boolean {
  const state = ctx.state as RequestLogState;
  return (state.log ?? state[ROOT])?.isLevelEnabled(level) ?? false;
}
