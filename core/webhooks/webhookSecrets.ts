import type { PurposeKeys } from '../crypto/purposeKeys';
import { openSecret, sealSecret } from '../crypto/secretBox';
import { newId } from '../ids';
import { generateSigningSecret } from './signPayload';

/**
 * Signing secrets at rest: sealed by core/crypto/secretBox (key derived from SECRETS_ENCRYPTION_KEY), bound (AAD) to their endpoint
 * and secret id so a sealed value copied to another record does not open. The plaintext
 * leaves this module only in the registration and rotation responses and inside the signer.
 */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface StoredSecret {
  secretId: string;
  sealed: string;
  createdAt: Date;
  expiresAt: Date | null;
}

const aad = (endpointId: string, secretId: string) => `webhook-secret:${endpointId}:${secretId}`;

export function mintSecret(keys: PurposeKeys, endpointId: string, now: Date): { stored: StoredSecret; plaintext: string } {
  const plaintext = generateSigningSecret();
  const secretId = newId('whs');
  return { plaintext, stored: { secretId, sealed: sealSecret(keys, plaintext, aad(endpointId, secretId)), createdAt: now, expiresAt: null } };
}

/** Secrets that sign at `now`, newest first: the current one, plus a predecessor inside its window. */
export function liveSecrets(secrets: readonly StoredSecret[], now: Date): StoredSecret[] {
  return secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime()).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Secrets sealed under SECRETS_ENCRYPTION_KEY_PREVIOUS still open during a rotation (`keys.previous`). */
export function openSecrets(keys: PurposeKeys, endpointId: string, secrets: readonly StoredSecret[]): string[] {
  return secrets.map((s) => openSecret(keys, s.sealed, aad(endpointId, s.secretId)));
}

/** The secret list after a rotation: successor, the predecessor for 24 h, nothing older. */
export function rotatedSecrets(secrets: readonly StoredSecret[], successor: StoredSecret, now: Date): StoredSecret[] {
  const current = liveSecrets(secrets, now).find((s) => s.expiresAt === null);
  const kept = current ? [{ ...current, expiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS) }] : [];
  return [successor, ...kept];
}
