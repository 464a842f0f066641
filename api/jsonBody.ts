import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { Problem, validationFailed } from '../core/problems';

export const MAX_BODY_BYTES = 65_536;
/** Objects and arrays nested deeper than this are refused: no contract needs more, and code that walks a body recurses. */
export const MAX_BODY_DEPTH = 32;

/** Whether a parsed JSON value nests objects/arrays deeper than `max` (`{}` is depth 1). Iterative: safe at any depth. */
export function nestingExceeds(value: unknown, max: number): boolean {
  const pending: Array<{ node: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') pending.push({ node: value, depth: 1 });
  for (let item = pending.pop(); item; item = pending.pop()) {
    if (item.depth > max) return true;
    const children: unknown[] = Array.isArray(item.node) ? item.node : Object.values(item.node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') pending.push({ node: child, depth: item.depth + 1 });
    }
  }
  return false;
}

export function tooDeeplyNested(): Problem {
  return validationFailed([{ field: 'body', message: `nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels` }]);
}

function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  if (ctx.get('Transfer-Encoding')) return true;
  return length !== '' && length !== '0';
}

export interface ReadBody {
  /** Parsed JSON, or undefined when the request carried no body. */
  value: unknown;
  /** The exact bytes received, for idempotency fingerprints. */
  raw: Buffer;
}

/**
 * Reads a JSON body: 415 for any other media type, 413 past 65,536 bytes without buffering
 * the rest (a Content-Length over the limit is refused before reading), 400 for bad JSON, 422
 * for JSON nested deeper than MAX_BODY_DEPTH.
 */
export async function readJsonBody(ctx: Context): Promise<ReadBody> {
  if (!hasBody(ctx)) return { value: undefined, raw: Buffer.alloc(0) };
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  // Clients that send a bodiless POST chunked (Node's http does) declare no type: an empty
  // chunked body is no body, anything else still needs application/json.
  const mayBeEmpty = type === '' && !ctx.get('Content-Length');
  if (type !== 'application/json' && !mayBeEmpty) {
    throw new Problem('unsupported_media_type', 'Send the body as `Content-Type: application/json`.');
  }
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('Content-Length') || undefined });
  } catch (err) {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large' || e.status === 413) {
      // Stop reading: the client is told at once and the socket closes after the answer.
      ctx.set('Connection', 'close');
      throw new Problem('body_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
    }
    throw new Problem('malformed_body', 'The request body could not be read completely.');
  }
  if (raw.length === 0) return { value: undefined, raw };
  if (type !== 'application/json') {
    throw new Problem('unsupported_media_type', 'Send the body as `Content-Type: application/json`.');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new Problem('malformed_body', 'The body is not valid JSON.');
  }
  // Before anything walks it: the walkers recurse, and a deep enough body would overflow the stack.
  if (nestingExceeds(value, MAX_BODY_DEPTH)) throw tooDeeplyNested();
  return { value, raw };
}
