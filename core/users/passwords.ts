import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (node:crypto): a random 16-byte salt per hash, cost N = 2^log2N
 * (2^15 by default, PASSWORD_SCRYPT_LOG2_N), r = 8, p = 1, 32-byte output. The stored form
 * carries its parameters, so a later cost change still verifies old hashes.
 */
const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must cover 128 * N * r bytes, plus headroom.
    const maxmem = 128 * (options.N ?? 16384) * (options.r ?? 8) * 2;
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N: 2 ** log2N, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', log2N, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, log2N, r, p, salt, key] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: 2 ** Number(log2N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A password a person may choose: long enough, not absurdly long, the confirmation identical. */
export function passwordProblem(password: string, confirmation: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password !== confirmation) return 'The two passwords are not the same.';
  return null;
}
