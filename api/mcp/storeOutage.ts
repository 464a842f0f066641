import type { Context } from 'koa';
import { STORE_RETRY_AFTER_SECONDS, storeUnavailableProblem } from '../../core/store/storeUnavailable';

/** JSON-RPC's implementation-defined server error range starts at -32000; this one means "retry later". */
export const DEPENDENCY_UNAVAILABLE_RPC_CODE = -32000;

/**
 * A tool call that found the store unreachable. The MCP SDKs answer a thrown error as a JSON-RPC
 * error with its `code` and `data`; the tool server then sends that answer with HTTP 503 and
 * Retry-After (not a tool result: nothing ran, and the client's retry loop must see it).
 */
export class ToolStoreOutage extends Error {
  readonly code = DEPENDENCY_UNAVAILABLE_RPC_CODE;
  readonly data: Record<string, unknown>;
  constructor(requestId: string, cause: unknown) {
    const problem = storeUnavailableProblem(cause);
    super(problem.detail, { cause });
    this.name = 'ToolStoreOutage';
    this.data = { code: problem.code, status: problem.status, retry_after: STORE_RETRY_AFTER_SECONDS, request_id: requestId };
  }
}

/** Per request: whether a tool call of it met the store down (set by the servers' call handlers). */
export interface OutageFlag {
  storeUnavailable: boolean;
}

/** Runs a tool call, noting on `flag` when it failed for the store. */
export async function noteStoreOutage<T>(flag: OutageFlag, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ToolStoreOutage) flag.storeUnavailable = true;
    throw err;
  }
}

/** The whole answer when the store fails before any tool runs (bearer validation reads it). */
export function sendStoreOutage(ctx: Context, requestId: string | undefined, cause: unknown): void {
  const problem = storeUnavailableProblem(cause);
  ctx.status = 503;
  ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
  ctx.body = {
    jsonrpc: '2.0',
    error: {
      code: DEPENDENCY_UNAVAILABLE_RPC_CODE,
      message: problem.detail,
      data: { code: problem.code, status: 503, retry_after: STORE_RETRY_AFTER_SECONDS, request_id: requestId },
    },
    id: null,
  };
}

/** Makes a response the transport writes itself go out as 503 + Retry-After when the flag was raised before its head is written. */
export function statusOnOutage(ctx: Context, flag: OutageFlag): void {
  const res = ctx.res;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (flag.storeUnavailable) {
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return writeHead(503, ...rest);
    }
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
}
