import type { Context, Middleware } from 'koa';
import type { Logger } from '../core/observability/logger';

/**
 * Binds the request id to a child of the app's logger once, right after the id is known, so
 * every line a request causes carries it without each caller adding it.
 */
export function requestLogging(logger: Logger): Middleware {
  return async (ctx, next) => {
    ctx.state.log = logger.child({ request_id: ctx.state.requestId as string });
    await next();
  };
}

/** The request's logger (bound to its request id by `requestLogging`). */
export function requestLogger(ctx: Pick<Context, 'state'>): Logger {
  return ctx.state.log as Logger;
}
