import { Problem, retryLater } from '../problems';

/**
 * Whether an error means the store cannot be reached (down, restarting, network gone, primary
 * lost) rather than a bug or a refused write: those are answered 503 `dependency_unavailable`
 * with Retry-After, not 500. Matched by name, code and label (and along `cause`): the driver's
 * and mongoose's classes can come from more than one copy of the package.
 */
const UNREACHABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoStalePrimaryError',
  'MongoPoolClearedError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
]);

/**
 * Raw socket errors: the driver (mongodb 6/7, Connection.writeCommand) lets Node's EPIPE "This
 * socket has been ended by the other party" through unwrapped when it writes to a connection
 * the store closed as it died (seen in `npm run chaos`); the others sit under MongoNetworkError.
 */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Server codes of a store that is shutting down, changing primary or cut off from its members
 * (the driver's retryable set, plus WriteConcernFailed: the majority did not confirm in time).
 * They arrive as a command's code or as a write concern error's.
 */
const STORE_STATE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  64, // WriteConcernFailed
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Labels the driver puts on errors it knows to be transient faults of the connection or the server. */
const TRANSIENT_LABELS = new Set(['ResetPool', 'RetryableWriteError', 'PoolRequestedRetry', 'SystemOverloadedError', 'RetryableError']);

/**
 * A bulk write (insertMany, bulkWrite) rethrows a connection failure as MongoBulkWriteError
 * carrying only the message (no cause, no write errors): "connect ECONNREFUSED 127.0.0.1:…",
 * "Topology is closed".
 */
const NETWORK_MESSAGE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|Topology is closed|connection .*closed|socket has been ended|Server selection timed out|pool .*cleared/i;

/** mongoose's own wait for a connection: "Operation `x.find()` buffering timed out after N ms". */
const BUFFERING_TIMEOUT = /buffering timed out/;

/** What a client is told to wait when the store is unreachable: a FerretDB or MongoDB restart takes seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

interface DriverErrorShape {
  name?: string;
  message?: string;
  code?: unknown;
  errorLabels?: unknown;
  writeErrors?: unknown;
  writeConcernError?: { code?: unknown };
  result?: { writeConcernError?: { code?: unknown } };
  errorResponse?: { writeConcernError?: { code?: unknown } };
}

function hasTransientLabel(labels: unknown): boolean {
  return Array.isArray(labels) && labels.some((l) => typeof l === 'string' && TRANSIENT_LABELS.has(l));
}

function isStateCode(code: unknown): boolean {
  return typeof code === 'number' && STORE_STATE_CODES.has(code);
}

function noWriteErrors(writeErrors: unknown): boolean {
  return writeErrors === undefined || (Array.isArray(writeErrors) && writeErrors.length === 0);
}

function oneLevel(e: DriverErrorShape): boolean {
  const { name, message, code } = e;
  if (name && UNREACHABLE_NAMES.has(name)) return true;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (name === 'MongooseError' && message && BUFFERING_TIMEOUT.test(message)) return true;
  if (!name?.startsWith('Mongo')) return false;
  if (isStateCode(code)) return true;
  const wce = e.writeConcernError ?? e.result?.writeConcernError ?? e.errorResponse?.writeConcernError;
  if (wce && isStateCode(wce.code)) return true;
  if (!noWriteErrors(e.writeErrors)) return false;
  if (hasTransientLabel(e.errorLabels)) return true;
  return name.endsWith('BulkWriteError') && !!message && NETWORK_MESSAGE.test(message);
}

export function isStoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (oneLevel(e as DriverErrorShape)) return true;
  }
  return false;
}

/** The one answer to a store that cannot be reached, on every surface: 503 `dependency_unavailable` with Retry-After. */
export function storeUnavailableProblem(cause?: unknown): Problem {
  return retryLater('dependency_unavailable', 'The store is unavailable; retry shortly.', STORE_RETRY_AFTER_SECONDS, { cause });
}
