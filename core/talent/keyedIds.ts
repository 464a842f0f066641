import { createHmac } from 'node:crypto';
import type { PurposeKeys } from '../crypto/purposeKeys';
import type { IdPrefix } from '../ids';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * An id derived from `input` under the server's secret (HKDF purpose key of
 * SECRETS_ENCRYPTION_KEY): the same input always names the same thing on every replica, yet
 * nobody without the secret can compute one, so an id is only known by being handed out.
 * `keys` are the app's (Deps.purposeKeys), passed by the caller.
 */
export function keyedId(keys: PurposeKeys, prefix: Extract<IdPrefix, 'per' | 'srch'>, purpose: 'person-id' | 'search-id', input: string): string {
  const digest = createHmac('sha256', keys.key(purpose)).update(input).digest();
  let out = '';
  for (let i = 0; i < 22; i++) out += BASE62[digest[i] % 62];
  return `${prefix}_${out}`;
}
