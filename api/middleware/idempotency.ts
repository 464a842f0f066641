import {
  idempotentChargeKey, invalidIdempotencyKey, isValidIdempotencyKey, requestFingerprint, runIdempotent, type StoredResponse,
} from '../../core/idempotency/idempotency';
import type { RouteInput, RouteResult } from '../routeSpec';

export { isValidIdempotencyKey, idempotentChargeKey };

const JSON_TYPE = 'application/json; charset=utf-8';

function parsedBody(raw: Buffer): unknown {
  if (!raw.length) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return raw.toString('base64');
  }
}

/** The idempotency key as the caller sent it, and the request line the fingerprint covers. */
export interface IdempotentCall {
  idempotencyKey: string | undefined;
  method: string;
  path: string;
}

/**
 * The operation executor's adapter of core/idempotency (SPEC 7.4): checks the key,
 * fingerprints the request and serializes the handler's result once, so a replay sends the
 * very same bytes with `Idempotent-Replayed: true`.
 */
export async function withIdempotency(
  call: IdempotentCall,
  operation: string,
  rawBody: Buffer,
  input: RouteInput<unknown, unknown, unknown>,
  run: () => Promise<RouteResult>,
): Promise<RouteResult> {
  const key = call.idempotencyKey ?? '';
  if (!isValidIdempotencyKey(key)) throw invalidIdempotencyKey();
  input.idempotencyKey = key;
  const fingerprint = requestFingerprint(operation, call.method, call.path, parsedBody(rawBody));
  const { response, replayed } = await runIdempotent({ orgId: input.principal.orgId, key, operation, fingerprint }, async (): Promise<StoredResponse> => {
    const result = await run();
    const body = result.body === undefined ? '' : typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
    return { status: result.status, headers: { ...(result.headers ?? {}), 'Content-Type': JSON_TYPE }, body };
  });
  return {
    status: response.status,
    headers: replayed ? { ...response.headers, 'Idempotent-Replayed': 'true' } : response.headers,
    body: response.body === '' ? undefined : response.body,
  };
}
