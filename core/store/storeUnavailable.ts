/**
 * Whether an error means the store cannot be reached (down, restarting, network gone) rather
 * than a bug or a refused write: those are answered 503 `dependency_unavailable` with
 * Retry-After, not 500. Matched by name (and along `cause`): the driver's and mongoose's
 * classes can come from more than one copy of the package.
 */
const UNREACHABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
]);

/**
 * Raw socket errors: the driver (mongodb 6/7, Connection.writeCommand) lets Node's EPIPE "This
 * socket has been ended by the other party" through unwrapped when it writes to a connection
 * the store closed as it died (seen in `npm run chaos`).
 */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET']);

/** mongoose's own wait for a connection: "Operation `x.find()` buffering timed out after N ms". */
const BUFFERING_TIMEOUT = /buffering timed out/;

/** How long a request waits for an unreachable store before it is answered 503 (server selection and mongoose's buffer). */
export const STORE_WAIT_MS = 1500;

export function isStoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, message, code } = e as { name?: string; message?: string; code?: unknown };
    if (name && UNREACHABLE_NAMES.has(name)) return true;
    if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
    if (name === 'MongooseError' && message && BUFFERING_TIMEOUT.test(message)) return true;
  }
  return false;
}
