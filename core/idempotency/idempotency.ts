import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { sha256Hex } from '../crypto/hash';
import type { Logger } from '../observability/logger';
import { Problem } from '../problems';
import type { IdempotencyResponseDoc, IdempotencyStore, IdempotencyStores } from './store';

/**
 * Idempotent execution (SPEC 7.4), independent of HTTP so the API and the tool server share
 * it. The first successful (2xx) response of a key is stored, exact bytes included, BEFORE
 * it is answered (the recovery point), and replayed for 24 hours; failures are not stored, so
 * a retry after 429/503/timeout runs again. Work a crashed request did is not lost either:
 * its claim lapses after the lease, the retry takes the claim over, and paid work is charged
 * under a key derived from the claim's nonce, which the ledger recognizes (no second charge).
 *
 * A key is scoped to the caller's organization AND workspace (Stripe scopes keys to the
 * account; our tenants share an organization across workspaces, which must not see each
 * other's answers), and the fingerprint names the caller's workspace and key family, so no
 * other caller can replay a response. Once a record expires the key is forgotten: the next
 * request under it gets a new nonce, so it is charged, and names a search, afresh.
 */

/**
 * SPEC 7.4: 8–128 characters, first a letter or digit, then letters, digits, `.`, `_`, `:`, `-`.
 * Also the pattern the API reference and the tool catalogue state for the key.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$';
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

export function isValidIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && IDEMPOTENCY_KEY.test(value);
}

export function invalidIdempotencyKey(): Problem {
  return new Problem(
    'invalid_idempotency_key',
    'Send an Idempotency-Key header of 8 to 128 characters: a letter or digit, then letters, digits, `.`, `_`, `:` or `-`.',
  );
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The exact body bytes sent (UTF-8 JSON text). */
  body: string;
}

export interface IdempotentRequest {
  orgId: string;
  workspaceId: string;
  key: string;
  operation: string;
  fingerprint: string;
}

/** The use of an Idempotency-Key a request runs under: every retry of the request has the same. */
export interface RequestClaim {
  orgId: string;
  workspaceId: string;
  key: string;
  /** Random per record, kept by takeovers: a new request under a forgotten key gets a new one. */
  nonce: string;
}

/** Who sends the request: part of its fingerprint, so one caller never replays another's answer. */
export interface IdempotencyCaller {
  workspaceId: string;
  /** The key family (all rotations of one key; an M2M client): a rotated key still replays. */
  familyId: string;
}

/** JSON with sorted object keys, so the same body sent with other spacing or key order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(operation: string, method: string, path: string, body: unknown, caller: IdempotencyCaller): string {
  return sha256Hex(
    `${caller.workspaceId}\n${caller.familyId}\n${operation}\n${method.toUpperCase()}\n${path}\n${body === undefined ? '' : canonicalJson(body)}`,
  );
}

export function idempotencyRecordId(orgId: string, workspaceId: string, key: string): string {
  return `${orgId}:${workspaceId}:${key}`;
}

/**
 * The charge key of paid work done under a claim: the same for every retry of the request (a
 * crash between charge and answer is retried without a second charge), new for the next
 * request once the key is forgotten (never a free pass on an old receipt).
 */
export function claimChargeKey(operation: string, claim: RequestClaim): string {
  return `idem:${claim.orgId}:${operation}:${claim.workspaceId}:${claim.key}:${claim.nonce}`;
}

/**
 * Expired records are deleted by the hourly store-maintenance schedule (no TTL indexes on
 * FerretDB); one met by a request before then is deleted on the spot (runIdempotent).
 */
export async function purgeExpiredIdempotencyRecords(stores: IdempotencyStores, now: Date): Promise<number> {
  return stores.idempotency.deleteExpired(now);
}

function inProgress(): Problem {
  return new Problem('idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry the same request after Retry-After.', {
    headers: { 'Retry-After': '1' },
  });
}

