import { hkdfSync } from 'node:crypto';
import { inspect } from 'node:util';

/**
 * One configured master secret, many uses: each use (sealing secrets at rest, deriving search
 * and person ids, …) gets its own key derived with HKDF-SHA-256 under a purpose label, so a
 * key recovered from one use says nothing about another and no key serves two algorithms.
 */
export type KeyPurpose = 'secret-box' | 'search-id' | 'person-id' | 'receipt-binding' | 'session' | 'csrf' | 'client-address' | 'page-cursor';

/** The purpose key of `master` under `purpose`, derived afresh (PurposeKeys keeps them). */
export function derivePurposeKey(master: Buffer, purpose: KeyPurpose, version = 1): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `talent-platform/${purpose}/v${version}`, 32));
}

/**
 * The purpose keys of one app's master secret (SECRETS_ENCRYPTION_KEY), each derived once: the
 * person ids of a synthetic dataset ask for the same key once per person, and deriving it each
 * time costs more than the HMAC it keys. Built by the composition root (core/deps.ts) from the
 * config's secrets, so apps with other secrets hold other keys. Like a `Concealed` value it reads
 * as `[redacted]` when logged, serialised or inspected, so handing Deps to a logger leaks no key.
 */
export class PurposeKeys {
  /** The keys of SECRETS_ENCRYPTION_KEY_PREVIOUS during a rotation: values sealed under it still open. */
  readonly previous: PurposeKeys | null;
  readonly #master: Buffer;
  readonly #derived = new Map<string, Buffer>();

  /** `master` seals and keys everything new; `previous` only opens what was sealed before a rotation. */
  constructor(master: Buffer, previous: Buffer | null = null) {
    this.#master = master;
    this.previous = previous ? new PurposeKeys(previous) : null;
  }

  key(purpose: KeyPurpose, version = 1): Buffer {
    const label = `${purpose}/v${version}`;
    let key = this.#derived.get(label);
    if (!key) {
      key = derivePurposeKey(this.#master, purpose, version);
      this.#derived.set(label, key);
    }
    return key;
  }

  /** The master itself, which the secret box's first stored form used as its AES key (opened, never written). */
  legacySecretBoxKey(): Buffer {
    return this.#master;
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}

/** The purpose keys of a config's secrets (SECRETS_ENCRYPTION_KEY and, during a rotation, SECRETS_ENCRYPTION_KEY_PREVIOUS). */
export function purposeKeysOf(secrets: { readonly secretsKey: Buffer; readonly secretsKeyPrevious?: Buffer | null }): PurposeKeys {
  return new PurposeKeys(secrets.secretsKey, secrets.secretsKeyPrevious ?? null);
}
