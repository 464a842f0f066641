import { randomBase62 } from '../ids';

/**
 * API key plaintext: `sk_<env>_ext_<32+ base62>` (SPEC 2.1, DECISIONS.md). Only the hash is
 * stored; the display prefix is the non-secret head an operator can recognise a key by.
 */
export type KeyEnvironment = 'live' | 'test';

const KEY_PATTERN = /^sk_(live|test)_ext_([0-9A-Za-z]{32,128})$/;

export function generateApiKey(environment: KeyEnvironment): string {
  return `sk_${environment}_ext_${randomBase62(40)}`;
}

export function parseApiKey(candidate: string): { environment: KeyEnvironment } | null {
  const m = KEY_PATTERN.exec(candidate);
  return m ? { environment: m[1] as KeyEnvironment } : null;
}

export function displayPrefix(key: string): string {
  return key.slice(0, 'sk_live_ext_'.length + 4);
}
