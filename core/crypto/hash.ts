import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/**
 * One-way hash of a high-entropy credential (API keys, client secrets, refresh tokens). Every
 * API request hashes its key; the one-shot `hash` makes no Hash object for it.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function hmacSha256(key: Buffer, value: string | Buffer): Buffer {
  return createHmac('sha256', key).update(value).digest();
}

export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const y = Buffer.isBuffer(b) ? b : Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
