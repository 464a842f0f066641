import { sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';

/**
 * One-time password links: an invitation (7 days), the operator's setup link (24 hours) and a
 * password reset (1 hour) all open the page that sets a password. The link carries a random
 * token; only its SHA-256 is stored, with when it expires and what it is for. A newer link of a
 * person replaces the older (the older stops working), and a link works once (the caller claims
 * its hash before it sets the password).
 */
export type LinkPurpose = 'invitation' | 'setup' | 'reset';

export const LINK_LIFETIMES_MS: Record<LinkPurpose, number> = {
  invitation: 7 * 24 * 3600_000,
  setup: 24 * 3600_000,
  reset: 3600_000,
};

export const LINK_TOKEN_PREFIX = 'ust_';
const TOKEN = /^ust_[0-9A-Za-z]{43}$/;

export interface IssuedLink {
  /** Goes into the link only; never stored. */
  token: string;
  hash: string;
  purpose: LinkPurpose;
  expiresAt: Date;
}

export function issueLink(purpose: LinkPurpose, now: Date): IssuedLink {
  const token = LINK_TOKEN_PREFIX + randomBase62(43);
  return { token, hash: sha256Hex(token), purpose, expiresAt: new Date(now.getTime() + LINK_LIFETIMES_MS[purpose]) };
}

/** The stored hash a presented token would have, or null for anything that is not a token. */
export function linkHashOf(token: unknown): string | null {
  return typeof token === 'string' && TOKEN.test(token) ? sha256Hex(token) : null;
}

/** Whether a stored link (its hash and expiry) opens for `token` at `now`: the same hash, not expired, not used. */
export function linkOpens(stored: { hash: string | null; expiresAt: Date | null; used?: boolean }, token: unknown, now: Date): boolean {
  const hash = linkHashOf(token);
  return hash !== null && stored.hash === hash && !stored.used && stored.expiresAt !== null && now < stored.expiresAt;
}
