import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../crypto/hash';

/**
 * Standard Webhooks signatures (SPEC 6.2): HMAC-SHA-256 over `{id}.{timestamp}.{raw body}`
 * keyed with the base64-decoded part of a `whsec_` secret, sent as `v1,<base64>`; several
 * candidates are space-separated (two while a rotation window is open).
 */
export const SECRET_PREFIX = 'whsec_';
/** Bytes of randomness in a signing secret (SPEC 2.3 asks for a base64 payload; 24 is the floor). */
export const SECRET_BYTES = 32;

export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function secretKeyBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('signing secret must start with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('signing secret has an empty key');
  return key;
}

export function signatureCandidate(secret: string, eventId: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secretKeyBytes(secret));
  mac.update(`${eventId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The `webhook-signature` header value: one candidate per live secret, newest first. */
export function signatureHeader(secrets: readonly string[], eventId: string, timestampSeconds: number, body: string | Buffer): string {
  return secrets.map((s) => signatureCandidate(s, eventId, timestampSeconds, body)).join(' ');
}

/** What a receiver does: accept when ANY candidate matches, comparing in constant time. */
export function verifySignature(secret: string, eventId: string, timestampSeconds: number, body: string | Buffer, header: string): boolean {
  const expected = signatureCandidate(secret, eventId, timestampSeconds, body);
  return header
    .split(' ')
    .filter(Boolean)
    .some((candidate) => constantTimeEqual(candidate, expected));
}

export interface SignedHeaders {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signedHeaders(secrets: readonly string[], eventId: string, at: Date, body: string | Buffer): SignedHeaders {
  const ts = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': signatureHeader(secrets, eventId, ts, body),
  };
}
