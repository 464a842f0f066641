import { hkdfSync } from 'node:crypto';

/**
 * One configured master secret, many uses: each use (sealing secrets at rest, deriving search
 * and person ids, …) gets its own key derived with HKDF-SHA-256 under a purpose label, so a
 * key recovered from one use says nothing about another and no key serves two algorithms.
 * Derived on each use, not remembered: a derivation costs far less than the store round trip of
 * any request that needs one, and nothing is kept beside the master.
 */
export type KeyPurpose = 'secret-box' | 'search-id' | 'person-id' | 'receipt-binding' | 'session' | 'csrf' | 'client-address' | 'page-cursor';

export function purposeKey(master: Buffer, purpose: KeyPurpose, version = 1): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `talent-platform/${purpose}/v${version}`, 32));
}
