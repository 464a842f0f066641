import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

/** SPEC 7.1: letters, digits, `.`, `_`, `:`, `-`, up to 128 characters. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidRequestId(value: string): boolean {
  return REQUEST_ID.test(value);
}

/** `req_` and a random UUID's 32 hex digits (its dashes cut out at their fixed places, on every request). */
export function mintedRequestId(): string {
  const u = randomUUID();
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

/** Adopts the caller's X-Request-Id when it follows the rules, otherwise mints one; echoes it. */
export function requestId(): Middleware {
  return (ctx, next) => {
    const offered = ctx.get('X-Request-Id');
    const id = offered && isValidRequestId(offered) ? offered : mintedRequestId();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    return next();
  };
}