function reused(): Problem {
  return new Problem('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
}

function stored(doc: Pick<IdempotencyResponseDoc, 'status' | 'headers' | 'body'>): StoredResponse {
  return { status: doc.status, headers: doc.headers ?? {}, body: doc.body ?? '' };
}

/**
 * Runs `run` at most once per (organization, workspace, key) at a time, replaying its first
 * 2xx response afterwards. 409 `idempotency_key_reused` for a different request under the
 * key, 409 `idempotency_in_progress` (Retry-After 1) while the first one runs.
 */
export async function runIdempotent(
  stores: IdempotencyStores,
  /** The app's settings, clock and logger (the operation's child logger). */
  app: { config: Pick<Config, 'idempotency'>; now: () => number; logger: Logger },
  req: IdempotentRequest,
  run: (claim: RequestClaim) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  if (!isValidIdempotencyKey(req.key)) throw invalidIdempotencyKey();
  const store = stores.idempotency;
  const id = idempotencyRecordId(req.orgId, req.workspaceId, req.key);
  const owner = randomBytes(12).toString('hex');
  const leaseMs = app.config.idempotency.leaseSeconds * 1000;
  const release = (claimId: string, claimOwner: string) => releaseClaim(store, claimId, claimOwner, app.logger);
  const claimWith = (nonce: string): RequestClaim => ({ orgId: req.orgId, workspaceId: req.workspaceId, key: req.key, nonce });
  for (let attempt = 0; attempt < 10; attempt++) {
    const now = app.now();
    const nonce = randomBytes(16).toString('hex');
    const expiresAt = new Date(now + IDEMPOTENCY_RETENTION_MS);
    const claimed = await store.insertClaim({
      _id: id,
      orgId: req.orgId,
      workspaceId: req.workspaceId,
      operation: req.operation,
      fingerprint: req.fingerprint,
      nonce,
      state: 'in_progress',
      owner,
      leaseUntil: new Date(now + leaseMs),
      createdAt: new Date(now),
      expiresAt,
    });
    if (claimed) return { response: await execute(store, id, owner, req.fingerprint, expiresAt, release, () => run(claimWith(nonce))), replayed: false };

    const existing = await store.findClaim(id);
    if (!existing) continue;
    if (existing.expiresAt.getTime() <= now) {
      await store.deleteExpiredResponse(id, new Date(now));
      await store.deleteClaimOf(id, existing.owner);
      continue;
    }
    if (existing.fingerprint !== req.fingerprint) {
      if (existing.state !== 'released') throw reused();
      // The request that held the key failed (nothing was stored): the key may carry a new
      // request, which gets a new nonce. A delete is atomic on every store: one replacement wins.
      await store.deleteClaimOf(id, existing.owner, true);
      continue;
    }
    const response = await store.findResponse(id);
    if (response && response.fingerprint === req.fingerprint) return { response: stored(response), replayed: true };
    if (existing.leaseUntil.getTime() > now) throw inProgress();
    if (!existing.nonce) {
      // A record without a nonce predates claim-bound charges: claim afresh.
      await store.deleteClaimOf(id, existing.owner);
      continue;
    }
    // The holder crashed, stalled past its lease or failed: continue its work under its nonce.
    const outcome = await takeOver(store, id, existing.owner, owner, existing.expiresAt, new Date(now + leaseMs));
    if (outcome === 'taken_by_another') throw inProgress();
    if (outcome === 'record_gone') continue;
    return { response: await execute(store, id, owner, req.fingerprint, existing.expiresAt, release, () => run(claimWith(existing.nonce!))), replayed: false };
  }
  throw inProgress();
}

/**
 * Hands a lapsed claim to this request without the record ever being absent: the unique insert
 * of a takeover marker picks the one retry that continues, then it moves the lease to itself.
 * (Should a racing update of the old holder undo the move, a second retry may run alongside:
 * both carry the same nonce, so the ledger still charges once and one response is stored.)
 */
async function takeOver(
  store: IdempotencyStore,
  id: string,
  previousOwner: string,
  owner: string,
  expiresAt: Date,
  leaseUntil: Date,
): Promise<'taken' | 'taken_by_another' | 'record_gone'> {
  if (!(await store.insertTakeover({ _id: `${id}|${previousOwner}`, expiresAt }))) return 'taken_by_another';
  const moved = await store.moveClaim(id, previousOwner, owner, leaseUntil);
  return moved ? 'taken' : 'record_gone';
}

async function execute(
  store: IdempotencyStore,
  id: string,
  owner: string,
  fingerprint: string,
  expiresAt: Date,
  release: (id: string, owner: string) => Promise<void>,
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  let response: StoredResponse;
  try {
    response = await run();
  } catch (err) {
    await release(id, owner);
    throw err;
  }
  if (response.status < 200 || response.status >= 300) {
    await release(id, owner);
    return response;
  }
  // The recovery point: stored before the caller sees it, so a lost answer is replayed.
  // Should a taken-over twin have stored first, its response is the one to answer with.
  if (!(await store.insertResponse({ _id: id, fingerprint, ...response, expiresAt }))) {
    const first = await store.findResponse(id);
    if (first) return stored(first);
  }
  return response;
}

/**
 * A failed request gives the key back without forgetting its nonce: a retry of the same
 * request continues under it (finding any charge the failure left), another request replaces it.
 */
async function releaseClaim(store: IdempotencyStore, id: string, owner: string, logger: Logger): Promise<void> {
  await store.releaseClaim(id, owner).catch((err) => logger.warn({ err }, 'idempotency release failed'));
}
