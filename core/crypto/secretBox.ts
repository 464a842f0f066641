import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { PurposeKeys } from './purposeKeys';

/**
 * Encryption at rest for secrets that must be recoverable (webhook signing secrets, token
 * signing keys): AES-256-GCM; `aad` binds a ciphertext to its record. The one module that
 * seals and opens them.
 *
 * Stored forms, base64url parts:
 * - `v2.<kid>.<iv>.<tag>.<ciphertext>`, written today: the AES key is the master's
 *   `secret-box` purpose key, version 1 (so the master secret never serves AES directly) and
 *   `kid` names the master it came from, so a value sealed before a rotation finds its key.
 * - `v1.<iv>.<tag>.<ciphertext>`, written before key versions: the raw master was the AES key.
 *   Still opened, never written.
 *
 * Rotation: SECRETS_ENCRYPTION_KEY is the new master (`config.secretsKey`), seals and opens;
 * SECRETS_ENCRYPTION_KEY_PREVIOUS the old one (`config.secretsKeyPrevious`), whose keys the app's
 * PurposeKeys carry as `previous`, so `openSecret` still opens values sealed before the rotation.
 */
const SECRET_BOX_KEY_VERSION = 1;

/** The masters' keys a value may be sealed under, newest first. */
function masterKeys(keys: PurposeKeys): PurposeKeys[] {
  return keys.previous ? [keys, keys.previous] : [keys];
}

function boxKey(keys: PurposeKeys): Buffer {
  return keys.key('secret-box', SECRET_BOX_KEY_VERSION);
}

/** A public name of the box key: a truncated hash of it, which says nothing about the key itself. */
export function sealingKeyId(keys: PurposeKeys): string {
  return createHash('sha256').update(boxKey(keys)).digest().subarray(0, 9).toString('base64url');
}

export function sealSecret(keys: PurposeKeys, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', boxKey(keys), iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', sealingKeyId(keys), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

function decrypt(key: Buffer, iv: string, tag: string, ct: string, aad: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/** Opens a value sealed under the master of `keys` or, during a rotation, under `keys.previous` (SECRETS_ENCRYPTION_KEY_PREVIOUS). */
export function openSecret(keys: PurposeKeys, sealed: string, aad: string): string {
  const parts = sealed.split('.');
  if (parts[0] === 'v2' && parts.length === 5) {
    const [, kid, iv, tag, ct] = parts;
    const owner = masterKeys(keys).find((m) => sealingKeyId(m) === kid);
    if (!owner) throw new Error(`sealed secret under key ${kid}, which is neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEY_PREVIOUS`);
    return decrypt(boxKey(owner), iv, tag, ct, aad);
  }
  if (parts[0] === 'v1' && parts.length === 4) {
    const [, iv, tag, ct] = parts;
    // No key id in this form: the GCM tag tells which master sealed it.
    let failure: unknown;
    for (const m of masterKeys(keys)) {
      try {
        return decrypt(m.legacySecretBoxKey(), iv, tag, ct, aad);
      } catch (err) {
        failure = err;
      }
    }
    throw failure;
  }
  throw new Error('unrecognised sealed secret');
}
