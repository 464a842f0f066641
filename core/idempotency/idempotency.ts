import { randomBytes } from 'node:crypto';
import { config } from '../config';
import { sha256Hex } from '../crypto/hash';
import { logger } from '../observability/logger';
import { Problem } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import { IdempotencyRecord, IdempotencyResponse } from './models';

/**
 * Idempotent execution (SPEC 7.4), independent of HTTP so the API and the tool server share
 * it. The first successful (2xx) response of a key is stored, exact bytes included, BEFORE
 * it is answered (the recovery point), and replayed for 24 hours; failures are not stored, so
 * a retry after 429/503/timeout runs again. Work a crashed request did is not lost either:
 * its claim lapses after the lease, the retry runs again, and paid work is charged under a
 * key derived from the idempotency key, which the ledger recognizes (no second charge).
 */

/** SPEC 7.4: 8–128 characters, first a letter or digit, then letters, digits, `.`, `_`, `:`, `-`. */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

export function isValidIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && IDEMPOTENCY_KEY.test(value);
}

export function invalidIdempotencyKey(): Problem {
  return new Problem('invalid_idempotency_key', 'Send an Idempotency-Key header of 8 to 128 characters: a letter or digit, then letters, digits, `.`, `_`, `:` or `-`.');
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The exact body bytes sent (UTF-8 JSON text). */
  body: string;
}

export interface IdempotentRequest {
  orgId: string;
  key: string;
  operation: string;
  fingerprint: string;
}

/** JSON with sorted object keys, so the same body sent with other spacing or key order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(operation: string, method: string, path: string, body: unknown): string {
  return sha256Hex(`${operation}\n${method.toUpperCase()}\n${path}\n${body === undefined ? '' : canonicalJson(body)}`);
}

/** The charge key of paid work done under an idempotency key: stable across retries. */
export function idempotentChargeKey(orgId: string, operation: string, key: string): string {
  return `idem:${orgId}:${operation}:${key}`;
}

/**
 * Expired records are deleted by the hourly store-maintenance schedule (no TTL indexes on
 * FerretDB); one met by a request before then is deleted on the spot (runIdempotent).
 */
export async function purgeExpiredIdempotencyRecords(now = new Date()): Promise<number> {
  await IdempotencyResponse.deleteMany({ expiresAt: { $lte: now } });
  return (await IdempotencyRecord.deleteMany({ expiresAt: { $lte: now } })).deletedCount ?? 0;
}

function inProgress(): Problem {
  return new Problem('idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry the same request after Retry-After.', {
    headers: { 'Retry-After': '1' },
  });
}

/**
 * Runs `run` at most once per (organization, key) at a time, replaying its first 2xx
 * response afterwards. 409 `idempotency_key_reused` for a different request under the key,
 * 409 `idempotency_in_progress` (Retry-After 1) while the first one runs.
 */
export async function runIdempotent(req: IdempotentRequest, run: () => Promise<StoredResponse>): Promise<{ response: StoredResponse; replayed: boolean }> {
  if (!isValidIdempotencyKey(req.key)) throw invalidIdempotencyKey();
  const id = `${req.orgId}:${req.key}`;
  const owner = randomBytes(12).toString('hex');
  const leaseMs = config().idempotency.leaseSeconds * 1000;
  for (let attempt = 0; attempt < 10; attempt++) {
    const now = Date.now();
    try {
      await IdempotencyRecord.collection.insertOne({
        _id: id as never, orgId: req.orgId, operation: req.operation, fingerprint: req.fingerprint, state: 'in_progress', owner,
        leaseUntil: new Date(now + leaseMs), createdAt: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_RETENTION_MS),
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await IdempotencyRecord.findById(id).lean();
      if (!existing) continue;
      if (existing.expiresAt.getTime() <= now) {
        await IdempotencyResponse.deleteOne({ _id: id, expiresAt: { $lte: new Date(now) } });
        await IdempotencyRecord.deleteOne({ _id: id, owner: existing.owner });
        continue;
      }
      if (existing.fingerprint !== req.fingerprint) {
        throw new Problem('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
      }
      const stored = await IdempotencyResponse.findById(id).lean();
      if (stored) {
        return { response: { status: stored.status, headers: (stored.headers ?? {}) as Record<string, string>, body: stored.body ?? '' }, replayed: true };
      }
      if (existing.leaseUntil.getTime() > now) throw inProgress();
      // The holder crashed or stalled past its lease: release its claim and claim afresh.
      // A delete is atomic on every store, so only one retry wins the new claim.
      await IdempotencyRecord.deleteOne({ _id: id, owner: existing.owner, state: 'in_progress' });
      continue;
    }
    return { response: await execute(id, owner, req.fingerprint, new Date(now + IDEMPOTENCY_RETENTION_MS), run), replayed: false };
  }
  throw inProgress();
}

async function execute(id: string, owner: string, fingerprint: string, expiresAt: Date, run: () => Promise<StoredResponse>): Promise<StoredResponse> {
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
  try {
    await IdempotencyResponse.collection.insertOne({ _id: id as never, fingerprint, ...response, expiresAt });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const first = await IdempotencyResponse.findById(id).lean();
    if (first) return { status: first.status, headers: (first.headers ?? {}) as Record<string, string>, body: first.body ?? '' };
  }
  return response;
}

async function release(id: string, owner: string): Promise<void> {
  await IdempotencyRecord.deleteOne({ _id: id, owner, state: 'in_progress' }).catch((err) => logger.warn({ err }, 'idempotency release failed'));
}
