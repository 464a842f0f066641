import ipaddr from 'ipaddr.js';
import { hmacSha256 } from '../crypto/hash';
import type { PurposeKeys } from '../crypto/purposeKeys';
import type { Logger } from '../observability/logger';
import { admitUnderCap, MINUTE_MS, type CapContext } from './minuteCaps';
import type { LimitsStore } from './store';
import { errorMessage } from '../observability/errorMessage';

/**
 * Per-client-address limits for what can be called without a credential (SPEC 8 covers
 * authenticated callers only): failed API-key authentications, token requests, JWKS
 * fetches, authorization requests that store a pending authorization, and the Client ID
 * Metadata Document fetches an address's requests cause. Each is a per-minute cap counted in
 * the store (minuteCaps.ts: unique inserts, exact in any trailing minute), so every API
 * replica shares it.
 *
 * The stored cap names carry a keyed hash of the address, never the address itself. IPv6
 * addresses count per /64, the block one subscriber usually gets, so cycling through one's own
 * addresses does not multiply the allowance.
 */
export type AddressLimitName = 'auth-failures' | 'token' | 'jwks' | 'authorize' | 'metadata-fetch' | 'passkey-options';

const CAP_PREFIX = 'addr:';

/** The unit a limit counts: an IPv4 address, or an IPv6 /64 (IPv4-mapped IPv6 counts as IPv4). */
export function clientAddressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

export function addressCapName(keys: PurposeKeys, limit: AddressLimitName, address: string): string {
  const digest = hmacSha256(keys.key('client-address'), clientAddressBucket(address)).subarray(0, 16).toString('base64url');
  return `${CAP_PREFIX}${limit}:${digest}`;
}

export type AddressAdmission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/** Deletes address-limit entries older than two minutes (only the trailing minute is ever read); returns how many. */
export async function purgeStaleAddressEntries(limits: LimitsStore, now: number): Promise<number> {
  return limits.deleteCapEntriesWithPrefixBefore(CAP_PREFIX, now - 2 * MINUTE_MS);
}

/** Counts one event of `limit` for `address`, or refuses it (writing nothing) when `perMinute` happened in the trailing minute. */
export async function admitFromAddress(
  keys: PurposeKeys,
  limit: AddressLimitName,
  address: string,
  perMinute: number,
  context: CapContext,
): Promise<AddressAdmission> {
  const got = await admitUnderCap(addressCapName(keys, limit, address), perMinute, context);
  return got.admitted ? { admitted: true } : { admitted: false, retryAfterSeconds: got.retryAfterSeconds };
}

/**
 * One app's gate on what its clients' addresses may do (admitFromAddress, counted in the store).
 * Entries of addresses that stop calling would stay forever (minuteCaps purges a cap only while
 * it is used), so the app also purges them, at most once a minute. Built once per app by the
 * composition root (core/deps.ts).
 */
export class ClientAddressLimits {
  private purgedAt = 0;

  /** `limits`, `now` and `logger`: the app's limits store, clock and logger (core/deps.ts). */
  constructor(
    private readonly limits: LimitsStore,
    private readonly keys: PurposeKeys,
    readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /** admitFromAddress under this app's purpose keys, after a purge when a minute has passed since the last. */
  async admit(limit: AddressLimitName, address: string, perMinute: number): Promise<AddressAdmission> {
    this.purgeStaleEntries(this.now());
    return admitFromAddress(this.keys, limit, address, perMinute, { limits: this.limits, now: this.now, logger: this.logger });
  }

  private purgeStaleEntries(now: number): void {
    if (now - this.purgedAt < MINUTE_MS) return;
    this.purgedAt = now;
    purgeStaleAddressEntries(this.limits, now).catch((err) =>
      this.logger.warn({ err: { message: errorMessage(err) } }, 'could not purge client-address limit entries'),
    );
  }
}

/**
 * What one process remembers of addresses over their failed-authentication limit: their failing
 * requests are refused without another store write, until the store's window has room again.
 * A hint only (the store decides): another replica learns it on the address's next failure.
 */
export class AddressBlocks {
  private readonly until = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  block(bucket: string, retryAfterSeconds: number, now: number): void {
    if (this.until.size >= this.maxEntries) this.evictExpired(now);
    // Still full of live blocks: forget the oldest rather than grow without bound.
    if (this.until.size >= this.maxEntries) this.until.delete(this.until.keys().next().value as string);
    this.until.set(bucket, now + retryAfterSeconds * 1000);
  }

  /** Whether any address is blocked: callers skip parsing the address on the common path. */
  get empty(): boolean {
    return this.until.size === 0;
  }

  /** Seconds the bucket stays blocked, or 0. */
  retryAfterSeconds(bucket: string, now: number): number {
    const until = this.until.get(bucket);
    if (until === undefined) return 0;
    if (until <= now) {
      this.until.delete(bucket);
      return 0;
    }
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  private evictExpired(now: number): void {
    for (const [bucket, until] of this.until) if (until <= now) this.until.delete(bucket);
  }
}
