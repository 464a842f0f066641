import { hkdfSync } from 'node:crypto';

/**
 * One configured master secret, many uses: each use (sealing secrets at rest, deriving search
 * and person ids, …) gets its own key derived with HKDF-SHA-256 under a purpose label, so a
 * key recovered from one use says nothing about another and no key serves two algorithms.
 */
export type KeyPurpose = 'secret-box' | 'search-id' | 'person-id' | 'receipt-binding' | 'session' | 'csrf' | 'client-address' | 'page-cursor';

const derived = new WeakMap<Buffer, Map<string, Buffer>>();

export function purposeKey(master: Buffer, purpose: KeyPurpose, version = 1): Buffer {
  let byPurpose = derived.get(master);
  if (!byPurpose) {
    byPurpose = new Map();
    derived.set(master, byPurpose);
  }
  const label = `talent-platform/${purpose}/v${version}`;
  let key = byPurpose.get(label);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
    byPurpose.set(label, key);
  }
  return key;
}
