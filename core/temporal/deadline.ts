/**
 * Every wait on Temporal has a limit. Without one a call against a server that is down retries
 * inside the client for about 20 s, and a call on a connection that stopped answering waits
 * forever.
 */

/** The limit of a wait on Temporal was reached; the message names what was waited for and where. */
export class TemporalDeadlineError extends Error {
  constructor(
    readonly what: string,
    readonly limitMs: number,
    address: string | undefined,
    cause?: unknown,
  ) {
    super(`Temporal${address ? ` at ${address}` : ''} did not answer ${what} within ${limitMs} ms${cause instanceof Error ? `: ${cause.message}` : ''}`, {
      cause,
    });
    this.name = 'TemporalDeadlineError';
  }
}

/** What the client's connection offers: a gRPC deadline for every call `fn` makes. */
export interface DeadlineConnection {
  withDeadline<T>(deadline: number | Date, fn: () => Promise<T>): Promise<T>;
}

/** gRPC statuses of a server that is not there or did not answer in time: DEADLINE_EXCEEDED, UNAVAILABLE. */
const UNANSWERED_GRPC_CODES = new Set([4, 14]);

/** Whether an error of the Temporal client means the server did not answer (rather than answered no). */
export function isTemporalUnanswered(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TemporalDeadlineError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNANSWERED_GRPC_CODES.has(code) && (e as { metadata?: unknown }).metadata !== undefined) return true;
    if (
      (e as { name?: string }).name === 'ServiceError' &&
      /deadline|UNAVAILABLE|connect/i.test(String((e as Error).message) + String((e as { cause?: Error }).cause?.message))
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Runs `fn` (calls on `connection`) with a gRPC deadline `limitMs` from now, and a timer as well
 * for whatever `fn` awaits besides those calls. An error of a server that did not answer becomes
 * a TemporalDeadlineError naming `what`; any other error (not found, already started) is passed on.
 */
export async function withTemporalDeadline<T>(
  connection: DeadlineConnection | null,
  target: { what: string; limitMs: number; address?: string },
  fn: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // A little over the gRPC deadline: the call's own DEADLINE_EXCEEDED usually comes first.
    timer = setTimeout(
      () => reject(new TemporalDeadlineError(target.what, target.limitMs, target.address)),
      target.limitMs + Math.min(250, target.limitMs / 4),
    );
  });
  try {
    const run = connection ? connection.withDeadline(Date.now() + target.limitMs, fn) : fn();
    return await Promise.race([run, timeout]);
  } catch (err) {
    if (err instanceof TemporalDeadlineError) throw err;
    if (isTemporalUnanswered(err)) throw new TemporalDeadlineError(target.what, target.limitMs, target.address, err);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
