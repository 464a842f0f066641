import {
  invalidIdempotencyKey,
  isValidIdempotencyKey,
  requestFingerprint,
  runIdempotent,
  type RequestClaim,
  type StoredResponse,
} from '../../core/idempotency/idempotency';
import { payerOf as payerOfCaller, type Payer } from '../../core/credits/smallestAnswer';
import type { RouteInput, RouteResult, RouteSpec } from '../routeSpec';

export { isValidIdempotencyKey };

/** Refuses a missing or malformed key of an idempotent operation: the one check before any work. */
export function requireIdempotencyKey(spec: Pick<RouteSpec, 'idempotent'>, key: string | undefined): void {
  if (spec.idempotent && !isValidIdempotencyKey(key ?? '')) throw invalidIdempotencyKey();
}

/**
 * The claim the handler of an idempotent operation runs under: paid work is charged, and a
 * search named, under it. The executor sets it before the handler runs.
 */
export function requestClaim(input: Pick<RouteInput<unknown, unknown, unknown>, 'claim'>): RequestClaim {
  if (!input.claim) throw new Error('requestClaim: only an operation declared idempotent runs under a claim');
  return input.claim;
}

/**
 * Who pays for a paid operation's work and under which claim: the caller's organization and
 * key family (and the connected application of a tool call, held to its allowance), and the request's claim.
 */
export function payerOf(input: Pick<RouteInput<unknown, unknown, unknown>, 'claim' | 'principal' | 'deps'>): Payer & { claim: RequestClaim } {
  return { ...payerOfCaller(input.principal, new Date(input.deps.now())), claim: requestClaim(input) };
}

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
 * fingerprints the request (with its caller's workspace and key family) and serializes the
 * handler's result once, so a replay sends the very same bytes with `Idempotent-Replayed: true`.
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
  const { orgId, workspaceId, familyId } = input.principal;
  let creditsCharged: number | undefined;
  const fingerprint = requestFingerprint(operation, call.method, call.path, parsedBody(rawBody), { workspaceId, familyId });
  const { response, replayed } = await runIdempotent(
    input.deps.stores,
    input.deps,
    { orgId, workspaceId, key, operation, fingerprint },
    async (claim): Promise<StoredResponse> => {
      input.claim = claim;
      const result = await run();
      creditsCharged = result.creditsCharged;
      const body = result.body === undefined ? '' : typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
      return { status: result.status, headers: { ...(result.headers ?? {}), 'Content-Type': JSON_TYPE }, body };
    },
  );
  return {
    status: response.status,
    headers: replayed ? { ...response.headers, 'Idempotent-Replayed': 'true' } : response.headers,
    body: response.body === '' ? undefined : response.body,
    // What this request charged: a replay ran nothing, so it charged nothing.
    ...(replayed || creditsCharged === undefined ? {} : { creditsCharged }),
  };
}
