import { constantTimeEqual, sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';

/**
 * Client secrets: 48 random base62 characters (~285 bits) behind a recognisable prefix, so
 * secret scanners can find leaked ones. High entropy makes a plain SHA-256 a safe stored form.
 */
export const CLIENT_SECRET_PREFIX = 'mcs_';

export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomBase62(48);
}

export function hashClientSecret(secret: string): string {
  return sha256Hex(secret);
}

export interface StoredSecret {
  hash: string;
  expiresAt: Date | null;
}

/** True when `presented` matches a secret that is still live at `now`. */
export function matchesLiveSecret(presented: string, secrets: readonly StoredSecret[], now: Date): boolean {
  const presentedHash = hashClientSecret(presented);
  let ok = false;
  // Compare against every secret so timing does not tell which one matched.
  for (const s of secrets) {
    const live = s.expiresAt === null || s.expiresAt > now;
    if (constantTimeEqual(presentedHash, s.hash) && live) ok = true;
  }
  return ok;
}

/**
 * After a rotation: the new secret is current, the previous current one lives for the grace
 * period, and anything older is dropped, so at most two secrets are ever live.
 */
export function rotateSecrets<T extends StoredSecret & { _id: string; createdAt: Date }>(secrets: readonly T[], next: T, now: Date, graceSeconds: number): T[] {
  const current = secrets.filter((s) => s.expiresAt === null);
  const previous = current.map((s) => ({ ...s, expiresAt: new Date(now.getTime() + graceSeconds * 1000) }));
  return [...previous.filter((s) => s.expiresAt > now), next];
}
