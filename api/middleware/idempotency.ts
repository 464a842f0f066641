import type { Context } from 'koa';
import { Problem } from '../../core/problems';
import type { RouteInput, RouteResult } from '../routeSpec';

/** SPEC 7.4: 8–128 characters, first a letter or digit, then letters, digits, `.`, `_`, `:`, `-`. */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;

export function isValidIdempotencyKey(value: string): boolean {
  return IDEMPOTENCY_KEY.test(value);
}

/**
 * Runs an idempotent operation. Placeholder until the idempotency store lands: checks the
 * key's syntax and runs the operation.
 */
export async function withIdempotency(
  ctx: Context,
  _operation: string,
  _rawBody: Buffer,
  input: RouteInput<unknown, unknown, unknown>,
  run: () => Promise<RouteResult>,
): Promise<RouteResult> {
  const key = ctx.get('Idempotency-Key');
  if (!key || !isValidIdempotencyKey(key)) {
    throw new Problem('invalid_idempotency_key', 'Send an Idempotency-Key header of 8 to 128 characters: a letter or digit, then letters, digits, `.`, `_`, `:` or `-`.');
  }
  input.idempotencyKey = key;
  return run();
}
