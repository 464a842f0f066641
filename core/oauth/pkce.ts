import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../crypto/hash';

/**
 * PKCE (RFC 7636), S256 only: `plain` would hand the verifier to anyone who sees the request.
 * A verifier is 43–128 unreserved characters; an S256 challenge is the 43-character base64url
 * SHA-256 of it.
 */
export const PKCE_METHOD = 'S256';
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidCodeVerifier(verifier: unknown): verifier is string {
  return typeof verifier === 'string' && VERIFIER.test(verifier);
}

export function isValidS256Challenge(challenge: unknown): challenge is string {
  return typeof challenge === 'string' && S256_CHALLENGE.test(challenge);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function verifierMatches(verifier: unknown, challenge: string): boolean {
  if (!isValidCodeVerifier(verifier)) return false;
  return constantTimeEqual(s256(verifier), challenge);
}
